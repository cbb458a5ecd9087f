"""Cost per line, not per query: the same ten million lines as 1,000,000 queries x 10 documents
(a recommender's or a QA set's shape) and as 100,000 queries x 100, on every road that reads a run.

Generates (once, under bench/data/shapes/; generated data, for timing only) for each shape two runs
(``D%07d`` docids, scores of four decimals, listed by rank with falling scores) and qrels judging
one retrieved document a query, written in another order of queries than the runs (as real qrels
are). Each command runs in its own process; its CPU seconds (user + system, with every process it
waits for: a local Dask cluster's workers count) and wall seconds are those of the round of least
CPU of ``--repeat`` rounds, the shapes alternating (system time on this shared machine varies by
seconds between identical runs: the quietest round is the one compared). The roads:

- ``evaluate``: ``rankviz evaluate QRELS RUN`` with the checks (the default), in memory;
- ``evaluate --engine stream`` and ``--engine dask --workers 1``;
- ``evaluate --per-query`` (``--format tsv``, the table, ``--format json``): every query's values
  printed too, a line (an object) a query and measure in tsv (json), a row a query in the table
  (ten times the text out on short: per query by nature, beside the goal rather than in it);
- ``compare``: ``rankviz compare QRELS A B`` (the paired test);
- ``app pass``: what the app's Overview takes of the runs when it is cold
  (:func:`rankviz.study.passes.run_pass` of both runs with the checks' facts, kept as arrays and
  read back as the app's store does, the evaluation from the passes, the checks from the facts),
  in the memory settings `rankviz app` gives its server (``server_environment``, Arrow's freed
  memory kept ``SERVER_DECAY_MS``).

A third input separates what follows the lines from what follows the judgments: deep's runs with
qrels judging ten retrieved documents a query (one in each even tenth of either run's ranking),
a million judgments as on short; short / that compares the same lines and the same
judgments, the queries alone differing.

Beside them, the reference measured in the same round: pyarrow's bare read of the run (all six
columns, query and docid as strings), the floor of any reader here. Printed: CPU and wall seconds
of each road on each shape, and short / deep (the goal: at most 1.3). Every road's output is the
same on both engines (checked by the tests, not here). Asserts nothing; prints every number.

    python bench/bench_shapes.py [--repeat N] [--only ROAD] [--no-judged]
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

from bench_evaluate import PYARROW_SCRIPT as BARE_READ  # noqa: E402  (reads sys.argv[2])

from rankviz._memory import server_environment  # noqa: E402

DATA = HERE / "data" / "shapes"
SHAPES = {"short": (1_000_000, 10), "deep": (100_000, 100)}
MEASURES = ["RR@10", "nDCG@10", "AP"]
#: deep's runs judged as many times as short's (see the module's docstring)
JUDGED = "deep, 1M judged"
APP_PASS = """
import sys
from rankviz._arrow import SERVER_DECAY_MS, prefer_jemalloc
prefer_jemalloc(decay_ms=SERVER_DECAY_MS)  # as the app's pages set it up
from rankviz.study import Study, StudyRequest
from rankviz.study.check_questions import CHECK
from rankviz.study.passes import FROM_PASSES, RUN_PASS
from rankviz.study.run_pass import RunPass
study = Study.open(StudyRequest(qrels=sys.argv[1], runs=sys.argv[2:], measures=MEASURES))
passes = []
for name in study.run_names:
    taken = study.ask(RUN_PASS, name, k=10, facts_k=10)
    passes.append((name, RunPass.from_arrays(taken.to_arrays())))
print(study.ask(FROM_PASSES, passes).means())
print(len(study.ask(CHECK, 10, facts={name: found.facts for name, found in passes}).findings))
""".replace("MEASURES", repr(MEASURES))


def generate(shape: str, seed: int = 20261206) -> tuple[Path, list[Path]]:
    """The qrels and two runs of a shape, written in blocks of queries."""
    n_queries, depth = SHAPES[shape]
    folder = DATA / shape
    qrels, runs = folder / "qrels.txt", [folder / "a.run", folder / "b.run"]
    if qrels.exists() and all(r.exists() for r in runs):
        return qrels, runs
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    n_docs = 8_841_823
    qids = rng.choice(np.arange(10_000_000), n_queries, replace=False)
    options = pacsv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none")
    block = 200_000 // depth
    judged = np.empty(n_queries, dtype=np.int64)
    for which, path in enumerate(runs):
        with open(path, "wb") as out:
            for start in range(0, n_queries, block):
                these = qids[start : start + block]
                docs = np.sort(rng.integers(0, n_docs, size=(len(these), depth)), axis=1)
                docs += np.arange(depth)  # distinct in each ranking
                if which == 0:
                    judged[start : start + len(these)] = docs[
                        np.arange(len(these)), rng.integers(0, depth, len(these))
                    ]
                else:  # the second run retrieves the judged document at another place, or not
                    keep = rng.random(len(these)) < 0.8
                    docs[keep, rng.integers(0, depth, keep.sum())] = judged[
                        start : start + len(these)
                    ][keep]
                    docs = np.sort(docs, axis=1)  # duplicates are possible: drop them below
                scores = np.sort(rng.normal(10, 3, size=(len(these), depth)), axis=1)[:, ::-1]
                table = pa.table(
                    {
                        "qid": pa.array(np.repeat(these, depth).astype(str)),
                        "q0": pa.array(np.full(len(these) * depth, "Q0")),
                        "docid": pa.array(
                            np.char.add("D", np.char.zfill(docs.ravel().astype(str), 7))
                        ),
                        "rank": pa.array(np.tile(np.arange(1, depth + 1), len(these))),
                        "score": pa.array(np.round(scores, 4).ravel()),
                        "tag": pa.array(np.full(len(these) * depth, "shape")),
                    }
                )
                if which == 1:  # each document once a query
                    flat = docs.ravel()
                    first = np.r_[True, flat[1:] != flat[:-1]] | (np.arange(len(flat)) % depth == 0)
                    table = table.filter(pa.array(first))
                pacsv.write_csv(table, out, write_options=options)
    order = rng.permutation(n_queries)  # the qrels list the queries in another order
    lines = [f"{qids[i]} 0 D{judged[i]:07d} 1\n" for i in order]
    qrels.write_text("".join(lines))
    return qrels, runs


def judged_like_short(seed: int = 20261207) -> tuple[Path, list[Path]]:
    """Deep's runs and qrels judging ten of each query's retrieved documents: one in each even
    tenth of either run's ranking (the first tenth too: both runs' top 10 hold judged documents,
    as short's do; a document both runs place there is judged once). Written once, in another
    order of queries than the runs."""
    _, runs = generate("deep")
    qrels = DATA / "deep" / "qrels-1m.txt"
    if qrels.exists():
        return qrels, runs
    n_queries, depth = SHAPES["deep"]
    per = SHAPES["short"][0] // n_queries
    rng = np.random.default_rng(seed)
    picked = []
    for run in runs:
        table = pacsv.read_csv(
            run,
            read_options=pacsv.ReadOptions(
                column_names=["qid", "q0", "docid", "rank", "score", "tag"]
            ),
            parse_options=pacsv.ParseOptions(delimiter=" "),
            convert_options=pacsv.ConvertOptions(
                include_columns=["qid", "docid"], column_types={"qid": pa.string()}
            ),
        )
        qid = table.column("qid").combine_chunks()
        starts = np.flatnonzero(
            np.r_[True, pc.not_equal(qid[1:], qid[:-1]).to_numpy(zero_copy_only=False)]
        )
        lengths = np.diff(np.r_[starts, len(qid)])  # the second run dropped a few repeats
        tenths = np.arange(0, per, 2)
        low = (tenths[None, :] * lengths[:, None]) // per
        high = ((tenths[None, :] + 1) * lengths[:, None]) // per
        places = low + (rng.random(low.shape) * (high - low)).astype(np.int64)
        rows = starts[:, None] + places  # a query per row, its picks along it
        picked.append((table.take(pa.array(rows.ravel())), rows.shape[1]))
    # each query's picks together, the queries in another order, a pair judged once
    order = rng.permutation(n_queries)
    columns = {}
    for name in ("qid", "docid"):
        both = np.concatenate(
            [
                np.asarray(found.column(name).to_pylist(), dtype=object).reshape(-1, width)
                for found, width in picked
            ],
            axis=1,
        )
        columns[name] = both[order].ravel()
    seen, keep = set(), []
    for pair in zip(columns["qid"], columns["docid"], strict=True):
        keep.append(pair not in seen)
        seen.add(pair)
    kept = np.asarray(keep)
    lines = pa.table(
        {
            "qid": pa.array(columns["qid"][kept].tolist(), pa.string()),
            "iteration": pa.array(np.zeros(int(kept.sum()), dtype=np.int64)),
            "docid": pa.array(columns["docid"][kept].tolist(), pa.string()),
            "rel": pa.array(np.ones(int(kept.sum()), dtype=np.int64)),
        }
    )
    options = pacsv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none")
    pacsv.write_csv(lines, qrels, write_options=options)
    return qrels, runs


def timed(command: list[str], env: dict[str, str] | None = None) -> tuple[float, float, float]:
    """(wall, user CPU, system CPU) seconds of one command (in ``env``, default this process's)
    and every process it waits for."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, check=True, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime


def roads(qrels: Path, runs: list[Path]) -> dict[str, list[str]]:
    rankviz = [sys.executable, "-m", "rankviz"]
    measures = [flag for m in MEASURES for flag in ("-m", m)]
    evaluate = [*rankviz, "evaluate", str(qrels), str(runs[0]), *measures]
    return {
        "bare read (reference)": [sys.executable, "-c", BARE_READ, str(qrels), str(runs[0])],
        "evaluate": evaluate,
        "evaluate, stream": [*evaluate, "--engine", "stream"],
        "evaluate, dask 1 worker": [*evaluate, "--engine", "dask", "--workers", "1"],
        "evaluate --per-query tsv": [*evaluate, "--per-query", "--format", "tsv"],
        "evaluate --per-query": [*evaluate, "--per-query"],
        "evaluate --per-query json": [*evaluate, "--per-query", "--format", "json"],
        "compare": [*rankviz, "compare", str(qrels), *map(str, runs), *measures],
        "app pass": [sys.executable, "-c", APP_PASS, str(qrels), *map(str, runs)],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="rounds; the best of each is kept")
    parser.add_argument("--only", action="append", help="only these roads (repeatable)")
    parser.add_argument(
        "--no-judged", action="store_true", help=f"leave out the third input ({JUDGED})"
    )
    args = parser.parse_args()
    inputs = {shape: generate(shape) for shape in SHAPES}
    if not args.no_judged:
        inputs[JUDGED] = judged_like_short()
    best: dict[tuple[str, str], tuple[float, float, float]] = {}
    for _ in range(args.repeat):
        for shape, (qrels, runs) in inputs.items():
            for road, command in roads(qrels, runs).items():
                if args.only and road not in args.only and not road.endswith("(reference)"):
                    continue
                # the app's pass in the environment `rankviz app` starts its server in
                env = server_environment() if road == "app pass" else None
                wall, user, system = timed(command, env)
                seen = best.get((shape, road))
                if seen is None or user + system < seen[1] + seen[2]:
                    best[(shape, road)] = (wall, user, system)
    n, depth = SHAPES["short"]
    m, deep_depth = SHAPES["deep"]
    print(
        f"short: {n:,} queries x {depth}; deep: {m:,} x {deep_depth}"
        + ("" if args.no_judged else f"; {JUDGED}: deep's runs, {n:,} judgments")
        + f"; the round of least CPU of {args.repeat}: CPU seconds (user + system) and wall seconds"
    )
    columns = list(inputs)
    ratios = [other for other in columns if other != "short"]
    print(
        f"{'road':>26} "
        + " ".join(f"{shape:>22}" for shape in columns)
        + "  "
        + " ".join(f"short/{other} CPU" for other in ratios)
    )
    for road in dict.fromkeys(r for _, r in best):
        found = {shape: best[(shape, road)] for shape in columns}
        cpu = {shape: found[shape][1] + found[shape][2] for shape in columns}
        print(
            f"{road:>26} "
            + " ".join(f"{_cpu(found[shape]):>22}" for shape in columns)
            + "  "
            + " ".join(f"{cpu['short'] / cpu[other]:.2f}x" for other in ratios)
        )
    bare, evaluate = best[("deep", "bare read (reference)")], best.get(("deep", "evaluate"))
    if evaluate is not None:  # measured unless --only left it out
        print(
            f"evaluate / bare read (deep): "
            f"{(evaluate[1] + evaluate[2]) / (bare[1] + bare[2]):.2f}x CPU"
        )


def _cpu(found: tuple[float, float, float]) -> str:
    wall, user, system = found
    return f"{user + system:5.2f} ({user:4.2f}+{system:4.2f}) {wall:5.2f}s"


if __name__ == "__main__":
    main()
