"""The commands: read the inputs the flags name, run the engine, hand the result to a renderer.

pandas and scipy are imported by the commands that need them, so that ``rankviz evaluate`` starts in
the time of numpy and pyarrow alone.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Mapping
from pathlib import Path

from rankviz.analyses.checks import TOP_K
from rankviz.cli import render
from rankviz.engine_settings import EngineSettings
from rankviz.errors import FormatError, OptionError, RankvizError
from rankviz.evaluation import Evaluation
from rankviz.io.collection import open_collection
from rankviz.io.grades import Scale, checked_grade
from rankviz.io.judges import is_source_label, judgment_lines, merged_qrels, qrels_lines
from rankviz.io.meeting import MeetingStore
from rankviz.io.readers import read_qrels
from rankviz.report_settings import MetricSettings, TieReportSettings, UnjudgedSettings
from rankviz.settings import EvalSettings
from rankviz.significance_options import TestSettings
from rankviz.study import Study


def warn(message: str) -> None:
    print(f"rankviz: {message}", file=sys.stderr)


def open_study(args: argparse.Namespace, *, quiet: bool = False) -> Study:
    """The study the shared arguments name (a collection folder supplies defaults); what opening
    found worth saying goes to stderr (unless ``quiet``)."""
    given = {n: v for n, v in vars(args).items() if n in EvalSettings.OPTIONS and n != "aggregate"}
    study = Study.open(
        args.qrels,
        args.runs or (),
        measures=args.measures or None,
        judgments=getattr(args, "judgments", None),
        qrels_in_force=getattr(args, "qrels_in_force", None),
        groups=getattr(args, "groups", None),
        aggregate=getattr(args, "aggregate", None),
        options=given,
    )
    for line in () if quiet else study.notes:
        warn(line)
    return study


@contextlib.contextmanager
def progress_bar(study: Study):
    """A progress callback (bytes done) drawing a bar on stderr when it is a terminal, else None."""
    if not sys.stderr.isatty():
        yield None
        return
    from tqdm import tqdm

    total = study.bytes_to_read()
    with tqdm(
        total=total or None,
        unit="B",
        unit_scale=True,
        desc="reading runs",
        file=sys.stderr,
        leave=False,
    ) as bar:
        yield bar.update


def report_ignored(ignored: Mapping[str, tuple[str, ...]]) -> None:
    for run, queries in ignored.items():
        if queries:
            shown = ", ".join(queries[:5]) + (" ..." if len(queries) > 5 else "")
            warn(f"run {run}: {len(queries)} queries not in the qrels were ignored: {shown}")


def test_settings(args: argparse.Namespace, study: Study, **fixed) -> TestSettings:
    given = {
        name: getattr(args, name)
        for name in TestSettings.OPTIONS
        if getattr(args, name, None) is not None
    }
    return study.test_settings(args.baseline, **{**given, **fixed})


# --- the commands --------------------------------------------------------------------------------


def _engine(args: argparse.Namespace) -> EngineSettings:
    return EngineSettings(
        **{
            n: getattr(args, n)
            for n in EngineSettings.OPTIONS
            if getattr(args, n, None) is not None
        }
    )


def _evaluation(study: Study, args: argparse.Namespace) -> Evaluation:
    """The evaluation of the runs, with the checks' facts gathered in the same pass (their findings
    said)."""
    with progress_bar(study) as progress:
        result = study.evaluation(
            engine=_engine(args), progress=progress, check_k=None if args.no_check else TOP_K
        )
    checked(study, args, result)
    report_ignored(result.ignored)
    return result


def checked(study: Study, args: argparse.Namespace, evaluation: Evaluation) -> None:
    """The checks' warnings and errors (from the facts the evaluation gathered), once, on stderr
    before any number is printed (unless ``--no-check``)."""
    if args.no_check:
        return
    for finding in study.check(TOP_K, evaluation=evaluation).at_least("warning"):
        warn(finding.line())


def check_command(args: argparse.Namespace) -> tuple[str, int]:
    study = open_study(args)
    report = study.check(args.k if args.k is not None else TOP_K)
    return render.checks(
        report, args.format, conventions=study.settings.conventions()
    ), report.status


def evaluate_command(args: argparse.Namespace) -> str:
    study = open_study(args)
    if args.protocol:
        return render.protocol(study.protocol(), args.format)
    result = _evaluation(study, args)
    text = render.evaluation(result, args.format, per_query=args.per_query)
    if not args.ranks:
        return text
    tests = TestSettings(
        **{
            n: getattr(args, n)
            for n in ("seed", "alpha", "n_resamples", "confidence_level")
            if getattr(args, n, None) is not None
        }
    )
    return render.with_standings(
        text,
        result.to_dict(per_query=args.per_query),
        "evaluation",
        study.standings(tests, evaluation=result),
        args.format,
    )


def compare_command(args: argparse.Namespace) -> str | tuple[str, int]:
    study = open_study(args)
    if len(study.run_names) < 2:
        raise OptionError("compare needs at least two runs")
    settings = test_settings(args, study)
    result = _evaluation(study, args)
    comparison = study.compare(settings, evaluation=result)
    if args.detect is not None:
        comparison = comparison.with_queries_needed(result, args.detect)
    text = render.comparison(comparison, args.format, conventions=result.conventions())
    if args.ranks:
        text = render.with_standings(
            text,
            comparison.to_dict(),
            "comparisons",
            study.standings(settings, evaluation=result),
            args.format,
        )
    if args.fail_if is None:
        if args.margin is not None:
            raise OptionError("--margin goes with --fail-if worse|not-better")
        return text
    baseline = settings.baseline or study.run_names[0]
    failed = comparison.gate(args.fail_if, margin=args.margin, baseline=baseline)
    failing = "is significantly worse than" if args.fail_if == "worse" else "fails to beat"
    passed = f"no run {failing} the baseline"
    return text, _verdict(failed, comparison.untested(baseline), passed)


def _verdict(failed: list[str], untested: list[str], passed: str) -> int:
    """A CI gate's exit code, with its verdict on stderr: 1 failed, 0 passed; a gate that could not
    test every comparison neither passes nor fails (exit 2, saying which)."""
    if untested:
        raise OptionError("the gate cannot judge " + "; ".join(untested))
    for line in failed:
        warn(f"gate failed: {line}")
    if not failed:
        warn(f"gate passed: {passed}")
    return 1 if failed else 0


def summary_command(args: argparse.Namespace) -> str | tuple[str, int]:
    """``summary``: the runs over the collections, and the CI gate on the pooled deltas."""
    from rankviz.studies import read_names, summarise

    options = {"missing": args.missing} if args.missing is not None else {}
    level = args.confidence_level if args.confidence_level is not None else 0.95
    result = summarise(
        args.collections,
        baseline=args.baseline,
        runs=args.runs,
        measures=args.measures,
        names=read_names(args.names) if args.names else None,
        standardised=args.standardised,
        level=level,
        options=options,
    )
    text = render.summary(result, args.format)
    if args.fail_if is None:
        if args.margin is not None:
            raise OptionError("--margin goes with --fail-if worse|not-better")
        return text
    failed = result.gate(args.fail_if, margin=args.margin)
    passed = (
        f"no pooled delta {'lies below 0' if args.fail_if == 'worse' else 'fails to lie above 0'}"
    ) + (f" or misses the margin {args.margin:g}" if args.margin is not None else "")
    return text, _verdict(failed, result.untested(), passed)


def ties_command(args: argparse.Namespace) -> str:
    study = open_study(args)
    report = study.tie_report(test_settings(args, study), TieReportSettings.from_args(args))
    report_ignored(report.ignored_qids)
    return render.ties(report, args.format)


def metrics_report_command(args: argparse.Namespace) -> str:
    study = open_study(args)
    if len(study.run_names) < 2:
        raise OptionError("metrics-report compares measures on two or more runs")
    options = MetricSettings.from_args(args)
    answers = {
        "single_answer": None if args.answers is None else args.answers == "one",
        "graded": None if args.graded is None else args.graded == "yes",
        "stops_when_satisfied": None if args.stops is None else args.stops == "yes",
    }
    report = study.metric_report(options, task=study.infer_task(options.k).answered(**answers))
    return render.metric_report(report, args.format)


def unjudged_command(args: argparse.Namespace) -> str:
    study = open_study(args)
    report = study.unjudged_report(test_settings(args, study), UnjudgedSettings.from_args(args))
    report_ignored(report.evaluations["nonrelevant"].ignored)
    for line in report.warnings():
        warn(line)
    return render.unjudged(report, args.format)


def judgments_command(args: argparse.Namespace) -> str:
    """``judgments add|import|export``: the log and the grades in force, as TREC lines or TSV."""
    if args.action == "export":
        store = MeetingStore(args.db, create=False)
        if args.format == "tsv":
            if args.qrels is not None:
                raise OptionError(
                    "judgments export --format tsv writes the log; --qrels goes with --format qrels"
                )
            rows = [
                (
                    j.qid,
                    j.docid,
                    j.grade,
                    "" if j.previous is None else j.previous,
                    j.by,
                    j.at,
                    j.note,
                )
                for j in store.judgments()
            ]
            return render.tsv_rows(
                ("qid", "docid", "grade", "previous_grade", "by", "at", "note"), rows
            )
        if args.qrels is None:
            return judgment_lines(store.latest())
        return qrels_lines(merged_qrels(read_qrels(args.qrels), store.latest()))
    owner, scale, folder = _record_owner(args)
    if args.action == "add":
        # before the record is opened: a refused grade leaves it as it was
        checked_grade(args.grade, scale)
        store = MeetingStore(args.db, scale=scale, collection=owner)
        original = _qrels_grade(folder, args.qid, args.docid) if folder is not None else None
        done = store.judge(
            args.qid, args.docid, args.grade, by=args.by, note=args.note, original=original
        )
        if done.previous is not None:
            was = f"was {done.previous}"
        elif folder is not None:
            was = "unjudged before: neither the qrels nor the meeting graded it"
        else:
            was = (
                f"the meeting had not judged it; give --collection DIR to compare with {owner}'s "
                "qrels"
            )
        warn(f"{store.path}: {done.qid} {done.docid} judged {done.grade} by {done.by} ({was})")
    else:
        qrels = read_qrels(args.file)
        for grade in sorted(set(qrels.grade.tolist())):
            checked_grade(grade, scale)
        store = MeetingStore(args.db, scale=scale, collection=owner)
        if args.source is not None and not is_source_label(args.source):
            raise OptionError(
                f"--source {args.source!r}: a source label is llm:NAME or "
                "human:NAME, e.g. llm:umbrela"
            )
        by, note = (
            (args.source, f"imported by {args.by} from {Path(args.file).name}")
            if args.source
            else (args.by, "")
        )
        imported = store.import_qrels(qrels, by=by, note=note)
        warn(f"{store.path}: {len(imported):,} judgments of {args.file} recorded by {by}")
    return ""


def agreement_command(args: argparse.Namespace) -> str:
    """``agreement A B [RUN ...]``: two sources of judgments side by side (and the runs under
    each)."""
    from rankviz.studies import compare_judges, judges_study, open_judges

    a, b = open_judges(args.a), open_judges(args.b)
    options = {
        n: getattr(args, n) for n in EvalSettings.OPTIONS if getattr(args, n, None) is not None
    }
    study = judges_study(a, args.runs, measures=args.measures, options=options)
    tests = TestSettings(
        **{
            n: getattr(args, n)
            for n in ("test", "correction", "alpha", "n_resamples", "seed")
            if getattr(args, n, None) is not None
        }
    )
    k = args.k if args.k is not None else 10
    report = compare_judges(
        study, b.qrels, names=(a.name, b.name), kinds=(a.kind, b.kind), test=tests, k=k
    )
    return render.agreement(report, args.format, conventions=study.conventions())


def app_command(args: argparse.Namespace) -> str:
    """``app``: ``streamlit run`` the package's app script (:mod:`rankviz.app.main`) with the
    folders as ``--data``."""
    import importlib.util
    import os

    if importlib.util.find_spec("streamlit") is None or importlib.util.find_spec("plotly") is None:
        raise OptionError(
            "the app needs its extra: pip install 'rankviz[app]' (streamlit and plotly)"
        )
    for folder in args.data:
        if not folder.startswith("irds:") and not Path(folder).is_dir():
            raise OptionError(
                f"{folder}: no such folder (a collection folder: qrels.txt and "
                "runs/; or irds:DATASET_ID)"
            )
    script = Path(__file__).resolve().parents[1] / "app" / "main.py"
    command = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(script),
        "--browser.gatherUsageStats",
        "false",
    ]
    command += ["--server.port", str(args.port)] if args.port is not None else []
    command += ["--server.headless", "true"] if args.no_browser else []
    script_args = [
        item
        for f in args.data
        for item in ("--data", f if f.startswith("irds:") else str(Path(f).resolve()))
    ]
    script_args += ["--notes", str(Path(args.notes).resolve())] if args.notes else []
    sys.stdout.flush()
    os.execv(sys.executable, command + (["--", *script_args] if script_args else []))
    return ""  # not reached: the process is streamlit's now


def _record_owner(args: argparse.Namespace) -> tuple[str, Scale, str | None]:
    """The collection a record written to belongs to, the grades it takes, and its folder when
    given: DB's own folder, ``--collection DIR``, or what the record's first writer recorded. A
    record that knows none of them is refused: its judgments would move any collection's numbers, on
    any scale."""
    folder = args.db if Path(args.db).is_dir() else args.collection
    if folder is not None:
        if (
            args.collection is not None
            and Path(args.db).is_dir()
            and Path(args.collection).resolve() != Path(args.db).resolve()
        ):
            raise OptionError(
                f"--collection {args.collection}: DB is the collection folder {args.db} already"
            )
        collection = open_collection(folder)
        return collection.config.name, collection.grade_scale(collection.read_qrels()), folder
    owner, scale = (
        MeetingStore(args.db, create=False).owner() if Path(args.db).is_file() else (None, None)
    )
    if owner is None or scale is None:
        raise OptionError(
            f"{args.db}: a record must know the collection it judges: give --collection DIR (the "
            "collection folder), or the folder itself as DB (its rankviz-notes.sqlite)"
        )
    return owner, scale, None


def _qrels_grade(folder: str, qid: str, docid: str) -> int | None:
    """The collection's qrels grade of the pair (the grade a judgment replaces)."""
    frame = open_collection(folder).read_qrels().to_frame()
    found = frame[(frame["qid"] == qid) & (frame["docid"] == docid)]["rel"]
    return int(found.iloc[0]) if len(found) else None


def tags_command(args: argparse.Namespace) -> str:
    """``tags add|export``: the export is a groups file (qid, tag), so ``--groups`` reads it."""
    if args.action == "export":
        groups = MeetingStore(args.db, create=False).tag_groups()
        return render.tsv_rows(("qid", "tag"), list(groups.items()))
    owner, scale, _ = _record_owner(args)
    store = MeetingStore(args.db, scale=scale, collection=owner)
    store.tag(args.qid, args.tag, by=args.by)
    warn(f"{store.path}: {args.qid} tagged {args.tag.strip()!r} by {args.by}")
    return ""


def report_command(args: argparse.Namespace) -> str:
    """``report``: what the meeting decided, as one HTML page (or JSON)."""
    from rankviz import export

    meeting = open_study(args)
    if meeting.record is None:
        raise OptionError(
            "report needs the meeting's record: a collection folder, or --judgments DB"
        )
    plain = argparse.Namespace(**{**vars(args), "judgments": None, "qrels_in_force": None})
    report = meeting.meeting_report(
        meeting.record, file_study=open_study(plain, quiet=True), test=test_settings(args, meeting)
    )
    text = (
        export.meeting_html(report) if args.format == "html" else render.to_json(report.to_dict())
    )
    if args.output is None:
        return text
    target = Path(args.output).resolve()
    record = meeting.record.path.resolve()
    inputs = {
        Path(args.qrels).resolve(),
        record,
        Path(f"{record}-wal"),
        Path(f"{record}-shm"),
        *(Path(s.path).resolve() for s in meeting.sources),
    }
    if meeting.collection is not None:
        inputs.add(meeting.collection.qrels_path.resolve())
        if target.parent == (meeting.collection.path / "runs").resolve():
            raise OptionError(
                f"-o {args.output}: inside the collection's runs folder, it would become a run"
            )
    if target in inputs or target.is_dir():
        raise OptionError(f"-o {args.output}: an input of the report or a folder; give a new file")
    target.write_text(text, encoding="utf-8")
    warn(f"the meeting's report ({len(report.queries)} queries discussed) written to {args.output}")
    return ""


COMMANDS = {
    "evaluate": evaluate_command,
    "check": check_command,
    "compare": compare_command,
    "ties": ties_command,
    "metrics-report": metrics_report_command,
    "unjudged": unjudged_command,
    "measures": lambda args: render.measures_table(),
    "report": report_command,
    "summary": summary_command,
    "judgments": judgments_command,
    "agreement": agreement_command,
    "app": app_command,
    "tags": tags_command,
}


def run(args: argparse.Namespace) -> int:
    try:
        done = COMMANDS[args.command](args)
        text, status = done if isinstance(done, tuple) else (done, 0)
        sys.stdout.write(text)
    except RankvizError as exc:
        print(f"rankviz: error: {_said(exc, getattr(args, 'qrels', None))}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    # a file named on the command line that cannot be read or written: an input error
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename is not None else ""
        print(f"rankviz: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 2
    return status


def _said(exc: RankvizError, folder: str | None) -> str:
    """The error, but a file a link in the collection ``folder`` leads to from outside it is named
    without its text: a field of a file elsewhere on the machine is not the collection's to show."""
    if not isinstance(exc, FormatError) or not folder or not Path(folder).is_dir():
        return str(exc)
    path, root = Path(os.path.abspath(exc.path)), Path(os.path.abspath(folder))
    if root not in path.parents or root.resolve() in path.resolve().parents:
        return str(exc)
    where = f"{exc.path}, line {exc.line_no}" if exc.line_no else exc.path
    return (
        f"{where}: cannot be read as a run (a link to a file outside the collection folder: its "
        "text is not quoted)"
    )
