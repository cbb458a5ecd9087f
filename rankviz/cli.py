"""Command line: ``python -m rankviz evaluate|compare|ties|metrics-report QRELS RUN [RUN ...] -m MEASURE ...``.

QRELS may also be a collection folder: its runs (unless RUNs are named), its default measures and
its relevance threshold are then used.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from rankviz.errors import RankvizError
from rankviz.evaluate import ALL, Block, Conventions, as_measures, as_runs, evaluate_blocks, tidy
from rankviz.groups import AGGREGATES, coverage, protocol_values, read_groups, read_weights
from rankviz.io.collection import DEFAULT_MEASURES, open_collection
from rankviz.io.readers import Qrels, Run, read_qrels, read_run
from rankviz.measures import Measure
from rankviz.options import ALTERNATIVES, CORRECTIONS, TESTS, ZERO_METHODS
from rankviz.ranking import TIE_POLICIES, rank

if TYPE_CHECKING:
    from rankviz.metric_choice import MetricReport
    from rankviz.ties import TieReport

# compare, significance, ties and metric_choice (pandas, scipy) are imported by the commands that
# use them, so that `evaluate` starts in the time of numpy and pyarrow alone.


def _inputs(parser: argparse.ArgumentParser) -> None:
    """Arguments every command shares: qrels or a collection, runs, measures, missing queries, rel."""
    parser.add_argument("qrels", help="TREC qrels (or CSV/TSV/Parquet), or a collection folder")
    parser.add_argument("runs", nargs="*", help="run files (TREC, .gz, CSV, TSV, Parquet); names of runs in a collection folder")
    parser.add_argument(
        "-m",
        "--measure",
        action="append",
        dest="measures",
        metavar="MEASURE",
        help="e.g. RR@10, AP, nDCG@10, ERR@20, Hits@10, P@10, RR(rel=2)@10 (repeatable)",
    )
    parser.add_argument(
        "--missing",
        choices=("zero", "skip"),
        default="zero",
        help="queries in the qrels but not in a run: score 0 (trec_eval -c, default) or leave out of the mean",
    )
    parser.add_argument(
        "--rel",
        type=int,
        default=None,
        help="relevance threshold for measures that do not set rel= (default 1, or the collection's)",
    )
    parser.add_argument("--format", choices=("table", "tsv", "json"), default="table")


def _test_options(parser: argparse.ArgumentParser) -> None:
    """The significance test of ``compare`` (and of the verdicts in ``ties``)."""
    parser.add_argument("--baseline", default=None, help="name of the baseline run (default: the first run)")
    parser.add_argument("--test", choices=TESTS, default="t", help="paired test (default t; tukey = randomised Tukey HSD)")
    parser.add_argument("--correction", choices=CORRECTIONS, default="holm", help="multiple-comparison correction (default holm)")
    parser.add_argument("--alpha", type=float, default=0.05, help="significance level of the verdict (default 0.05)")
    parser.add_argument(
        "--resamples", type=int, default=10_000, help="randomization / bootstrap / Tukey resamples (default 10000)"
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m rankviz", description="Compare ranking runs with trec_eval-exact measures.")
    commands = parser.add_subparsers(dest="command", required=True)
    ev = commands.add_parser("evaluate", help="per-query and mean values of measures for one or more runs")
    _inputs(ev)
    ev.add_argument("--per-query", action="store_true", help="also print each query's value")
    ev.add_argument(
        "--ties",
        choices=TIE_POLICIES,
        default="trec_eval",
        help="order of documents with equal scores (default: trec_eval; expected = exact mean over all orders)",
    )
    ev.add_argument("--trials", type=int, default=100, help="random orders averaged with --ties random (default 100)")
    ev.add_argument("--seed", type=int, default=None, help="seed of --ties random (default: fresh entropy)")
    ev.add_argument(
        "--protocol",
        action="store_true",
        help="print the collection's benchmark protocol: each group's primary measure and their macro mean",
    )
    ev.add_argument("--groups", default=None, help="query groups file: qid plus categorical columns (default: the collection's)")
    ev.add_argument("--group-by", default=None, metavar="COLUMN", help="report each group's mean too (adds a group column)")
    ev.add_argument(
        "--aggregate",
        default="query",
        metavar="query|macro|weights:FILE",
        help="the overall mean: over queries (default), over the groups of --group-by, or weighted by a qid/weight file",
    )
    co = commands.add_parser("compare", help="paired significance tests of runs against a baseline (or all pairs)")
    _inputs(co)
    _test_options(co)
    co.add_argument("--pairs", choices=("baseline", "all"), default="baseline", help="baseline against each run, or all pairs")
    co.add_argument("--alternative", choices=ALTERNATIVES, default="two-sided")
    co.add_argument("--seed", type=int, default=None, help="seed of the resampling tests (default: fresh entropy)")
    co.add_argument(
        "--zero-method",
        choices=ZERO_METHODS,
        default="wilcox",
        help="Wilcoxon: drop zero differences (wilcox, default), rank then drop them (pratt), or split them (zsplit)",
    )
    co.add_argument(
        "--detect",
        type=float,
        default=None,
        metavar="DELTA",
        help="add queries_needed: topic set size to detect DELTA (paired t, 80%% power)",
    )
    co.add_argument("--ties", choices=[p for p in TIE_POLICIES if p != "random"], default="trec_eval")
    mr = commands.add_parser("metrics-report", help="which measure fits the task: agreement, discriminative power, stability")
    _inputs(mr)
    mr.add_argument(
        "-k", "--cutoff", type=int, default=10, help="depth users inspect, for the guidance and judged@K (default 10)"
    )
    mr.add_argument(
        "--answers", choices=("one", "many"), default=None, help="one correct answer per query or many (default: from the qrels)"
    )
    mr.add_argument("--graded", choices=("yes", "no"), default=None, help="is relevance graded (default: from the qrels)")
    mr.add_argument("--stops", choices=("yes", "no"), default=None, help="do users stop at the first satisfying result")
    mr.add_argument(
        "--test", choices=("tukey", "bootstrap", "randomization", "t"), default="tukey", help="for discriminative power"
    )
    mr.add_argument("--alpha", type=float, default=0.05)
    mr.add_argument("--resamples", type=int, default=1000, help="resamples of the discriminative-power test (default 1000)")
    mr.add_argument("--trials", type=int, default=1000, help="random splits for the swap rate (default 1000)")
    mr.add_argument("--seed", type=int, default=None)
    ti = commands.add_parser("ties", help="how much each run's values depend on the order of equal scores")
    _inputs(ti)
    ti.add_argument("-k", "--cutoff", type=int, default=10, help="depth for the share of tied top-K documents (default 10)")
    ti.add_argument("--queries", type=int, default=5, help="queries listed per run whose value moves most (default 5)")
    ti.add_argument("--trials", type=int, default=0, help="also average this many random orders (default 0: none)")
    ti.add_argument("--seed", type=int, default=None, help="seed of the random orders and of resampling tests")
    _test_options(ti)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command == "evaluate":
            return _evaluate(args)
        if args.command == "ties":
            return _ties(args)
        if args.command == "compare":
            return _compare(args)
        if args.command == "metrics-report":
            return _metrics_report(args)
    except RankvizError as exc:
        print(f"rankviz: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    return 1


def _load(args: argparse.Namespace) -> tuple[Qrels, list[Run], list[Measure]]:
    """Qrels, runs and measures from the shared arguments (a collection folder supplies defaults)."""
    args.collection = None
    defaults: dict[str, int] = {}
    if Path(args.qrels).is_dir():
        collection = args.collection = open_collection(args.qrels)
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
    return qrels, as_runs(runs), as_measures(measure_names, defaults=defaults)


def _report_ignored(ignored_by_run: dict[str, list[str]]) -> None:
    for run_name, ignored in ignored_by_run.items():
        if ignored:
            shown = ", ".join(ignored[:5]) + (" ..." if len(ignored) > 5 else "")
            print(f"rankviz: run {run_name}: {len(ignored)} queries not in the qrels were ignored: {shown}", file=sys.stderr)


def _evaluate(args: argparse.Namespace) -> int:
    qrels, runs, measures = _load(args)
    groups, weights, aggregate = _grouping(args, qrels)
    if args.protocol:
        return _protocol(args, qrels, runs, groups)
    blocks, ignored_by_run = evaluate_blocks(
        qrels, runs, measures, ties=args.ties, missing=args.missing, trials=args.trials, rng=args.seed
    )
    _report_ignored(ignored_by_run)
    conventions = Conventions(ties=args.ties, missing=args.missing, trials=args.trials, seed=args.seed)
    if args.group_by is None and aggregate == "query":
        sys.stdout.write(render(blocks, args.format, conventions, per_query=args.per_query))
        return 0
    frame = tidy(
        blocks, per_query_rows=args.per_query, groups=groups, group_by=args.group_by, aggregate=aggregate, weights=weights
    )
    sys.stdout.write(render_frame(frame, args.format, conventions, aggregate=args.aggregate))
    return 0


def _protocol(args: argparse.Namespace, qrels: Qrels, runs: list[Run], groups) -> int:
    collection = args.collection
    if collection is None or collection.config.protocol is None:
        raise RankvizError("--protocol needs a collection folder whose collection.toml has a [protocol] table")
    tables = {run.name: rank(run, qrels, ties=args.ties) for run in runs}
    values = protocol_values(
        tables, groups, collection.config.protocol, parse_measure=collection.config.parse_measure, missing=args.missing
    )
    if args.format == "json":
        sys.stdout.write(json.dumps(values.to_dict(orient="index"), default=_json_default) + "\n")
    elif args.format == "tsv":
        sys.stdout.write(values.rename_axis("run").to_csv(sep="\t", float_format="%.17g"))
    else:
        sys.stdout.write(values.to_string(float_format=lambda v: f"{v:.4f}") + "\n")
    return 0


def _grouping(args: argparse.Namespace, qrels: Qrels):
    """Groups, weights and the aggregate name from --groups, --group-by and --aggregate; coverage goes to stderr."""
    collection = args.collection
    groups = read_groups(args.groups) if args.groups else (collection.groups if collection else None)
    aggregate, colon, weights_file = args.aggregate.partition(":")
    if aggregate not in AGGREGATES or (colon and aggregate != "weights"):
        raise RankvizError(f"--aggregate {args.aggregate}: use query, macro or weights:FILE")
    weights = None
    if aggregate == "weights":
        if weights_file:
            weights = read_weights(weights_file)
        elif collection is not None and collection.weights is not None:
            weights = collection.weights
        else:
            raise RankvizError("--aggregate weights needs a file: weights:FILE (or a collection with query_weights.tsv)")
        for line in coverage(weights.index, qrels.query_ids).messages(weights_file or "query_weights.tsv"):
            print(f"rankviz: {line}", file=sys.stderr)
    if args.group_by is not None:
        if groups is None:
            raise RankvizError("--group-by needs --groups FILE (or a collection folder with query groups)")
        groups.column(args.group_by)
        for line in coverage(groups.frame.index, qrels.query_ids).messages(groups.source):
            print(f"rankviz: {line}", file=sys.stderr)
    return groups, weights, aggregate


def render_frame(frame, fmt: str, conventions: Conventions, *, aggregate: str) -> str:
    """A tidy frame with a ``group`` column (or a non-default aggregate): tsv, json or a table."""
    if fmt == "tsv":
        return frame.to_csv(sep="\t", index=False, float_format="%.17g")
    if fmt == "json":
        return json.dumps(frame.to_dict(orient="records"), ensure_ascii=False, default=_json_default) + "\n"
    index = ["run", "group"] if "group" in frame else ["run"]
    means = frame[frame.qid == ALL].pivot_table(index=index, columns="measure", values="value", sort=False)
    text = means.to_string(float_format=lambda v: f"{v:.4f}") + "\n"
    lines = [*conventions.describe(), f"overall mean (group all): aggregate {aggregate}"]
    return text + "".join(f"# {line}\n" for line in lines)


def _check_test_options(args: argparse.Namespace, runs: list[Run]) -> None:
    if not 0 < args.alpha < 1:
        raise RankvizError(f"--alpha {args.alpha}: must be between 0 and 1")
    if args.resamples < 1:
        raise RankvizError(f"--resamples {args.resamples}: must be at least 1")
    names = [run.name for run in runs]
    if args.baseline is not None and args.baseline not in names:
        raise RankvizError(f"--baseline {args.baseline!r} is not among the runs ({', '.join(names)})")


def _compare(args: argparse.Namespace) -> int:
    import pandas as pd

    from rankviz.compare import per_query_matrix
    from rankviz.significance import compare_runs, queries_needed, verdicts

    qrels, runs, measures = _load(args)
    if len(runs) < 2:
        raise RankvizError("compare needs at least two runs")
    _check_test_options(args, runs)
    tables = {run.name: rank(run, qrels, ties=args.ties) for run in runs}
    _report_ignored({name: list(table.ignored_qids) for name, table in tables.items()})
    generator = np.random.default_rng(args.seed)
    frames = [
        compare_runs(
            per_query_matrix(tables, measure, missing=args.missing),
            measure=str(measure),
            baseline=args.baseline,
            test=args.test,
            correction=args.correction,
            pairs=args.pairs,
            alternative=args.alternative,
            n_resamples=args.resamples,
            rng=generator,
            zero_method=args.zero_method,
        )
        for measure in measures
    ]
    if args.detect is not None:
        if not 0 < args.detect:
            raise RankvizError(f"--detect {args.detect}: must be positive")
        for frame, measure in zip(frames, measures):
            matrix = per_query_matrix(tables, measure, missing=args.missing)
            frame["queries_needed"] = [
                queries_needed(matrix[[b, r]], b, args.detect, alpha=args.alpha).get(r) for b, r in zip(frame.baseline, frame.run)
            ]
    result = pd.concat(frames, ignore_index=True)
    if args.format == "json":
        sys.stdout.write(json.dumps(result.to_dict(orient="records"), default=_json_default) + "\n")
    elif args.format == "tsv":
        sys.stdout.write(result.to_csv(sep="\t", index=False, float_format="%.17g"))
    else:
        shown = result.assign(verdict=verdicts(result, alpha=args.alpha)).drop(columns=["test"])
        sys.stdout.write(shown.to_string(index=False, float_format=lambda v: f"{v:.4f}") + "\n")
        correction = "family-wise (Tukey HSD)" if args.test == "tukey" else args.correction
        sys.stdout.write(f"# test: {args.test} ({args.alternative}); correction: {correction}; alpha {args.alpha}\n")
        conventions = Conventions(ties=args.ties, missing=args.missing)
        sys.stdout.write("".join(f"# {line}\n" for line in conventions.describe()))
    return 0


def _metrics_report(args: argparse.Namespace) -> int:
    from rankviz.metric_choice import Task, infer_task, metric_report

    if args.measures is None:
        args.measures = list(DEFAULT_MEASURES)
    qrels, runs, measures = _load(args)
    if len(runs) < 2:
        raise RankvizError("metrics-report compares measures on two or more runs")
    if not 0 < args.alpha < 1:
        raise RankvizError(f"--alpha {args.alpha}: must be between 0 and 1")
    rel = next((m.value_of("rel") for m in measures if any(p.name == "rel" for p in m.family.params)), 1)
    tables = {
        policy: {run.name: rank(run, qrels, ties=policy) for run in runs} for policy in ("trec_eval", "pessimistic", "optimistic")
    }
    inferred = infer_task(tables["trec_eval"], rel=rel, top_k=args.cutoff)
    task = Task(
        single_answer=inferred.single_answer if args.answers is None else args.answers == "one",
        top_k=args.cutoff,
        graded=inferred.graded if args.graded is None else args.graded == "yes",
        stops_when_satisfied=inferred.stops_when_satisfied if args.stops is None else args.stops == "yes",
    )
    report = metric_report(
        tables,
        measures,
        rel=rel,
        task=task,
        top_k=args.cutoff,
        alpha=args.alpha,
        test=args.test,
        n_resamples=args.resamples,
        trials=args.trials,
        missing=args.missing,
        rng=args.seed,
    )
    sys.stdout.write(render_metric_report(report, args.format))
    return 0


def render_metric_report(report: MetricReport, fmt: str) -> str:
    """The metric-choice report as JSON, long TSV (section, measure, key, value) or readable text."""
    tables = {
        "means": report.means,
        "kendall": report.kendall,
        "tau_ap": report.tau_ap,
        "discriminative_power": report.power,
        "stability": report.stability,
    }
    if fmt == "json":
        payload = {
            "task": vars(report.task),
            "recommendations": [vars(r) for r in report.recommendations],
            **{name: frame.to_dict(orient="index") for name, frame in tables.items()},
            "asl": report.asl.to_dict(orient="records"),
            "warnings": report.warnings.messages(),
            "judged": report.warnings.judged.to_dict(),
        }
        return json.dumps(payload, ensure_ascii=False, default=_json_default) + "\n"
    if fmt == "tsv":
        lines = ["section\trow\tcolumn\tvalue"]
        for name, frame in tables.items():
            for row, values in frame.iterrows():
                lines += [f"{name}\t{row}\t{column}\t{value!r}" for column, value in values.items()]
        return "\n".join(lines) + "\n"
    task = report.task
    parts = [
        "Task: "
        + ("one correct answer" if task.single_answer else "many relevant items")
        + f"; users inspect the top {task.top_k}; relevance "
        + ("graded" if task.graded else "binary")
        + ("; users stop when satisfied" if task.stops_when_satisfied else ""),
        "Measures that fit\n" + "\n".join(f"- {r.measure}: {r.reason}. Hides: {r.hides}." for r in report.recommendations),
    ]
    for name, frame in tables.items():
        parts.append(f"{name.replace('_', ' ').capitalize()}\n" + frame.to_string(float_format=lambda v: f"{v:.3f}"))
    if report.warnings.messages():
        parts.append("Warnings from the collection\n" + "\n".join(f"- {m}" for m in report.warnings.messages()))
    return "\n\n".join(parts) + "\n"


def _ties(args: argparse.Namespace) -> int:
    from rankviz.ties import tie_report

    qrels, runs, measures = _load(args)
    _check_test_options(args, runs)
    report = tie_report(
        qrels,
        runs,
        measures,
        cutoff=args.cutoff,
        missing=args.missing,
        trials=args.trials,
        rng=args.seed,
        baseline=args.baseline,
        test=args.test,
        correction=args.correction,
        alpha=args.alpha,
        n_resamples=args.resamples,
    )
    _report_ignored(report.ignored_qids)
    sys.stdout.write(render_ties(report, args.format, limit=args.queries))
    return 0


def _records(blocks: list[Block], per_query: bool) -> list[tuple]:
    """Per-query rows of every block first (when asked), then one mean row per block (qid ``all``).

    Under random ties each record ends with its spread over trials.
    """
    rows = []
    for b in blocks:
        if per_query:
            spread = [()] * len(b.qids) if b.trials is None else [(float(s),) for s in b.std]
            rows += [(b.run, b.measure, q, float(v), *s) for q, v, s in zip(b.qids, b.values, spread)]
    return rows + [(b.run, b.measure, ALL, b.mean, *(() if b.trials is None else (b.mean_std,))) for b in blocks]


def render(blocks: list[Block], fmt: str, conventions: Conventions, *, per_query: bool = False) -> str:
    """tsv / json at full double precision, or an aligned text table (none of them needs pandas)."""
    records = _records(blocks, per_query)
    keys = ("run", "measure", "qid", "value") + (("std",) if conventions.ties == "random" else ())
    if fmt == "tsv":
        lines = ["\t".join(keys)] + ["\t".join(str(v) if isinstance(v, str) else repr(v) for v in r) for r in records]
        return "\n".join(lines) + "\n"
    if fmt == "json":
        return json.dumps([dict(zip(keys, r)) for r in records], ensure_ascii=False) + "\n"
    runs = list(dict.fromkeys(b.run for b in blocks))
    measures = list(dict.fromkeys(b.measure for b in blocks))
    means = {(b.run, b.measure): b.mean for b in blocks}
    text = _aligned(["run", *measures], [[run, *(_decimal(means.get((run, m))) for m in measures)] for run in runs], labels=1)
    if per_query:
        values = {(b.run, b.measure, q): v for b in blocks for q, v in zip(b.qids, b.values)}
        pairs = dict.fromkeys((b.run, q) for b in blocks for q in b.qids)
        rows = [[run, qid, *(_decimal(values.get((run, m, qid))) for m in measures)] for run, qid in pairs]
        text = _aligned(["run", "qid", *measures], rows, labels=2) + "\n" + text
    return text + "".join(f"# {line}\n" for line in conventions.describe())


def _decimal(value: float | None) -> str:
    return "" if value is None else f"{value:.4f}"


def _aligned(header: list[str], rows: list[list[str]], *, labels: int) -> str:
    """A plain text table: the first ``labels`` columns left-aligned, the numbers right-aligned."""
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        return "  ".join(c.ljust(w) if i < labels else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths))).rstrip()

    return "".join(line(row) + "\n" for row in [header, *rows])


def render_ties(report: TieReport, fmt: str, *, limit: int) -> str:
    """The tie report: tie statistics per run, then per measure the policy interval, pair flips and moving queries."""
    if fmt == "json":
        payload = {
            "statistics": report.statistics.to_dict(orient="index"),
            "measures": [
                {
                    "measure": measure,
                    "means": section.means.to_dict(orient="index"),
                    "pairs": section.flips.to_dict(orient="records"),
                    "verdicts": section.verdicts.to_dict(orient="index"),
                    "queries": {run: section.queries(run, limit).to_dict(orient="index") for run in section.means.index},
                }
                for measure, section in report.sections.items()
            ],
        }
        return json.dumps(payload, ensure_ascii=False, default=_json_default) + "\n"
    if fmt == "tsv":
        lines = ["run\tmeasure\tpolicy\tvalue"]
        for measure, section in report.sections.items():
            for run, row in section.means.iterrows():
                lines += [f"{run}\t{measure}\t{policy}\t{float(value)!r}" for policy, value in row.items()]
        return "\n".join(lines) + "\n"
    parts = ["Ties per run\n" + report.statistics.to_string(float_format=lambda v: f"{v:.3f}")]
    for measure, section in report.sections.items():
        parts.append(f"{measure}: mean under each tie policy\n" + section.means.to_string(float_format=lambda v: f"{v:.4f}"))
        if len(section.flips):
            parts.append(f"{measure}: pairs of runs\n" + section.flips.to_string(index=False, float_format=lambda v: f"{v:+.4f}"))
        if len(section.verdicts):
            parts.append(f"{measure}: verdict against the baseline under each tie policy\n" + section.verdicts.to_string())
        for run in section.means.index:
            moving = section.queries(run, limit)
            if len(moving):
                parts.append(f"{measure}: {run}: queries that move most\n" + moving.to_string(float_format=lambda v: f"{v:.4f}"))
    return "\n\n".join(parts) + "\n"


def _json_default(value: object) -> object:
    if isinstance(value, (np.integer, np.floating, np.bool_)):
        return value.item()
    raise TypeError(f"cannot write {type(value).__name__} as JSON")
