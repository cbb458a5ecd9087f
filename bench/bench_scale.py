"""Runs larger than memory and Dask: wall time and peak memory of ``rankviz evaluate`` on each
engine.

Generates (once, under bench/data/; generated data, for timing only) two runs with string docids
(``D0001234``) and qrels judging about 1.1 documents a query:

- ``large``: 30,000 queries x 1,000 documents, 30M lines (about 1.2 GB), the issue's run larger
  than the in-memory engine should hold: the stream engine against the in-memory one;
- ``many``: 100,000 queries x 100 documents (10M lines): the Dask engine with 1 and 2 local
  workers against the in-memory and stream engines.

Every engine's ``--per-query --format tsv`` output is compared byte for byte with the in-memory
engine's (by its SHA-256). Each command runs in its own process, timed and measured (peak RSS of
the process and its children, so a local Dask cluster's workers count) from a small runner. Asserts
nothing; prints every number.

    python bench/bench_scale.py [--repeat N] [--only large|many]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

HERE = Path(__file__).parent
DATA = HERE / "data"
MEASURES = ["RR@10", "RR", "Hits@10", "AP", "nDCG@10", "nDCG", "ERR@20"]
WORKLOADS = {"large": (30_000, 1000), "many": (100_000, 100)}

# peak RSS of the command's process tree: the children's maximum (ru_maxrss of the largest
# descendant) is what getrusage reports, so a Dask run is measured by sampling the tree
RUNNER = """
import hashlib, subprocess, sys, threading, time
import psutil
start = time.perf_counter()
child = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
peak = [0]
def sample():
    parent = psutil.Process(child.pid)
    while child.poll() is None:
        try:
            rss = sum(p.memory_info().rss for p in [parent, *parent.children(recursive=True)])
        except psutil.Error:
            continue
        peak[0] = max(peak[0], rss)
        time.sleep(0.05)
threading.Thread(target=sample, daemon=True).start()
digest = hashlib.sha256()
for chunk in iter(lambda: child.stdout.read(1 << 20), b""):
    digest.update(chunk)
err = child.stderr.read()
child.wait()
elapsed = time.perf_counter() - start
if child.returncode:
    sys.exit(err.decode()[-800:])
print(elapsed, peak[0] / 2**20, digest.hexdigest())
"""


def generate(
    name: str, seed: int = 20261201, shape: tuple[int, int] | None = None
) -> tuple[Path, Path]:
    """The run and qrels of a workload (or of ``shape``: queries, depth), written in blocks of
    queries (never the whole run in memory)."""
    n_queries, depth = shape or WORKLOADS[name]
    DATA.mkdir(exist_ok=True)
    run_path, qrels_path = DATA / f"scale-{name}.run", DATA / f"scale-{name}.qrels"
    if run_path.exists() and qrels_path.exists():
        return qrels_path, run_path
    rng = np.random.default_rng(seed)
    n_docs = 8_841_823
    qids = rng.choice(np.arange(10_000_000), n_queries, replace=False)
    options = pacsv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none")
    judged = []
    with open(run_path, "wb") as out:
        for start in range(0, n_queries, 2000):
            block = qids[start : start + 2000]
            docs = np.sort(rng.integers(0, n_docs, size=(len(block), depth)), axis=1) + np.arange(
                depth
            )
            scores = np.round(
                np.sort(rng.normal(10, 3, size=(len(block), depth)), axis=1)[:, ::-1], 4
            )
            table = pa.table(
                {
                    "qid": pa.array(np.repeat(block, depth).astype(str)),
                    "q0": pa.array(np.full(len(block) * depth, "Q0")),
                    "docid": pa.array(np.char.add("D", np.char.zfill(docs.ravel().astype(str), 7))),
                    "rank": pa.array(np.tile(np.arange(1, depth + 1), len(block))),
                    "score": pa.array(scores.ravel()),
                    "tag": pa.array(np.full(len(block) * depth, "scale")),
                }
            )
            pacsv.write_csv(table, out, write_options=options)
            for q, ranked in zip(block, docs):
                picks = [ranked[rng.integers(0, min(depth, 200))]]
                if rng.random() < 0.1:
                    picks.append(rng.integers(0, n_docs))
                judged += [f"{q} 0 D{int(d):07d} 1\n" for d in dict.fromkeys(int(p) for p in picks)]
    qrels_path.write_text("".join(judged))
    return qrels_path, run_path


def measure(command: list[str]) -> tuple[float, float, str]:
    """(wall seconds, peak RSS of the process tree in MB, SHA-256 of stdout) of one command."""
    done = subprocess.run([sys.executable, "-c", RUNNER, *command], capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f"{command[3:8]} failed: {done.stderr}")
    elapsed, peak, digest = done.stdout.split()
    return float(elapsed), float(peak), digest


def engines(name: str) -> dict[str, list[str]]:
    if name == "large":
        return {"memory": ["--engine", "memory"], "stream": ["--engine", "stream"]}
    return {
        "memory": ["--engine", "memory"],
        "stream": ["--engine", "stream"],
        "dask, 1 worker": ["--engine", "dask", "--workers", "1"],
        "dask, 2 workers": ["--engine", "dask", "--workers", "2"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--repeat",
        type=int,
        default=2,
        help="rounds over all engines; best time and largest peak are kept",
    )
    parser.add_argument(
        "--only",
        choices=tuple(WORKLOADS),
        action="append",
        help="run only these workloads (repeatable)",
    )
    args = parser.parse_args()
    for name in WORKLOADS:
        if args.only and name not in args.only:
            continue
        qrels, run = generate(name)
        n_queries, depth = WORKLOADS[name]
        print(
            f"\n== {name}: {n_queries:,} queries x {depth:,} documents = {n_queries * depth:,} "
            "lines "
            f"({run.stat().st_size / 1e9:.2f} GB), docids D%07d"
        )
        base = [
            sys.executable,
            "-m",
            "rankviz",
            "evaluate",
            str(qrels),
            str(run),
            "--per-query",
            "--format",
            "tsv",
        ]
        for m in MEASURES:
            base += ["-m", m]
        samples: dict[str, list[tuple[float, float, str]]] = {
            engine: [] for engine in engines(name)
        }
        for _ in range(args.repeat):
            for engine, flags in engines(name).items():
                samples[engine].append(measure(base + flags))
        reference = samples["memory"][0][2]
        for engine, runs in samples.items():
            seconds, peak = min(t for t, _, _ in runs), max(m for _, m, _ in runs)
            same = all(digest == reference for _, _, digest in runs)
            print(
                f"{engine:>16}: {seconds:7.2f} s  peak {peak:7.0f} MB  output "
                f"{'identical' if same else 'DIFFERENT'}"
            )
        if name == "many":
            one = min(t for t, _, _ in samples["dask, 1 worker"])
            two = min(t for t, _, _ in samples["dask, 2 workers"])
            print(f"dask 2 workers / 1 worker time = {two / one:.2f}")
        else:
            stream_peak = max(m for _, m, _ in samples["stream"])
            memory_peak = max(m for _, m, _ in samples["memory"])
            print(
                f"stream peak = {stream_peak:.0f} MB (goal < 1536 MB); in-memory peak = "
                f"{memory_peak:.0f} MB"
            )


if __name__ == "__main__":
    main()
