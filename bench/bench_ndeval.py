"""``rankviz ndeval`` against ndeval itself on generated diversity qrels (50 topics x 500 judged
documents x 6 subtopics, a tenth relevant) and a run of 1,000 documents a topic: wall and CPU
seconds of each, and whether they print the same bytes.

ndeval is not on PyPI as a program: give a build (``--ndeval PATH``; ``gcc -O2 -o ndeval
ndeval.c -lm`` on ``src/ndeval.c`` of pyndeval's sdist). Two references are measured in the same
run, each in a process of its own: a bare read of the two files by rankviz's readers, and Python
starting with numpy and pyarrow imported (the floor of any Python command here).

    python bench/bench_ndeval.py [--ndeval PATH] [--repeat N] [--topics N]
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

from bench_trec_eval import timed  # noqa: E402

DATA = HERE / "data" / "ndeval"
READ_ONLY = (
    "import sys; from rankviz.io.readers import read_run; "
    "from rankviz.io.subtopics import read_subtopic_qrels; "
    "read_subtopic_qrels(sys.argv[1]); read_run(sys.argv[2])"
)


def generate(seed: int = 1, topics: int = 50) -> tuple[Path, Path]:
    """The qrels and run of ``topics`` topics (written once)."""
    folder = DATA if topics == 50 else DATA / f"topics{topics}"
    qrels, run = folder / "qrels.txt", folder / "run.txt"
    if qrels.exists() and run.exists():
        return qrels, run
    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    with qrels.open("w") as q, run.open("w") as r:
        for topic in range(1, topics + 1):
            docs = [f"d{topic}-{i}" for i in range(2000)]
            for doc in docs[:500]:
                for subtopic in range(1, 7):
                    q.write(f"{topic} {subtopic} {doc} {int(rng.random() < 0.1)}\n")
            for i, doc in enumerate(rng.sample(docs, 1000)):
                r.write(f"{topic} Q0 {doc} {i + 1} {1000 - i} bench\n")
    return qrels, run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ndeval", metavar="PATH", help="an ndeval build")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--topics", type=int, default=50, help="topics (many: per-topic cost)")
    args = parser.parse_args()
    qrels, run = generate(topics=args.topics)
    ours = min(
        timed([sys.executable, "-m", "rankviz", "ndeval", str(qrels), str(run)])
        for _ in range(args.repeat)
    )
    print(f"rankviz ndeval {ours[0]:6.2f} s wall {ours[1]:6.2f} CPU-s")
    if args.ndeval:
        theirs = min(timed([args.ndeval, str(qrels), str(run)]) for _ in range(args.repeat))
        same = "same bytes" if theirs[2] == ours[2] else "OUTPUTS DIFFER"
        print(f"ndeval         {theirs[0]:6.2f} s wall {theirs[1]:6.2f} CPU-s  ({same})")
    wall, cpu, _ = min(
        timed([sys.executable, "-c", READ_ONLY, str(qrels), str(run)]) for _ in range(args.repeat)
    )
    print(f"reference: reading the two files alone {wall:6.2f} s {cpu:6.2f} CPU-s")
    bare = [sys.executable, "-c", "import numpy, pyarrow.csv, pyarrow.compute"]
    wall, cpu, _ = min(timed(bare) for _ in range(args.repeat))
    print(f"reference: Python with numpy and pyarrow  {wall:6.2f} s {cpu:6.2f} CPU-s")


if __name__ == "__main__":
    main()
