"""``rankviz trec-eval`` against trec_eval 10 itself on the MS MARCO-sized run of
``bench_evaluate.py``: wall and CPU seconds of each, for the official measures and for
``-q -m all_trec``, and whether the two print the same bytes. First, the cost of one call on a
small file (the Cranfield sample's bm25 run, as a pipeline that loops over runs pays it), the
median of ``--calls`` calls, beside a bare ``python -c "import numpy, pyarrow.csv"`` measured the
same way (the start no Python drop-in can go below).

trec_eval is not on PyPI: give a build (``--trec-eval PATH``; `make` in trec_eval's source folder,
e.g. ``../shared/reference/trec_eval-10.0-f425365.tar.gz``). Without one, ``rankviz evaluate`` of
the same files with the official measures is the reference measured in the same run.

    python bench/bench_trec_eval.py [--trec-eval PATH] [--repeat N] [--calls N] [--small-only]
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

from bench_evaluate import generate  # noqa: E402

ARGUMENTS = {"official": [], "all_trec -q": ["-q", "-m", "all_trec"]}


def timed(command: list[str]) -> tuple[float, float, bytes]:
    """(wall seconds, CPU seconds of the command's process, its output)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout


def per_call(command: list[str], calls: int) -> tuple[float, float]:
    """The median wall and CPU seconds of ``calls`` runs of ``command``."""
    import statistics

    found = [timed(command)[:2] for _ in range(calls)]
    return statistics.median(w for w, _ in found), statistics.median(c for _, c in found)


def small_file(trec_eval: str | None, calls: int) -> None:
    sample = HERE.parent / "sample_data" / "cranfield"
    qrels, run = str(sample / "qrels.txt"), str(sample / "runs" / "bm25.run.gz")
    rankviz = [sys.executable, "-m", "rankviz", "trec-eval", qrels, run]
    bare = [sys.executable, "-c", "import numpy, pyarrow.csv, pyarrow.compute"]
    rows = {"rankviz trec-eval (small file)": rankviz, "reference: import numpy, pyarrow.csv": bare}
    if trec_eval:
        import gzip
        import tempfile

        plain = Path(tempfile.mkdtemp()) / "bm25.run"
        plain.write_bytes(gzip.decompress(Path(run).read_bytes()))
        rows["trec_eval 10 (small file)"] = [trec_eval, qrels, str(plain)]
    for name, command in rows.items():
        wall, cpu = per_call(command, calls)
        print(f"{name:<38} {wall:6.3f} s wall {cpu:6.3f} CPU-s  (median of {calls} calls)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trec-eval", metavar="PATH", help="a trec_eval 10 build")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--calls", type=int, default=10, help="calls on the small file")
    parser.add_argument("--small-only", action="store_true", help="the small file alone")
    args = parser.parse_args()
    small_file(args.trec_eval, args.calls)
    if args.small_only:
        return
    qrels, run = generate("msmarco")
    rankviz = [sys.executable, "-m", "rankviz", "trec-eval"]
    for name, extra in ARGUMENTS.items():
        ours = min(timed([*rankviz, *extra, str(qrels), str(run)]) for _ in range(args.repeat))
        print(f"rankviz trec-eval {name:<12} {ours[0]:6.2f} s wall {ours[1]:6.2f} CPU-s")
        if args.trec_eval:
            theirs = min(
                timed([args.trec_eval, *extra, str(qrels), str(run)]) for _ in range(args.repeat)
            )
            same = "same bytes" if theirs[2] == ours[2] else "OUTPUTS DIFFER"
            print(
                f"trec_eval 10      {name:<12} {theirs[0]:6.2f} s wall {theirs[1]:6.2f} CPU-s"
                f"  ({same}; rankviz / trec_eval CPU: {ours[1] / theirs[1]:.2f}x)"
            )
    if not args.trec_eval:
        evaluate = [sys.executable, "-m", "rankviz", "evaluate", str(qrels), str(run)]
        for m in ("AP", "Rprec", "Bpref", "RR", "P@5", "P@10", "P@1000", "NumRet", "NumRelRet"):
            evaluate += ["-m", m]
        wall, cpu, _ = timed(evaluate)
        print(
            f"reference: rankviz evaluate (official-like measures) {wall:6.2f} s {cpu:6.2f} CPU-s"
        )


if __name__ == "__main__":
    main()
