"""The app at scale: 20 MS MARCO-sized runs in one app, and a restarted server opening them from the
store.

Builds (once, under bench/data/scale/runs20/; generated data, for timing only) a collection folder
with the string-docid qrels of bench_evaluate.py and 20 MS MARCO dev-sized runs (6,980 queries x
1,000 documents, ``D%07d`` docids, each with its own score noise, so no two files are alike, listed
by rank with falling scores as retrieval systems write them), beside a copy of the Cranfield sample.
Then, each in a fresh process:

1. one run, parsed and written to an empty store, then opened from the store by a new process (the
   time of ``RunStore.get`` alone, the "restarted server" case, pages in the operating system's
   cache);
2. the app's Overview page with all 20 runs selected (AppTest, the same frame as ``streamlit run``),
   first with an empty store (every run parsed and evaluated), then in a new process with the store
   filled (as after a restart): wall time and the process's resident and peak memory. Each process
   first shows Cranfield's Overview, timed apart: a server's first page pays its imports and
   first-use costs (about 3 s here) whatever the collection.

The server's settings are the defaults (``RANKVIZ_CACHE_MB`` 8192), its environment the one
``rankviz app`` gives it (``--plain``: this process's, the allocator's defaults), the store a fresh
temporary folder. Each Overview's wall and CPU seconds are printed, and as the reference measured in
the same run, ``rankviz evaluate`` of the same runs (whole process, CPU seconds beside wall).
Asserts nothing; prints every number.

    python bench/bench_app_scale.py [--runs N] [--plain] [--decay-ms MS|arrow] [--pass-workers N]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

HERE = Path(__file__).parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
from bench_evaluate import RUN_COLUMNS, generate  # noqa: E402
from bench_report import timed  # noqa: E402

from rankviz._memory import server_environment  # noqa: E402

OPEN_ONE = """
import sys, time
from rankviz._arrow import prefer_jemalloc
from rankviz.io.readers import read_run
from rankviz.io.store import RunStore, written
prefer_jemalloc()  # as the app does
store = RunStore(sys.argv[1], budget=2**40)
start = time.perf_counter()
run = store.get(sys.argv[2], "r", lambda: read_run(sys.argv[2], name="r"))
written()
print(time.perf_counter() - start, len(run))
"""

OVERVIEW = """
import json, resource, sys, time
import psutil
from streamlit.testing.v1 import AppTest
script = ("import sys\\nsys.argv = ['app.py', '--data', %r, '--data', %r]\\n"
          "from rankviz.app.frame.pages import navigate\\nnavigate(default='overview')\\n")

FOLDER, RUNS = sys.argv[1], int(sys.argv[2])  # read first: the app's script sets sys.argv
DECAY, WORKERS = sys.argv[3], sys.argv[4]  # the server's settings under test ("" for rankviz's)


def cpu():
    used = resource.getrusage(resource.RUSAGE_SELF)
    return used.ru_utime + used.ru_stime


from rankviz.app.frame import arriving
from rankviz.app.caches import compute
from rankviz.app.frame import pages

if DECAY:  # navigate() sets it at the first page ("arrow": Arrow's own decay, never set)
    pages.SERVER_DECAY_MS = None if DECAY == "arrow" else int(DECAY)
if WORKERS:
    compute.PASS_WORKERS = int(WORKERS)

arrivals = []  # when each table of the runs so far was drawn
real_show = arriving.show
arriving.show = lambda slot, means: (arrivals.append(time.perf_counter()), real_show(slot, means))


def overview(collection, rows):  # one script for both: AppTest serves a second script's pages empty
    global spent, start
    served = (FOLDER + "/runs20", FOLDER + "/cranfield")
    at = AppTest.from_string(script % served, default_timeout=3600)
    at.query_params["collection"] = collection
    arrivals.clear()
    start, before = time.perf_counter(), cpu()
    at.run()
    elapsed, spent = time.perf_counter() - start, cpu() - before
    assert not at.exception and not at.error, (at.exception, [e.value for e in at.error])
    assert rows is None or len(at.dataframe[0].value) == rows, "the Overview misses runs"
    return elapsed

warm = overview("cranfield", None)  # the server's first page: its imports and first-use costs
from rankviz.io.store import written
written()
before = psutil.Process().memory_info().rss
elapsed = overview("runs20", RUNS)
after = psutil.Process().memory_info().rss
drawn = cpu()
written()  # the store's writer, after the page: off its critical path, still the server's work
stored = cpu() - drawn
first = arrivals[0] - start if arrivals else None
print(json.dumps({"seconds": elapsed, "cpu": spent, "first": first, "warm": warm, "stored": stored,
                  "before": before, "after": after,
                  "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))
"""


def collection(n_runs: int) -> Path:
    """bench/data/scale/: the collection ``runs20`` of ``n_runs`` runs and a copy of the Cranfield
    sample (a server serves only the collections its folder holds, and each process shows
    Cranfield's Overview first)."""
    qrels, base = generate("msmarco", docids="D7")
    served = HERE / "data" / "scale"
    folder = served / "runs20"
    if not folder.exists() and (HERE / "data" / "runs20").exists():  # where an older bench made it
        served.mkdir(parents=True, exist_ok=True)
        (HERE / "data" / "runs20").rename(folder)
    if not (served / "cranfield").exists():
        shutil.copytree(ROOT / "sample_data" / "cranfield", served / "cranfield")
    runs = folder / "runs"
    runs.mkdir(parents=True, exist_ok=True)
    if (folder / "qrels.txt").is_symlink():  # a server refuses a link leading out of the folder
        (folder / "qrels.txt").unlink()
    if not (folder / "qrels.txt").exists():
        # the same bytes, no copy, and no link leading out of the folder
        os.link(qrels.resolve(), folder / "qrels.txt")
    (folder / "collection.toml").write_text(
        'name = "20 MS MARCO-sized runs"\nmeasures = ["RR@10", "nDCG@10", "AP"]\n'
    )
    missing = [i for i in range(n_runs) if not (runs / f"run{i:02d}.run").exists()]
    if missing:
        table = pacsv.read_csv(
            base,
            read_options=pacsv.ReadOptions(column_names=RUN_COLUMNS),
            parse_options=pacsv.ParseOptions(delimiter=" "),
            convert_options=pacsv.ConvertOptions(
                column_types={n: pa.string() for n in ("qid", "q0", "docid", "tag")}
            ),
        )
        score = table.column("score").to_numpy()
        depth = 1000  # every query of the base run lists 1,000 documents, by rank
        for i in missing:
            noisy = np.round(score + np.random.default_rng(i).normal(0, 0.5, len(score)), 4)
            # listed by rank with falling scores, as a retrieval system writes its run
            order = (
                np.argsort(-noisy.reshape(-1, depth), axis=1, kind="stable")
                + np.arange(0, len(noisy), depth)[:, None]
            )
            order = order.ravel()
            ranked = table.take(pa.array(order)).set_column(4, "score", pa.array(noisy[order]))
            ranked = ranked.set_column(
                3, "rank", pa.array(np.tile(np.arange(1, depth + 1), len(noisy) // depth))
            )
            plain = pacsv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none")
            pacsv.write_csv(ranked, runs / f"run{i:02d}.run", write_options=plain)
    return served


def child(code: str, *args: str, env: dict) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, env=env, cwd=ROOT
    )
    if done.returncode:
        raise RuntimeError(done.stderr[-2000:])
    return done.stdout.strip().splitlines()[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="runs in the collection (default 20)")
    parser.add_argument(
        "--plain", action="store_true", help="the allocator's defaults, not rankviz app's"
    )
    parser.add_argument(
        "--decay-ms",
        default="",
        help="how long the server keeps the pages Arrow freed (ms; -1 never hands them back; "
        "'arrow': Arrow's own decay); default rankviz's SERVER_DECAY_MS",
    )
    parser.add_argument(
        "--pass-workers", default="", help="runs passed at once; default rankviz's PASS_WORKERS"
    )
    args = parser.parse_args()
    folder = collection(args.runs)
    # the server's environment as ``rankviz app`` sets it (rankviz/_memory.py), unless --plain
    env = dict(os.environ) if args.plain else server_environment()
    one = sorted((folder / "runs20" / "runs").glob("*.run"))[0]
    with tempfile.TemporaryDirectory() as store:
        parse_seconds, lines = child(OPEN_ONE, store, str(one), env=env).split()
        open_seconds, _ = child(OPEN_ONE, store, str(one), env=env).split()
        print(
            f"one run ({int(lines):,} lines): parsed and stored {float(parse_seconds):.2f} s; "
            f"opened from the store by a new process {float(open_seconds) * 1000:.0f} ms"
        )
    with tempfile.TemporaryDirectory() as store:
        env["RANKVIZ_STORE"] = store
        cold = None
        for label in ("empty store (every run parsed)", "store filled (a restarted server)"):
            given = (str(folder), str(args.runs), args.decay_ms, args.pass_workers)
            found = json.loads(child(OVERVIEW, *given, env=env))
            cold = found["cpu"] if cold is None else cold
            per_run = (found["after"] - found["before"]) / args.runs / 2**20
            arrived = (
                f", the first run's means on screen after {found['first']:.1f} s"
                if found["first"] is not None
                else ""
            )
            print(
                f"Overview of {args.runs} runs, {label}: {found['seconds']:.1f} s, "
                f"{found['cpu']:.1f} CPU-s (+{found['stored']:.1f} writing the store after the "
                f"page){arrived} (after the server's first page, "
                f"Cranfield's, {found['warm']:.1f} s), resident {found['after'] / 2**30:.1f} GB "
                f"({per_run:.0f} MB per run), peak {found['peak'] / 2**30:.1f} GB"
            )
    # the checks on, as the app's Overview has them
    command = [sys.executable, "-m", "rankviz", "evaluate", str(folder / "runs20")]
    cpu, wall = timed(command)
    print(f"reference, rankviz evaluate of the same runs: {wall:.1f} s, {cpu:.1f} CPU-s")
    if cold is not None:
        print(f"the cold Overview / evaluate: {cold / cpu:.2f}x CPU (goal <= 1.1x)")


if __name__ == "__main__":
    main()
