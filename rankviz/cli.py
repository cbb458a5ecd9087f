"""Command line: ``python -m rankviz evaluate QRELS RUN [RUN ...] -m MEASURE ...``.

QRELS may also be a collection folder: its runs (unless RUNs are named), its default measures and
its relevance threshold are then used.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from rankviz.errors import RankvizError
from rankviz.evaluate import ALL, Block, Conventions, as_measures, as_runs, evaluate_blocks
from rankviz.io.collection import open_collection
from rankviz.io.readers import read_qrels, read_run
from rankviz.ranking import TIE_POLICIES


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m rankviz", description="Compare ranking runs with trec_eval-exact measures.")
    commands = parser.add_subparsers(dest="command", required=True)
    ev = commands.add_parser("evaluate", help="per-query and mean values of measures for one or more runs")
    ev.add_argument("qrels", help="TREC qrels (or CSV/TSV/Parquet), or a collection folder")
    ev.add_argument("runs", nargs="*", help="run files (TREC, .gz, CSV, TSV, Parquet); names of runs in a collection folder")
    ev.add_argument(
        "-m",
        "--measure",
        action="append",
        dest="measures",
        metavar="MEASURE",
        help="e.g. RR@10, AP, nDCG@10, ERR@20, Hits@10, P@10, RR(rel=2)@10 (repeatable)",
    )
    ev.add_argument("--per-query", action="store_true", help="also print each query's value")
    ev.add_argument(
        "--ties", choices=TIE_POLICIES, default="trec_eval", help="order of documents with equal scores (default: trec_eval)"
    )
    ev.add_argument(
        "--missing",
        choices=("zero", "skip"),
        default="zero",
        help="queries in the qrels but not in a run: score 0 (trec_eval -c, default) or leave out of the mean",
    )
    ev.add_argument(
        "--rel",
        type=int,
        default=None,
        help="relevance threshold for measures that do not set rel= (default 1, or the collection's)",
    )
    ev.add_argument("--format", choices=("table", "tsv", "json"), default="table")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command == "evaluate":
            return _evaluate(args)
    except RankvizError as exc:
        print(f"rankviz: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    return 1


def _evaluate(args: argparse.Namespace) -> int:
    defaults: dict[str, int] = {}
    if Path(args.qrels).is_dir():
        collection = open_collection(args.qrels)
        qrels = collection.read_qrels()
        runs = [collection.read_run(name) for name in (args.runs or collection.run_paths)]
        defaults = dict(collection.config.measure_defaults)
        measure_names = args.measures or list(collection.config.measures)
    else:
        if not args.runs:
            raise RankvizError("give at least one run file after the qrels")
        qrels = read_qrels(args.qrels)
        runs = [read_run(path) for path in args.runs]
        measure_names = args.measures or ["RR@10", "AP", "nDCG@10"]
    if args.rel is not None:
        defaults["rel"] = args.rel
    measures = as_measures(measure_names, defaults=defaults)
    blocks, ignored_by_run = evaluate_blocks(qrels, as_runs(runs), measures, ties=args.ties, missing=args.missing)
    for run_name, ignored in ignored_by_run.items():
        if ignored:
            shown = ", ".join(ignored[:5]) + (" ..." if len(ignored) > 5 else "")
            print(f"rankviz: run {run_name}: {len(ignored)} queries not in the qrels were ignored: {shown}", file=sys.stderr)
    sys.stdout.write(render(blocks, args.format, Conventions(ties=args.ties, missing=args.missing), per_query=args.per_query))
    return 0


def _records(blocks: list[Block], per_query: bool) -> list[tuple[str, str, str, float]]:
    """Per-query rows of every block first (when asked), then one mean row per block (qid ``all``)."""
    rows = [(b.run, b.measure, q, float(v)) for b in blocks for q, v in zip(b.qids, b.values)] if per_query else []
    return rows + [(b.run, b.measure, ALL, b.mean) for b in blocks]


def render(blocks: list[Block], fmt: str, conventions: Conventions, *, per_query: bool = False) -> str:
    """tsv / json at full double precision (no pandas needed), or an aligned text table."""
    records = _records(blocks, per_query)
    if fmt == "tsv":
        lines = ["run\tmeasure\tqid\tvalue"] + [f"{run}\t{measure}\t{qid}\t{value!r}" for run, measure, qid, value in records]
        return "\n".join(lines) + "\n"
    if fmt == "json":
        keys = ("run", "measure", "qid", "value")
        return json.dumps([dict(zip(keys, r)) for r in records], ensure_ascii=False) + "\n"
    import pandas as pd

    table = pd.DataFrame(records, columns=["run", "measure", "qid", "value"])
    means = table[table.qid == ALL].pivot(index="run", columns="measure", values="value")
    means = means.loc[list(dict.fromkeys(table.run)), list(dict.fromkeys(table.measure))]
    text = means.to_string(float_format=lambda v: f"{v:.4f}") + "\n"
    query_rows = table[table.qid != ALL]
    if len(query_rows):
        wide = query_rows.pivot_table(index=["run", "qid"], columns="measure", values="value", sort=False)
        text = wide.to_string(float_format=lambda v: f"{v:.4f}") + "\n\n" + text
    return text + "".join(f"# {line}\n" for line in conventions.describe())
