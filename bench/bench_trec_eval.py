"""``rankviz trec-eval`` against trec_eval 10 itself on the MS MARCO-sized run of
``bench_evaluate.py``: wall and CPU seconds of each, for the official measures and for
``-q -m all_trec``, and whether the two print the same bytes.

trec_eval is not on PyPI: give a build (``--trec-eval PATH``; `make` in trec_eval's source folder,
e.g. ``../shared/reference/trec_eval-10.0-f425365.tar.gz``). Without one, ``rankviz evaluate`` of
the same files with the official measures is the reference measured in the same run.

    python bench/bench_trec_eval.py [--trec-eval PATH] [--repeat N]
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trec-eval", metavar="PATH", help="a trec_eval 10 build")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
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
