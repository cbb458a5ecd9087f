"""``rankviz trec-eval -R prefs -m all_prefs`` on preference files made to be hostile (#67): wall
and CPU seconds and peak memory of each, against the goal of 20 s and 3 GB or a refusal in one
line, and trec_eval 10 on the same files where a build is given (``--trec-eval PATH``; it runs
each with a time limit, ``--limit``, as it can take minutes).

- two subgroups of 2,000 documents each, in total orders, joined by a third: the implied
  preferences of 4,000 documents (rankviz took 75 s: Warshall's closure, cubic);
- one subgroup of 3,000 distinct levels (74 s: a Python loop over pairs of levels);
- two subgroups of 5,000 documents each, joined: 10,000 documents, the most rankviz counts
  preferences among (50 million pairs);
- a chain of 1,000,000 subgroups of two documents (a traceback: 'Unable to allocate 931 GiB');
- a 2 GiB file of no line ends (a sparse file: past 4 GB of memory before).

    python bench/bench_preferences.py [--trec-eval PATH] [--limit SECONDS]
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import time
from pathlib import Path

DATA = Path(__file__).parent / "data" / "preferences"


def _chains(path: Path, sizes: tuple[int, ...]) -> None:
    with path.open("w") as out:
        for s, size in enumerate(sizes):
            for i in range(size):
                out.write(f"q1 g s{s} d{s}-{i} {size - i}\n")
        for s in range(len(sizes) - 1):  # each chain's last document above the next one's first
            out.write(f"q1 g j{s} d{s}-{sizes[s] - 1} 2\nq1 g j{s} d{s + 1}-0 1\n")


def generate() -> dict[str, Path]:
    """The files (written once) and a run retrieving 6,000 of their documents, shuffled."""
    DATA.mkdir(parents=True, exist_ok=True)
    files = {
        "two subgroups of 2,000": DATA / "two-2000.txt",
        "one subgroup of 3,000 levels": DATA / "one-3000.txt",
        "two subgroups of 5,000": DATA / "two-5000.txt",
        "a chain of 1,000,000 subgroups": DATA / "chain.txt",
        "2 GiB of no line ends": DATA / "no-line-ends.txt",
    }
    makers = {
        "two subgroups of 2,000": lambda p: _chains(p, (2000, 2000)),
        "one subgroup of 3,000 levels": lambda p: _chains(p, (3000,)),
        "two subgroups of 5,000": lambda p: _chains(p, (5000, 5000)),
    }
    for name, maker in makers.items():
        if not files[name].exists():
            maker(files[name])
    chain = files["a chain of 1,000,000 subgroups"]
    if not chain.exists():
        with chain.open("w") as out:
            for i in range(1_000_000):
                out.write(f"q1 g s{i} d{i} 1\nq1 g s{i} d{i + 1} 0\n")
    with open(files["2 GiB of no line ends"], "wb") as out:
        out.truncate(2 << 30)
    run = DATA / "run.txt"
    if not run.exists():
        docs = [f"d{s}-{i}" for s in range(2) for i in range(5000)]
        random.Random(1).shuffle(docs)
        run.write_text(
            "".join(f"q1 Q0 {d} {i + 1} {10000 - i} bench\n" for i, d in enumerate(docs[:6000]))
        )
    files["run"] = run
    return files


def measured(command: list[str], limit: float | None = None) -> tuple[float, float, float, str]:
    """(wall s, CPU s, peak MB, the first line of its error or '') of one process of its own (its
    own resource use, from wait4)."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    said = ""
    while True:
        pid, status, usage = os.wait4(process.pid, os.WNOHANG)
        if pid:
            break
        if limit is not None and time.perf_counter() - start > limit:
            process.kill()
            _, status, usage = os.wait4(process.pid, 0)
            said = f"still running after {limit:g} s: stopped"
            break
        time.sleep(0.05)
    wall = time.perf_counter() - start
    if not said and process.stderr is not None:
        said = process.stderr.read().decode(errors="replace").strip().split("\n")[0]
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, said


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trec-eval", metavar="PATH", help="a trec_eval 10 build")
    parser.add_argument("--limit", type=float, default=120.0, help="trec_eval's time limit, s")
    args = parser.parse_args()
    files = generate()
    run = str(files.pop("run"))
    print(f"{'file':<34} {'program':<10} {'wall s':>7} {'CPU s':>7} {'peak MB':>8}  refused")
    for name, path in files.items():
        ours = [sys.executable, "-m", "rankviz", "trec-eval", "-q", "-R", "prefs"]
        rows = {"rankviz": ours + ["-m", "all_prefs", str(path), run]}
        if args.trec_eval and "GiB" not in name and "1,000,000" not in name:
            rows["trec_eval"] = [args.trec_eval, "-q", "-R", "prefs", "-m", "all_prefs"]
            rows["trec_eval"] += [str(path), run]
        for program, command in rows.items():
            limit = args.limit if program == "trec_eval" else None
            wall, cpu, peak, said = measured(command, limit)
            print(f"{name:<34} {program:<10} {wall:7.2f} {cpu:7.2f} {peak:8.0f}  {said[:70]}")


if __name__ == "__main__":
    main()
