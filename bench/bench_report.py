"""``rankviz report`` on a meeting of 500 judgments over two MS MARCO-sized runs, beside ``rankviz
evaluate`` of the same runs and qrels (the reference, measured in the same run).

The collection is bench_app_rerun.py's (two generated 7M-line runs, built once under bench/data/;
generated data, for timing only); the record is made anew: 500 judgments, 5 documents of the first
run's top 10 on each of 100 queries, imported in one transaction, and a tag and a note on 20 of
them. Each command runs in its own process; prints its CPU seconds (user + system, the process and
its children) beside its wall time, the median of ``--repeat`` runs, and the report's cost as a
multiple of the evaluation's. Asserts nothing.

    python bench/bench_report.py [--repeat N]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from bench_app_rerun import msmarco_collection  # noqa: E402

from rankviz.io.meeting import MeetingStore  # noqa: E402
from rankviz.io.readers import read_qrels, read_run  # noqa: E402


def meeting(folder: Path, db: Path) -> None:
    """500 judgments (grade 0 or 1, the generated qrels' scale: 5 of the first run's top 10 on 100
    judged queries), 20 tags, 20 notes."""
    qids = list(dict.fromkeys(read_qrels(folder / "qrels.txt").to_frame()["qid"].astype(str)))
    rng = np.random.default_rng(5)
    chosen = set(rng.choice(qids, 100, replace=False).tolist())
    run = read_run(folder / "runs" / "first.run").to_frame()
    run = run[run["qid"].astype(str).isin(chosen)]
    top = run.sort_values(["qid", "score"], ascending=[True, False]).groupby("qid").head(10)
    picked = top.groupby("qid").head(5)
    rows = [
        (str(q), str(d), int(g))
        for (q, d), g in zip(
            zip(picked["qid"], picked["docid"]), rng.integers(0, 2, len(picked)), strict=True
        )
    ]
    store = MeetingStore(db, scale=(0, 1), collection="msmarco_collection")
    store.judge_many(rows, by="bench", via="command line")
    for qid in sorted(chosen)[:20]:
        store.tag(qid, "needs synonyms", by="bench", via="command line")
        store.set_note(qid, "a note of the meeting", by="bench", via="command line")


def timed(command: list[str]) -> tuple[float, float]:
    """CPU seconds (user + system, with children) and wall seconds of one process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def alternated(commands: dict[str, list[str]], repeat: int) -> dict[str, float]:
    """Each command run ``repeat`` times in turn (a busy moment hits all); prints each one's median
    CPU seconds beside its median wall time, and returns the CPU medians."""
    found: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for _ in range(repeat):
        for name, command in commands.items():
            found[name].append(timed(command))
    print(f"load average {os.getloadavg()[0]:.2f}; medians of {repeat}")
    cpu = {name: statistics.median(c for c, _ in runs) for name, runs in found.items()}
    for name, runs in found.items():
        wall = statistics.median(w for _, w in runs)
        print(f"{name:>9}: {cpu[name]:6.1f} CPU-s  {wall:6.1f} s wall")
    return cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    folder = msmarco_collection()
    with tempfile.TemporaryDirectory() as scratch:
        db = Path(scratch) / "meeting.sqlite"
        meeting(folder, db)
        rankviz = [sys.executable, "-m", "rankviz"]
        commands = {
            "evaluate": [*rankviz, "evaluate", str(folder)],
            "report": [
                *rankviz,
                "report",
                str(folder),
                "first",
                "second",
                "--judgments",
                str(db),
                "--format",
                "json",
            ],
        }
        cpu = alternated(commands, args.repeat)
        print(f"report / evaluate: {cpu['report'] / cpu['evaluate']:.2f}x (CPU)")


if __name__ == "__main__":
    main()
