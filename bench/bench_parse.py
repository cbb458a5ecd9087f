"""Where a run's first read goes (#39's cold path): one MS MARCO-sized run of
bench/data/scale/runs20 (made by bench_app_scale.py) read by pyarrow's CSV reader with every
column and with the three rankviz uses, on two threads and on one, and by rankviz's ``read_run``
(which checks what it reads), each first in a fresh process (the app's first read: fresh memory,
page faults) and then again in the same process (warm). CPU seconds beside wall; the reference is
the bare pyarrow read.

    python bench/bench_parse.py [--repeat N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent
RUN = HERE / "data" / "scale" / "runs20" / "runs" / "run00.run"

READ = """
import resource, sys, time
def cpu():
    used = resource.getrusage(resource.RUSAGE_SELF)
    return used.ru_utime + used.ru_stime
import pyarrow as pa, pyarrow.csv as pacsv
from rankviz._arrow import prefer_jemalloc
from rankviz.io.readers import read_run
prefer_jemalloc()  # as the app does
path, how = sys.argv[1], sys.argv[2]
def read():
    if how == "rankviz":
        return read_run(path, name="r")
    columns, threads = how.split("/")
    return pacsv.read_csv(
        path,
        read_options=pacsv.ReadOptions(column_names=list("abcdef"), use_threads=threads == "2"),
        parse_options=pacsv.ParseOptions(delimiter=" "),
        convert_options=pacsv.ConvertOptions(
            include_columns=None if columns == "all" else list("ace")
        ),
    )
for phase in ("fresh", "warm"):
    before, start = cpu(), time.perf_counter()
    table = read()
    print(phase, cpu() - before, time.perf_counter() - start)
    del table
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if not RUN.is_file():
        sys.exit(f"{RUN} is missing: run bench/bench_app_scale.py once to make it")
    print(f"{RUN} ({RUN.stat().st_size / 2**20:,.0f} MB), load average {os.getloadavg()[0]:.2f}")
    labels = {
        "all/2": "pyarrow, every column, 2 threads",
        "three/2": "pyarrow, 3 columns, 2 threads",
        "three/1": "pyarrow, 3 columns, 1 thread",
        "rankviz": "rankviz read_run",
    }
    for how, label in labels.items():
        found: dict[str, list[tuple[float, float]]] = {"fresh": [], "warm": []}
        for _ in range(args.repeat):
            done = subprocess.run(
                [sys.executable, "-c", READ, str(RUN), how],
                check=True,
                capture_output=True,
                text=True,
            )
            for line in done.stdout.splitlines():
                phase, cpu, wall = line.split()
                found[phase].append((float(cpu), float(wall)))
        cells = [
            f"{phase} {statistics.median(c for c, _ in runs):.2f} CPU-s / "
            f"{statistics.median(w for _, w in runs):.2f} s"
            for phase, runs in found.items()
        ]
        print(f"{label:34s} " + "; ".join(cells))


if __name__ == "__main__":
    main()
