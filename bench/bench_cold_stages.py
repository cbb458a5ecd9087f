"""Where one run's cold path goes in the app (#39): each stage the server takes for an MS
MARCO-sized run it has never seen, in the order it takes them, each in a fresh process under the
app's memory settings (jemalloc for Arrow, glibc's freed blocks kept, numpy's arrays in small
pages): the checked parse of the file (the store's key is the file's stamp: no bytes read for it),
writing the parsed run to the store (flushed to disk, its pages dropped from the page cache: the
pages an earlier write dropped, as for every run after a server's first), and the run's pass (its
table, every measure, the chance level, the checks' facts). The references, measured in the same
process: the server's first write (pages the kernel hands out for the first time, touched at a
cost on a VM), a write left in the page cache once no dropped pages are left (the cost every write
paid before), and pyarrow's CSV reader on the same file, every column, no checks. CPU seconds
beside wall; medians of ``--repeat`` processes.

    python bench/bench_cold_stages.py [--repeat N]   (after bench/bench_app_scale.py made the runs)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent
FOLDER = HERE / "data" / "scale" / "runs20"

STAGES = """
import json, resource, sys, tempfile, time
from pathlib import Path
from rankviz._memory import reuse_freed_memory
reuse_freed_memory()
from rankviz._arrow import prefer_jemalloc
prefer_jemalloc()
import dataclasses
import pyarrow as pa, pyarrow.csv as pacsv
import rankviz as rv
from rankviz.study import served
from rankviz.analyses.checks import TOP_K
from rankviz.io.store import RunStore, atomic_write

folder, name = Path(sys.argv[1]), sys.argv[2]
path = folder / "runs" / f"{name}.run"
study = rv.Study.open(rv.StudyRequest(str(folder), [str(path)]))
study.qrels  # read before the clock starts: the server reads its qrels once for every run
found = {}


def timed(stage, work):
    used = resource.getrusage(resource.RUSAGE_SELF)
    before, start = used.ru_utime + used.ru_stime, time.perf_counter()
    result = work()
    used = resource.getrusage(resource.RUSAGE_SELF)
    found[stage] = (used.ru_utime + used.ru_stime - before, time.perf_counter() - start)
    return result


run = timed("checked parse", lambda: served.served_run(str(path), name))
store = RunStore(tempfile.mkdtemp(), budget=2**40)
(store.folder / "runs").mkdir(parents=True)
runs = store.folder / "runs"
timed("reference: the server's first store write", lambda: store._write(runs / "1.arrow", run))
timed("store write", lambda: store._write(runs / "2.arrow", run))  # the pages the first dropped
table = pa.ipc.open_file(pa.OSFile(str(runs / "1.arrow"))).read_all()


def write_kept(sink):  # the same table, left in the page cache
    with pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table, max_chunksize=max(len(table), 1))


atomic_write(runs / "3.arrow", write_kept)  # takes the pages the writes before dropped
timed("reference: the write kept in the page cache", lambda: atomic_write(runs / "4.arrow",
      write_kept))
del table
study = dataclasses.replace(study, runs_given={name: run}, sources=())
timed("pass", lambda: study.ask(rv.RUN_PASS, name, k=10, facts_k=TOP_K))
del run, study
names = ["qid", "q0", "docid", "rank", "score", "tag"]
timed("reference: pyarrow, every column", lambda: pacsv.read_csv(
    str(path),
    read_options=pacsv.ReadOptions(column_names=names),
    parse_options=pacsv.ParseOptions(delimiter=" "),
))
print(json.dumps(found))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    runs = sorted((FOLDER / "runs").glob("run*.run"))
    if not runs:
        sys.exit(f"{FOLDER} has no runs: run bench/bench_app_scale.py once to make them")
    print(f"one MS MARCO-sized run of {FOLDER}, load average {os.getloadavg()[0]:.2f}")
    rounds = []
    for i in range(args.repeat):
        run = runs[i % len(runs)].stem  # a run this round has not read yet
        done = subprocess.run(
            [sys.executable, "-c", STAGES, str(FOLDER), run],
            capture_output=True,
            text=True,
            check=True,
        )
        rounds.append(json.loads(done.stdout.splitlines()[-1]))
    total_cpu = total_wall = 0.0
    for stage in rounds[0]:
        cpu = statistics.median(r[stage][0] for r in rounds)
        wall = statistics.median(r[stage][1] for r in rounds)
        if not stage.startswith("reference"):
            total_cpu, total_wall = total_cpu + cpu, total_wall + wall
        print(f"{stage:46s} {cpu:5.2f} CPU-s {wall:5.2f} s")
    print(f"{'the cold path, all stages':46s} {total_cpu:5.2f} CPU-s {total_wall:5.2f} s")


if __name__ == "__main__":
    main()
