"""What ``--correct-with`` adds to an evaluation (#69): ``rankviz evaluate DIR --qrels umbrela``
beside the same command with ``--correct-with file`` (the LLM's means corrected by the queries
people judged, PPI++), in CPU seconds of the whole process (user + system) and wall seconds, the
median of ``--repeat`` runs each; the goal is at most 1.2x the plain evaluation's CPU.

Two collections: the TREC RAG 2024 sample (301 topics, 4 runs of 20) and a generated one of
``--queries`` queries (default 20,000) x 100 documents, 4 runs, an LLM judging 50 documents of
every query and people 1,000 of the queries (written once under bench/data/correction/).

    python bench/bench_correction.py [--queries N] [--repeat N]
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(__file__).parent / "data" / "correction"
MEASURES = ("-m", "nDCG@10", "-m", "P@10", "-m", "AP")


def generate(queries: int) -> Path:
    """A collection of ``queries`` queries: qrels.txt (people's, 1,000 queries), an LLM's
    qrels.umbrela.txt (every query) and four runs of 100 documents."""
    folder = DATA / f"q{queries}"
    if (folder / "runs" / "r3.run").exists():
        return folder
    (folder / "runs").mkdir(parents=True, exist_ok=True)
    rng = random.Random(0)
    grades = {q: [rng.choice((0, 0, 1, 2, 3)) for _ in range(50)] for q in range(queries)}
    with (folder / "qrels.umbrela.txt").open("w") as llm, (folder / "qrels.txt").open("w") as human:
        for q, row in grades.items():
            for d, grade in enumerate(row):
                llm.write(f"q{q} 0 d{d} {grade}\n")
                if q % (queries // 1000) == 0:  # people judge 1,000 queries, stricter
                    human.write(f"q{q} 0 d{d} {max(0, grade - rng.choice((0, 0, 1)))}\n")
    (folder / "collection.toml").write_text(
        '[qrels.umbrela]\nfile = "qrels.umbrela.txt"\nkind = "llm:generated"\n'
    )
    for r in range(4):
        with (folder / "runs" / f"r{r}.run").open("w") as out:
            for q in range(queries):
                docs = rng.sample(range(200), 100)
                out.writelines(f"q{q} Q0 d{d} {i + 1} {100 - i} r{r}\n" for i, d in enumerate(docs))
    return folder


def timed(argv: list[str]) -> tuple[float, float]:
    """CPU seconds (user + system, the child alone) and wall seconds of one command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"# {time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}")
    rankviz = [sys.executable, "-m", "rankviz", "evaluate"]
    for name, folder in (
        ("TREC RAG 2024 sample", ROOT / "sample_data" / "rag24-judges"),
        (f"generated, {args.queries:,} queries", generate(args.queries)),
    ):
        plain = [*rankviz, str(folder), "--qrels", "umbrela", *MEASURES]
        corrected = [*plain, "--correct-with", "file"]
        figures = {}
        for label, argv in (("plain", plain), ("corrected", corrected)):
            runs = [timed(argv) for _ in range(args.repeat)]
            figures[label] = tuple(statistics.median(x) for x in zip(*runs, strict=True))
        ratio = figures["corrected"][0] / figures["plain"][0]
        print(
            f"{name}: evaluate --qrels umbrela {figures['plain'][0]:.2f} CPU-s "
            f"({figures['plain'][1]:.2f} s wall); with --correct-with file "
            f"{figures['corrected'][0]:.2f} CPU-s ({figures['corrected'][1]:.2f} s wall): "
            f"{ratio:.2f}x (goal <= 1.2x) {'ok' if ratio <= 1.2 else 'over the goal'}"
        )


if __name__ == "__main__":
    main()
