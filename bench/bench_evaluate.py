"""Wall time, CPU and peak memory of `rankviz evaluate` against pytrec_eval, ranx and pyarrow.

Generates (once, under bench/data/) an MS MARCO dev-sized run (6,980 queries x 1,000 documents,
about 1.1 relevant documents per query), the same run and qrels with string docids (``D0001234``
and MS MARCO v2-style ``msmarco_passage_07_120334``), and a TREC-sized one (250 queries x 1,000
documents, graded qrels of about 500 judgments a query), then runs every tool end to end in its own
process on the same files and prints the ratios measured in this run. Nothing here is a pass/fail
assertion.

    python bench/bench_evaluate.py [--repeat N] [--only msmarco|msmarco-D7|msmarco-v2|trec]
    [--no-ranx]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).parent
DATA = HERE / "data"
MEASURES = ["RR@10", "RR", "Hits@10", "AP", "nDCG@10", "nDCG", "ERR@20"]

PYTREC_SCRIPT = """
import sys, pytrec_eval
with open(sys.argv[1]) as f: qrels = pytrec_eval.parse_qrel(f)
with open(sys.argv[2]) as f: run = pytrec_eval.parse_run(f)
measures = {"recip_rank", "success_10", "map", "ndcg_cut_10", "ndcg"}
ev = pytrec_eval.RelevanceEvaluator(qrels, measures)
res = ev.evaluate(run)
print(len(res))
"""
# ranx has no ERR and no RR cutoff in trec_eval's sense; its closest set of the same measures
RANX_SCRIPT = """
import sys
from ranx import Qrels, Run, evaluate
qrels = Qrels.from_file(sys.argv[1], kind="trec")
run = Run.from_file(sys.argv[2], kind="trec")
measures = ["mrr@10", "mrr", "hit_rate@10", "map", "ndcg@10", "ndcg"]
print(evaluate(qrels, run, measures, make_comparable=True))
"""
PYARROW_SCRIPT = """
import sys, pyarrow as pa, pyarrow.csv as csv
names = ["qid", "q0", "docid", "rank", "score", "tag"]
types = {"qid": pa.string(), "docid": pa.string()}
t = csv.read_csv(sys.argv[2], read_options=csv.ReadOptions(column_names=names),
                 parse_options=csv.ParseOptions(delimiter=" "),
                 convert_options=csv.ConvertOptions(column_types=types))
print(t.num_rows)
"""


#: Docid styles of real collections: integers (MS MARCO v1), a prefixed number (``D0001234``, as in
#: MS MARCO documents) and long MS MARCO v2-style ids (``msmarco_passage_07_120334``).
DOCID_STYLES = {
    "int": str,
    "D7": lambda d: f"D{d:07d}",
    "v2": lambda d: f"msmarco_passage_{d // 130_000:02d}_{(d % 130_000) * 4099 + 17}",
}


def generate(kind: str, seed: int = 20261129, docids: str = "int") -> tuple[Path, Path]:
    """Write a synthetic run and qrels (generated data, for timing only) and return their paths;
    ``docids`` rewrites the integer docids of the same files in another style (same rankings, same
    judgments)."""
    if docids != "int":
        return _restyled(kind, docids, generate(kind, seed))
    DATA.mkdir(exist_ok=True)
    run_path, qrels_path = DATA / f"{kind}.run", DATA / f"{kind}.qrels"
    if run_path.exists() and qrels_path.exists():
        return qrels_path, run_path
    rng = np.random.default_rng(seed)
    n_queries, depth = (6980, 1000) if kind == "msmarco" else (250, 1000)
    n_docs = 8_841_823 if kind == "msmarco" else 500_000
    qids = rng.choice(np.arange(1_000_000), n_queries, replace=False).astype(str)
    docs = rng.integers(0, n_docs, size=(n_queries, depth))
    docs.sort(axis=1)
    # strictly increasing within a query, so no docid repeats
    docs = docs + np.arange(depth)
    scores = np.sort(rng.normal(10, 3, size=(n_queries, depth)), axis=1)[:, ::-1]
    frame = pd.DataFrame(
        {
            "qid": np.repeat(qids, depth),
            "q0": "Q0",
            "docid": docs.ravel().astype(str),
            "rank": np.tile(np.arange(1, depth + 1), n_queries),
            "score": np.round(scores.ravel(), 6),
            "tag": "bench",
        }
    )
    frame.to_csv(run_path, sep=" ", header=False, index=False)
    if kind == "msmarco":
        # about 1.1 relevant per query
        per_query = rng.choice([1, 1, 1, 1, 1, 1, 1, 1, 1, 2], n_queries)
        rows = []
        for q, n, ranked in zip(qids, per_query, docs):
            picks = (
                rng.choice(ranked[:200], min(n, 1), replace=False).tolist()
                + rng.integers(0, n_docs, n - 1).tolist()
            )
            rows += [(q, 0, int(d), 1) for d in dict.fromkeys(picks)]
    else:
        rows = []
        for q, ranked in zip(qids, docs):
            judged = np.unique(
                np.r_[ranked[rng.random(depth) < 0.35], rng.integers(0, n_docs, 150)]
            )[:500]
            grades = rng.choice([0, 0, 0, 1, 1, 2, 3], len(judged))
            rows += [(q, 0, int(d), int(g)) for d, g in zip(judged, grades)]
    pd.DataFrame(rows).to_csv(qrels_path, sep=" ", header=False, index=False)
    return qrels_path, run_path


def _restyled(kind: str, style: str, paths: tuple[Path, Path]) -> tuple[Path, Path]:
    """The run and qrels with every docid rewritten by DOCID_STYLES[style] (written once)."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pacsv

    qrels_in, run_in = paths
    qrels_out, run_out = DATA / f"{kind}-{style}.qrels", DATA / f"{kind}-{style}.run"
    if run_out.exists() and qrels_out.exists():
        return qrels_out, run_out
    rewrite = np.vectorize(DOCID_STYLES[style], otypes=[object])
    for source, target, names, position in (
        (run_in, run_out, RUN_COLUMNS, 2),
        (qrels_in, qrels_out, QRELS_COLUMNS, 2),
    ):
        table = pacsv.read_csv(
            source,
            read_options=pacsv.ReadOptions(column_names=names),
            parse_options=pacsv.ParseOptions(delimiter=" "),
            convert_options=pacsv.ConvertOptions(column_types={n: pa.string() for n in names}),
        )
        numbers = pc.cast(table.column(position), pa.int64()).to_numpy()
        table = table.set_column(position, names[position], pa.array(rewrite(numbers), pa.string()))
        pacsv.write_csv(
            table,
            target,
            write_options=pacsv.WriteOptions(
                include_header=False, delimiter=" ", quoting_style="none"
            ),
        )
    return qrels_out, run_out


RUN_COLUMNS = ["qid", "q0", "docid", "rank", "score", "tag"]
QRELS_COLUMNS = ["qid", "iter", "docid", "rel"]


# A child's peak RSS counts what it inherited at fork, so every tool is started from this small
# process (not from the benchmark, which holds numpy and pandas) and timed there.
RUNNER = """
import resource, subprocess, sys, time
start = time.perf_counter()
done = subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
elapsed = time.perf_counter() - start
if done.returncode not in map(int, sys.argv[1].split(",")):
    sys.exit(done.stderr.decode()[-500:])
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(elapsed, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime)
"""


def measure(command: list[str], *, exits: tuple[int, ...] = (0,)) -> tuple[float, float, float]:
    """(wall seconds, peak RSS in MB, CPU seconds: user and system) of one command in its own
    process; ``exits``: the statuses that are no failure (`rankviz check` exits 1 or 2 when it
    finds something)."""
    done = subprocess.run(
        [sys.executable, "-c", RUNNER, ",".join(map(str, exits)), *command],
        capture_output=True,
        text=True,
    )
    if done.returncode:
        raise RuntimeError(f"{command[:4]} failed: {done.stderr}")
    elapsed, peak, cpu = done.stdout.split()
    return float(elapsed), float(peak), float(cpu)


def tools(qrels: Path, run: Path) -> dict[str, list[str]]:
    rankviz = [sys.executable, "-m", "rankviz", "evaluate", str(qrels), str(run), "--format", "tsv"]
    for m in MEASURES:
        rankviz += ["-m", m]
    commands = {
        "rankviz": rankviz,
        "pyarrow read only": [sys.executable, "-c", PYARROW_SCRIPT, str(qrels), str(run)],
        "pytrec_eval": [sys.executable, "-c", PYTREC_SCRIPT, str(qrels), str(run)],
    }
    try:
        import ranx  # noqa: F401

        commands["ranx"] = [sys.executable, "-c", RANX_SCRIPT, str(qrels), str(run)]
    except ImportError:
        print("ranx not installed: pip install -r bench/requirements.txt", file=sys.stderr)
    return commands


def best(action, repeat: int) -> float:
    """Best-of-``repeat`` wall time of ``action()`` in seconds (every bench script times this
    way)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return min(times)


def read_step(run: Path, repeat: int) -> tuple[float, float]:
    """Best-of-``repeat`` seconds of rankviz's reader and of pyarrow's CSV reader alone, in this
    process."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    sys.path.insert(0, str(HERE.parent))
    import rankviz

    def arrow() -> None:
        pacsv.read_csv(
            run,
            read_options=pacsv.ReadOptions(
                column_names=["qid", "q0", "docid", "rank", "score", "tag"]
            ),
            parse_options=pacsv.ParseOptions(delimiter=" "),
            convert_options=pacsv.ConvertOptions(
                column_types={"qid": pa.string(), "docid": pa.string()}
            ),
        )

    return best(lambda: rankviz.read_run(run), repeat), best(arrow, repeat)


WORKLOADS = {  # name: (kind, docid style)
    "msmarco": ("msmarco", "int"),
    "msmarco-D7": ("msmarco", "D7"),
    "msmarco-v2": ("msmarco", "v2"),
    "trec": ("trec", "int"),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="rounds over all tools; the best time and the largest peak are kept",
    )
    parser.add_argument(
        "--only",
        choices=tuple(WORKLOADS),
        action="append",
        help="run only these workloads (repeatable)",
    )
    parser.add_argument(
        "--no-ranx", action="store_true", help="leave ranx out (it takes 15-20 s a round here)"
    )
    args = parser.parse_args()
    summary = []
    for name, (kind, style) in WORKLOADS.items():
        if args.only and name not in args.only:
            continue
        qrels, run = generate(kind, docids=style)
        lines = sum(1 for _ in open(run, "rb"))
        judgments = sum(1 for _ in open(qrels, "rb"))
        print(
            f"\n== {name}: {lines:,} run lines, {judgments:,} judgments "
            f"({run.stat().st_size / 1e6:.0f} MB), docids {style}"
        )
        commands = tools(qrels, run)
        if args.no_ranx:
            commands.pop("ranx", None)
        samples: dict[str, list[tuple[float, float, float]]] = {tool: [] for tool in commands}
        order = list(commands)
        # rounds over all tools, so that a slow spell of the machine hits every tool;
        for round_ in range(args.repeat):
            # each tool leads some rounds:
            for tool in order[round_ % len(order) :] + order[: round_ % len(order)]:
                # none always follows the one that used most memory
                samples[tool].append(measure(commands[tool]))
        results = {
            tool: (min(t for t, _, _ in runs), max(m for _, m, _ in runs), min(c for *_, c in runs))
            for tool, runs in samples.items()
        }
        for tool, (seconds, peak, cpu) in results.items():
            print(f"{tool:>18}: {seconds:7.2f} s  {cpu:7.2f} CPU-s  peak {peak:7.0f} MB")
        read_ours, read_arrow = read_step(run, args.repeat)
        print(
            f"{'in-process read':>18}: rankviz.read_run {read_ours:.2f} s (validated), "
            f"pyarrow.csv.read_csv {read_arrow:.2f} s"
        )
        ours_time, ours_mem, ours_cpu = results["rankviz"]
        ratios = {tool: ours_time / t for tool, (t, _, _) in results.items() if tool != "rankviz"}
        cpu_ratios = {
            tool: ours_cpu / c for tool, (_, _, c) in results.items() if tool != "rankviz"
        }
        for tool, ratio in ratios.items():
            print(f"rankviz / {tool}: time {ratio:.2f}, CPU {cpu_ratios[tool]:.2f}")
        print(f"rankviz read step / pyarrow read step (in process) = {read_ours / read_arrow:.2f}")
        print(f"rankviz peak memory = {ours_mem:.0f} MB")
        summary.append(
            (name, cpu_ratios.get("pytrec_eval"), cpu_ratios.get("pyarrow read only"), ours_mem)
        )
    print(
        "\n== summary, CPU (targets on the MS MARCO-sized runs: / pytrec_eval <= 0.25, / pyarrow "
        "read only <= 1.5, peak < 1000 MB)"
    )
    for name, pytrec, arrow, peak in summary:
        print(
            f"{name:>12}: / pytrec_eval {pytrec:.2f}   / pyarrow read only {arrow:.2f}   peak "
            f"{peak:.0f} MB"
        )


if __name__ == "__main__":
    main()
