"""The commands: read the inputs the flags name, run the engine, hand the result to a renderer.

pandas and scipy are imported by the commands that need them, so that ``rankviz evaluate`` starts in
the time of numpy and pyarrow alone.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import sys
from dataclasses import dataclass
from pathlib import Path

from rankviz.cli import render
from rankviz.engines import RunSource, evaluate_sources, file_size
from rankviz.errors import OptionError, RankvizError
from rankviz.evaluate import as_measures, collection_measures
from rankviz.io.collection import Collection, open_collection
from rankviz.io.groups import QueryGroups, coverage, read_groups, read_weights
from rankviz.io.meeting import MeetingStore, judgment_lines, merged_qrels, qrels_lines
from rankviz.io.model import Qrels, Run
from rankviz.io.readers import read_qrels, read_run
from rankviz.measures import Measure
from rankviz.settings import AGGREGATE, DEFAULT_MEASURES, EngineSettings, EvalSettings, TestSettings
from rankviz.tie_policy import BOUNDS


@dataclass
class Inputs:
    """What the shared arguments name: qrels, run files, measures, settings, and a collection's extras.

    The runs are read when first asked for (:attr:`runs`): an engine that streams them never does."""

    qrels: Qrels
    sources: list[RunSource]
    measures: list[Measure]
    settings: EvalSettings
    collection: Collection | None
    groups: QueryGroups | None
    weights: dict[str, float] | None

    @functools.cached_property
    def runs(self) -> list[Run]:
        return [read_run(source.path, name=source.name) for source in self.sources]


def warn(message: str) -> None:
    print(f"rankviz: {message}", file=sys.stderr)


def load(args: argparse.Namespace) -> Inputs:
    """Qrels, runs, measures and settings from the shared arguments (a collection folder supplies defaults)."""
    collection = None
    if Path(args.qrels).is_dir():
        collection = open_collection(args.qrels)
        qrels = collection.read_qrels()
        sources = [RunSource.of(collection.run_path(name), name) for name in (args.runs or collection.run_paths)]
        base = EvalSettings(rel=collection.config.rel, gmax=collection.config.gmax)
    else:
        if not args.runs:
            raise OptionError("give at least one run file after the qrels")
        qrels = read_qrels(args.qrels)
        sources = RunSource.of_paths(args.runs)
        base = EvalSettings()
    if getattr(args, "judgments", None) is not None:
        qrels = _with_judgments(qrels, args.judgments, collection)
    given = {n: getattr(args, n) for n in EvalSettings.OPTIONS if n != "aggregate" and getattr(args, n, None) is not None}
    aggregate, weights = _aggregate(args, collection)
    groups = read_groups(args.groups) if getattr(args, "groups", None) else (collection.groups if collection else None)
    settings = base.replace(**given, **({"aggregate": aggregate} if aggregate else {}))
    if settings.group_by is not None:
        if groups is None:
            raise OptionError("--group-by needs --groups FILE (or a collection folder with query groups)")
        groups.column(settings.group_by)
        for line in coverage(groups.frame.index, qrels.query_ids).messages(groups.source):
            warn(line)
    if weights is not None:
        for line in coverage(list(weights), qrels.query_ids).messages("the weights file"):
            warn(line)
    if args.measures:
        measures = as_measures(args.measures, defaults=settings.measure_defaults)
    elif collection is not None:
        measures = collection_measures(collection, settings)
    else:
        measures = as_measures(DEFAULT_MEASURES, defaults=settings.measure_defaults)
    return Inputs(qrels, sources, measures, settings, collection, groups, weights)


def _with_judgments(qrels: Qrels, location: str, collection: Collection | None) -> Qrels:
    """``--judgments [DB]``: the qrels with the meeting store's judgments in force (latest wins)."""
    if not location and collection is None:
        raise OptionError("--judgments without DB needs a collection folder in place of QRELS")
    store = MeetingStore(location or collection.path, create=False)
    grades, left_out = store.latest_checked()
    for problem in left_out:
        warn(f"{store.path}: {problem}")
    warn(f"qrels: {qrels.source} with the {len(grades):,} meeting judgments of {store.path} in force (latest wins)")
    return merged_qrels(qrels, grades)


def _aggregate(args: argparse.Namespace, collection: Collection | None) -> tuple[str | None, dict | None]:
    """``--aggregate query|macro|weights[:FILE]``: the aggregate and, for weights, the weights."""
    text = getattr(args, "aggregate", None)
    if text is None:
        return None, None
    how, colon, path = text.partition(":")
    AGGREGATE.check(how)
    if colon and how != "weights":
        raise OptionError(f"--aggregate {text}: only weights takes a file (weights:FILE)")
    if how != "weights":
        return how, None
    if path:
        return how, read_weights(path).to_dict()
    if collection is not None and collection.weights is not None:
        return how, collection.weights.to_dict()
    raise OptionError("--aggregate weights needs a file: weights:FILE (or a collection with query_weights.tsv)")


@contextlib.contextmanager
def progress_bar(sources: list[RunSource]):
    """A progress callback (bytes done) drawing a bar on stderr when it is a terminal, else None."""
    if not sys.stderr.isatty():
        yield None
        return
    from tqdm import tqdm

    total = sum(file_size(source.path) for source in sources)
    with tqdm(total=total or None, unit="B", unit_scale=True, desc="reading runs", file=sys.stderr, leave=False) as bar:
        yield bar.update


def report_ignored(ignored: dict[str, tuple[str, ...]]) -> None:
    for run, queries in ignored.items():
        if queries:
            shown = ", ".join(queries[:5]) + (" ..." if len(queries) > 5 else "")
            warn(f"run {run}: {len(queries)} queries not in the qrels were ignored: {shown}")


def test_settings(args: argparse.Namespace, runs: list[Run], **fixed) -> TestSettings:
    given = {name: getattr(args, name) for name in TestSettings.OPTIONS if getattr(args, name, None) is not None}
    names = [run.name for run in runs]
    if args.baseline is not None and args.baseline not in names:
        raise OptionError(f"--baseline {args.baseline!r} is not among the runs ({', '.join(names)})")
    return TestSettings(**{**given, **fixed, "baseline": args.baseline})


# --- the commands --------------------------------------------------------------------------------


def evaluate_command(args: argparse.Namespace) -> str:
    inputs = load(args)
    if args.protocol:
        return _protocol(args, inputs)
    engine = EngineSettings(**{n: getattr(args, n) for n in EngineSettings.OPTIONS if getattr(args, n, None) is not None})
    with progress_bar(inputs.sources) as progress:
        result = evaluate_sources(inputs.qrels, inputs.sources, inputs.measures, inputs.settings, engine,
                                  groups=inputs.groups, weights=inputs.weights, progress=progress)  # fmt: skip
    report_ignored(result.ignored)
    return render.evaluation(result, args.format, per_query=args.per_query)


def _protocol(args: argparse.Namespace, inputs: Inputs) -> str:
    from rankviz.analyses.protocol import protocol_values
    from rankviz.ranking import rank

    collection = inputs.collection
    if collection is None or collection.config.protocol is None:
        raise OptionError("--protocol needs a collection folder whose collection.toml has a [protocol] table")
    tables = {run.name: rank(run, inputs.qrels, ties=inputs.settings.ties) for run in inputs.runs}
    values = protocol_values(tables, inputs.groups, collection.config.protocol, inputs.settings)
    return render.protocol(values, args.format)


def compare_command(args: argparse.Namespace) -> str:
    import pandas as pd

    from rankviz.analyses.comparisons import compare, queries_needed, verdicts

    inputs = load(args)
    if len(inputs.runs) < 2:
        raise OptionError("compare needs at least two runs")
    settings = test_settings(args, inputs.runs)
    engine = EngineSettings(**{n: getattr(args, n) for n in EngineSettings.OPTIONS if getattr(args, n, None) is not None})
    with progress_bar(inputs.sources) as progress:
        result = evaluate_sources(inputs.qrels, inputs.sources, inputs.measures, inputs.settings, engine,
                                  groups=inputs.groups, weights=inputs.weights, progress=progress)  # fmt: skip
    report_ignored(result.ignored)
    table = compare(result, settings).table
    if args.detect is not None:
        needed = []
        for measure, baseline, run in zip(table.measure, table.baseline, table.run):
            matrix = result.matrix(measure, complete=False)[[baseline, run]].dropna()
            needed.append(queries_needed(matrix, baseline, args.detect, alpha=settings.alpha).get(run))
        table["queries_needed"] = pd.array(needed, dtype="Int64")
    describe = (
        f"test: {settings.test} ({settings.alternative}); correction: "
        + ("family-wise (Tukey HSD)" if settings.test == "tukey" else settings.correction)
        + f"; alpha {settings.alpha:g}; verdicts on the adjusted p"
    )
    shown = verdicts(table, alpha=settings.alpha)
    return render.comparison(table, args.format, verdicts=shown, describe=describe, conventions=result.conventions())


def ties_command(args: argparse.Namespace) -> str:
    from rankviz.analyses.ties import tie_report
    from rankviz.settings import QUERIES_LISTED, TIE_TRIALS, K

    inputs = load(args)
    report = tie_report(
        inputs.qrels,
        inputs.runs,
        inputs.measures,
        inputs.settings,
        test_settings(args, inputs.runs),
        cutoff=args.k if args.k is not None else K.default,
        trials=args.trials if args.trials is not None else TIE_TRIALS.default,
        groups=inputs.groups,
        weights=inputs.weights,
    )
    report_ignored(report.ignored_qids)
    return render.ties(report, args.format, limit=args.queries if args.queries is not None else QUERIES_LISTED.default)


def metrics_report_command(args: argparse.Namespace) -> str:
    from rankviz.analyses.metric_choice import Task, infer_task, metric_report
    from rankviz.ranking import rank
    from rankviz.settings import ALPHA, POWER_RESAMPLES, POWER_TEST, SPLITS, K

    inputs = load(args)
    if len(inputs.runs) < 2:
        raise OptionError("metrics-report compares measures on two or more runs")
    k = args.k if args.k is not None else K.default
    tables = {name: {run.name: rank(run, inputs.qrels, ties=name) for run in inputs.runs} for name in BOUNDS}
    inferred = infer_task(tables["trec_eval"], rel=inputs.settings.rel, top_k=k)
    task = Task(
        single_answer=inferred.single_answer if args.answers is None else args.answers == "one",
        top_k=k,
        graded=inferred.graded if args.graded is None else args.graded == "yes",
        stops_when_satisfied=inferred.stops_when_satisfied if args.stops is None else args.stops == "yes",
        source=inferred.source if args.answers is None else "answers given",
    )
    report = metric_report(
        tables,
        inputs.measures,
        inputs.settings,
        task=task,
        top_k=k,
        alpha=args.alpha if args.alpha is not None else ALPHA.default,
        test=args.test if args.test is not None else POWER_TEST.default,
        n_resamples=args.n_resamples if args.n_resamples is not None else POWER_RESAMPLES.default,
        trials=args.splits if args.splits is not None else SPLITS.default,
        rng=args.seed,
        groups=inputs.groups,
        weights=inputs.weights,
    )
    return render.metric_report(report, args.format)


def unjudged_command(args: argparse.Namespace) -> str:
    from rankviz.analyses.unjudged import unjudged_report
    from rankviz.settings import QUERIES_LISTED, K

    inputs = load(args)
    report = unjudged_report(
        inputs.qrels,
        inputs.runs,
        inputs.measures,
        inputs.settings,
        test_settings(args, inputs.runs),
        k=args.k if args.k is not None else K.default,
        grade=args.grade,
        groups=inputs.groups,
        weights=inputs.weights,
    )
    report_ignored(report.evaluations["nonrelevant"].ignored)
    for line in report.warnings():
        warn(line)
    return render.unjudged(report, args.format, limit=args.queries if args.queries is not None else QUERIES_LISTED.default)


def judgments_command(args: argparse.Namespace) -> str:
    """``judgments add|import|export``: the log and the grades in force, as TREC lines or TSV."""
    if args.action == "export":
        store = MeetingStore(args.db, create=False)
        if args.format == "tsv":
            if args.qrels is not None:
                raise OptionError("judgments export --format tsv writes the log; --qrels goes with --format qrels")
            rows = [(j.qid, j.docid, j.grade, "" if j.previous is None else j.previous, j.by, j.at, j.note)
                    for j in store.judgments()]  # fmt: skip
            return render.tsv_rows(("qid", "docid", "grade", "previous_grade", "by", "at", "note"), rows)
        if args.qrels is None:
            return judgment_lines(store.latest())
        return qrels_lines(merged_qrels(read_qrels(args.qrels), store.latest()))
    store = MeetingStore(args.db)
    if args.action == "add":
        original = _qrels_grade(args.db, args.qid, args.docid)
        done = store.judge(args.qid, args.docid, args.grade, by=args.by, note=args.note, original=original)
        if done.previous is not None:
            was = f"was {done.previous}"
        elif Path(args.db).is_dir():
            was = "unjudged before: neither the qrels nor the meeting graded it"
        else:
            was = "the meeting had not judged it; give a collection folder as DB to compare with its qrels"
        warn(f"{store.path}: {done.qid} {done.docid} judged {done.grade} by {done.by} ({was})")
    else:
        done = store.import_qrels(read_qrels(args.file), by=args.by)
        warn(f"{store.path}: {len(done):,} judgments of {args.file} recorded by {args.by}")
    return ""


def _qrels_grade(db: str, qid: str, docid: str) -> int | None:
    """The collection's qrels grade of the pair when DB is a collection folder (the grade a judgment replaces)."""
    if not Path(db).is_dir():
        return None
    frame = open_collection(db).read_qrels().to_frame()
    found = frame[(frame["qid"] == qid) & (frame["docid"] == docid)]["rel"]
    return int(found.iloc[0]) if len(found) else None


def tags_command(args: argparse.Namespace) -> str:
    """``tags add|export``: the export is a groups file (qid, tag), so ``--groups`` reads it."""
    if args.action == "export":
        groups = MeetingStore(args.db, create=False).tag_groups()
        return render.tsv_rows(("qid", "tag"), list(groups.items()))
    store = MeetingStore(args.db)
    store.tag(args.qid, args.tag, by=args.by)
    warn(f"{store.path}: {args.qid} tagged {args.tag.strip()!r} by {args.by}")
    return ""


COMMANDS = {
    "evaluate": evaluate_command,
    "compare": compare_command,
    "ties": ties_command,
    "metrics-report": metrics_report_command,
    "unjudged": unjudged_command,
    "measures": lambda args: render.measures_table(),
    "judgments": judgments_command,
    "tags": tags_command,
}


def run(args: argparse.Namespace) -> int:
    try:
        sys.stdout.write(COMMANDS[args.command](args))
    except RankvizError as exc:
        print(f"rankviz: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    return 0
