"""The commands: read the inputs the flags name, run the engine, hand the result to a renderer.

pandas and scipy are imported by the commands that need them, so that ``rankviz evaluate`` starts in
the time of numpy and pyarrow alone.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from rankviz._memory import server_environment
from rankviz.cli import render_corrected, render_numbers, render_reports, running
from rankviz.cli.anova_command import anova_command
from rankviz.cli.features_command import features_command
from rankviz.cli.fuse import fuse_command
from rankviz.cli.meeting_commands import judgments_command, report_command, tags_command
from rankviz.cli.ndeval import ndeval_command
from rankviz.cli.repro_command import repro_command
from rankviz.cli.study_args import (
    check_k_of,
    checked,
    counting_bar,
    evaluation_of_args,
    report_ignored,
    study_of_args,
    test_settings,
    warn,
)
from rankviz.cli.trec_eval import trec_eval_command
from rankviz.errors import OptionError, install_hint
from rankviz.settings.eval_settings import EvalSettings
from rankviz.settings.report_settings import MetricSettings, TieReportSettings, UnjudgedSettings
from rankviz.settings.significance_settings import CONFIDENCE, TestSettings
from rankviz.study import (
    CHECK,
    COLLECTION_FILES,
    COMPARE,
    CORRECTED_DELTAS,
    CORRECTED_MEANS,
    INFER_TASK,
    METRIC_REPORT,
    PROTOCOL,
    STANDINGS,
    TIE_REPORT,
    TOP_K,
    UNJUDGED_REPORT,
    VALUES_EVIDENCE,
    holds_collection,
    served,
)

if TYPE_CHECKING:
    from rankviz.study import Evaluation, Standings, Study

# --- the commands --------------------------------------------------------------------------------


def check_command(args: argparse.Namespace) -> tuple[str, int]:
    study = study_of_args(args)
    report = study.ask(CHECK, args.k if args.k is not None else TOP_K)
    return render_reports.checks(
        report, args.format, conventions=study.settings.conventions()
    ), report.status


def evaluate_command(args: argparse.Namespace) -> str:
    study = study_of_args(args)
    if args.protocol:
        return render_numbers.protocol(study.ask(PROTOCOL), args.format)
    if study.correction is not None:
        return _corrected_means(study, args)
    if args.target_moe is not None:
        raise OptionError("--target-moe goes with --correct-with (the queries people judge)")
    result = evaluation_of_args(study, args)
    text = render_numbers.evaluation(result, args.format, per_query=args.per_query)
    if not args.ranks:
        return text
    tests = TestSettings(
        **{
            n: getattr(args, n)
            for n in ("seed", "alpha", "n_resamples", "confidence_level")
            if getattr(args, n, None) is not None
        }
    )
    standings = _standings(study, tests, result)
    return render_numbers.with_standings(
        text, result.to_dict(per_query=args.per_query), "evaluation", standings, args.format
    )


def _corrected_means(study: Study, args: argparse.Namespace) -> str:
    """evaluate --correct-with: the corrected means (per-query values and rank intervals are the
    LLM's alone, and are refused rather than shown uncorrected)."""
    if args.per_query or args.ranks:
        raise OptionError(
            "--correct-with corrects the means: without --per-query and --ranks (the per-query "
            "values are the LLM's; evaluate without --correct-with shows them)"
        )
    level = args.confidence_level or CONFIDENCE.default
    report = study.ask(CORRECTED_MEANS, confidence=level, check_k=check_k_of(args))
    checked(study, args, report.evaluation)
    conventions = report.evaluation.conventions()
    return render_corrected.means(
        report, args.format, conventions=conventions, margin=args.target_moe
    )


def _standings(study: Study, tests: TestSettings, evaluation: Evaluation) -> Standings:
    """The standings, with a bar of the resamples on a terminal."""
    with counting_bar(tests.n_resamples * len(evaluation.measures), "resampling") as progress:
        return study.ask(STANDINGS, tests, evaluation=evaluation, progress=progress)


def compare_command(args: argparse.Namespace) -> str | tuple[str, int]:
    study = study_of_args(args)
    if len(study.run_names) < 2:
        raise OptionError("compare needs at least two runs")
    settings = test_settings(args, study)
    if study.correction is not None:
        return _corrected_deltas(study, args, settings)
    result = evaluation_of_args(study, args)
    comparison = study.ask(COMPARE, settings, evaluation=result)
    if args.detect is not None:
        comparison = comparison.with_queries_needed(result, args.detect)
    text = render_numbers.comparison(comparison, args.format, conventions=result.conventions())
    if args.ranks:
        text = render_numbers.with_standings(
            text,
            comparison.to_dict(),
            "comparisons",
            _standings(study, settings, result),
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


def _corrected_deltas(study: Study, args: argparse.Namespace, settings: TestSettings) -> str:
    """compare --correct-with: the corrected paired deltas and their z-tests (the other tests,
    the gate and the rank intervals read the LLM's values alone, and are refused)."""
    given = [
        flag
        for flag, value in (
            ("--test", args.test),
            ("--fail-if", args.fail_if),
            ("--ranks", args.ranks),
            ("--detect", args.detect),
        )
        if value
    ]
    if given:
        raise OptionError(
            "--correct-with tests the corrected deltas (PPI++'s z-test): without "
            + ", ".join(given)
        )
    report = study.ask(CORRECTED_DELTAS, settings, check_k=check_k_of(args))
    checked(study, args, report.evaluation)
    return render_corrected.deltas(report, args.format, conventions=report.evaluation.conventions())


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
    from rankviz.study.studies import read_names, summarise

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
    text = render_reports.summary(result, args.format)
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
    study = study_of_args(args)
    with counting_bar(len(study.run_names), "runs under every tie order") as progress:
        report = study.ask(
            TIE_REPORT,
            test_settings(args, study),
            TieReportSettings.from_args(args),
            progress=progress,
        )
    report_ignored(report.ignored_qids)
    return render_reports.ties(report, args.format)


def metrics_report_command(args: argparse.Namespace) -> str:
    study = study_of_args(args)
    if len(study.run_names) < 2:
        raise OptionError("metrics-report compares measures on two or more runs")
    options = MetricSettings.from_args(args)
    answers = {
        "single_answer": None if args.answers is None else args.answers == "one",
        "graded": None if args.graded is None else args.graded == "yes",
        "stops_when_satisfied": None if args.stops is None else args.stops == "yes",
    }
    if not study.ranked:  # values alone: no task, no rankings to weigh
        return render_reports.metric_report(study.ask(VALUES_EVIDENCE, options), args.format)
    report = study.ask(
        METRIC_REPORT, options, task=study.ask(INFER_TASK, options.k).answered(**answers)
    )
    return render_reports.metric_report(report, args.format)


def unjudged_command(args: argparse.Namespace) -> str:
    study = study_of_args(args)
    report = study.ask(
        UNJUDGED_REPORT, test_settings(args, study), UnjudgedSettings.from_args(args)
    )
    report_ignored(report.evaluations["nonrelevant"].ignored)
    for line in report.warnings():
        warn(line)
    return render_reports.unjudged(report, args.format)


def agreement_command(args: argparse.Namespace) -> str:
    """``agreement A B [RUN ...]``: two sources of judgments side by side (and the runs under
    each)."""
    from rankviz.study.judges_opening import open_judges
    from rankviz.study.studies import compare_judges, judges_study

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
    return render_reports.agreement(report, args.format, conventions=study.conventions())


def app_command(args: argparse.Namespace) -> str:
    """``app``: ``streamlit run`` the package's app script (:mod:`rankviz.app.main`) with the
    folders as ``--data``."""
    import importlib.util

    if importlib.util.find_spec("streamlit") is None or importlib.util.find_spec("plotly") is None:
        raise OptionError(f"the app needs its extra, streamlit and plotly: {install_hint('app')}")
    for folder in args.data:
        if folder.startswith("irds:"):
            continue
        if not Path(folder).is_dir():
            raise OptionError(f"{folder}: no such folder ({COLLECTION_FILES}; or irds:DATASET_ID)")
        if not holds_collection(folder):  # a server that would serve nothing
            raise OptionError(f"{folder}: holds no collection: {COLLECTION_FILES}")
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
    command += ["--server.address", args.host]
    command += ["--server.port", str(args.port)] if args.port is not None else []
    if args.auth is not None:  # Streamlit's sign-in reads its [auth] section from the secrets
        command += ["--secrets.files", str(served.checked_auth(args.auth))]
    elif not served.loopback(args.host):
        warn(served.OPEN_TO_ALL.format(address=args.host))
    command += ["--server.headless", "true"] if args.no_browser else []
    script_args = [
        item
        for f in args.data
        for item in ("--data", f if f.startswith("irds:") else str(Path(f).resolve()))
    ]
    script_args += ["--notes", str(Path(args.notes).resolve())] if args.notes else []
    if args.scheduler is not None:  # reached before the server starts: else one line, exit 2
        from rankviz.study.remote_pass import connect

        connect(args.scheduler).close()
        script_args += ["--scheduler", args.scheduler]
    sys.stdout.flush()
    arguments = command + (["--", *script_args] if script_args else [])
    os.execve(sys.executable, arguments, server_environment())
    return ""  # not reached: the process is streamlit's now


COMMANDS: dict[str, Callable[[argparse.Namespace], str | tuple[str, int]]] = {
    "evaluate": evaluate_command,
    "check": check_command,
    "compare": compare_command,
    "ties": ties_command,
    "metrics-report": metrics_report_command,
    "unjudged": unjudged_command,
    "measures": lambda args: render_numbers.measures_table(),
    "report": report_command,
    "summary": summary_command,
    "judgments": judgments_command,
    "agreement": agreement_command,
    "app": app_command,
    "tags": tags_command,
    "trec-eval": trec_eval_command,
    "ndeval": ndeval_command,
    "anova": anova_command,
    "features": features_command,
    "repro": repro_command,
    "fuse": fuse_command,
}


def run(args: argparse.Namespace) -> int:
    return running.run(COMMANDS[args.command], args)
