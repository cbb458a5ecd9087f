"""``rankviz trec-eval`` against trec_eval 10 itself on the MS MARCO-sized run of
``bench_evaluate.py``: wall and CPU seconds of each, for the official measures and for
``-q -m all_trec``, and whether the two print the same bytes. First, the cost of one call on a
small file (the Cranfield sample's bm25 run, as a pipeline that loops over runs pays it), the
median of ``--calls`` calls, beside a bare ``python -c "import numpy, pyarrow.csv"`` measured the
same way (the start no Python drop-in can go below).

trec_eval is not on PyPI: give a build (``--trec-eval PATH``; `make` in trec_eval's source folder,
e.g. ``../shared/reference/trec_eval-10.0-f425365.tar.gz``). Without one, ``rankviz evaluate`` of
the same files with the official measures is the reference measured in the same run.

Other shapes (``--shape ties``, ``--shape queries``): a run full of ties, many short rankings.

    python bench/bench_trec_eval.py [--trec-eval PATH] [--repeat N] [--calls N] [--small-only]
    [--shape msmarco|ties|queries]...
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


#: Other shapes of run: ``ties``, scores of three decimals (most documents share their score with
#: others, the tie-aware sort does the work); ``queries``, many short rankings (the cost per query)
SHAPES = {
    "ties": "1,000 queries x 1,000 documents, scores of three decimals in [0, 1)",
    "queries": "100,000 queries x 20 documents, two judged a query",
}


def generated_shape(shape: str, seed: int = 20261206) -> tuple[Path, Path]:
    """The qrels and run of a shape, written once under bench/data/trec_eval/."""
    import numpy as np

    folder = HERE / "data" / "trec_eval" / shape
    qrels, run = folder / "qrels.txt", folder / "run.txt"
    if qrels.exists() and run.exists():
        return qrels, run
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    n_queries, depth, judged = (1000, 1000, 100) if shape == "ties" else (100_000, 20, 2)
    with run.open("w") as out, qrels.open("w") as judgments:
        for q in range(n_queries):
            docs = rng.choice(50 * depth, depth, replace=False)
            scores = (
                np.floor(rng.random(depth) * 1000) / 1000
                if shape == "ties"
                else np.sort(rng.normal(size=depth))[::-1]
            )
            out.writelines(
                f"{q} Q0 D{d} {r + 1} {s:.3f} shape\n"
                for r, (d, s) in enumerate(zip(docs, scores, strict=True))
            )
            grades = rng.integers(0, 3, judged)
            judgments.writelines(
                f"{q} 0 D{d} {g}\n" for d, g in zip(docs[:judged], grades, strict=True)
            )
    return qrels, run


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
    parser.add_argument(
        "--shape",
        choices=["msmarco", *SHAPES],
        action="append",
        help="the runs measured (repeatable; default msmarco)",
    )
    args = parser.parse_args()
    small_file(args.trec_eval, args.calls)
    if args.small_only:
        return
    for shape in args.shape or ["msmarco"]:
        qrels, run = generate("msmarco") if shape == "msmarco" else generated_shape(shape)
        print(f"== {shape}: {SHAPES.get(shape, 'the MS MARCO-sized run of bench_evaluate.py')}")
        against_trec_eval(qrels, run, args)


def against_trec_eval(qrels: Path, run: Path, args) -> None:
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
