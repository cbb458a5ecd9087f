"""From the command line's flags to a study, its settings and warnings: every command's start."""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Mapping

from rankviz.settings.engine_settings import EngineSettings
from rankviz.settings.significance_settings import TestSettings
from rankviz.study import BYTES_TO_READ, CHECK, TOP_K, Evaluation, Study, StudyRequest

#: The commands whose numbers ``--correct-with`` corrects; the others say they do not.
CORRECTING = ("evaluate", "compare")


def warn(message: str) -> None:
    print(f"rankviz: {message}", file=sys.stderr)


def study_of_args(args: argparse.Namespace, *, quiet: bool = False) -> Study:
    """The study a command's arguments name (:meth:`StudyRequest.from_args
    <rankviz.study.request.StudyRequest.from_args>`, opened by :meth:`Study.open
    <rankviz.study.study.Study.open>`); what opening found worth saying goes to stderr (unless
    ``quiet``)."""
    study = Study.open(StudyRequest.from_args(args))
    for line in () if quiet else study.notes:
        warn(line)
    if study.correction is not None and getattr(args, "command", None) not in CORRECTING:
        warn(
            f"--correct-with: {args.command} shows the numbers of the judgments in force alone, "
            f"uncorrected by {study.correction.sentence} ("
            + " and ".join(CORRECTING)
            + " correct their means)"
        )
    return study


@contextlib.contextmanager
def progress_bar(study: Study):
    """A progress callback (bytes done) drawing a bar on stderr when it is a terminal, else None."""
    if not sys.stderr.isatty():
        yield None
        return
    from tqdm import tqdm

    total = study.ask(BYTES_TO_READ)
    with tqdm(
        total=total or None,
        unit="B",
        unit_scale=True,
        desc="reading runs",
        file=sys.stderr,
        leave=False,
    ) as bar:
        yield bar.update


@contextlib.contextmanager
def counting_bar(total: int, what: str):
    """A progress callback (how many more of ``total`` are done) drawing a bar on stderr when it is
    a terminal, else None."""
    if not sys.stderr.isatty():
        yield None
        return
    from tqdm import tqdm

    with tqdm(total=total, desc=what, file=sys.stderr, leave=False) as bar:
        yield bar.update


def report_ignored(ignored: Mapping[str, tuple[str, ...]]) -> None:
    for run, queries in ignored.items():
        if queries:
            shown = ", ".join(queries[:5]) + (" ..." if len(queries) > 5 else "")
            warn(f"run {run}: {len(queries)} queries not in the qrels were ignored: {shown}")


def test_settings(args: argparse.Namespace, study: Study) -> TestSettings:
    """The test the flags set (the others at their defaults), its baseline checked by the study."""
    tests = TestSettings.from_args(args).replace(baseline=getattr(args, "baseline", None))
    return study.test_settings(tests)


def _engine(args: argparse.Namespace) -> EngineSettings:
    return EngineSettings(
        **{
            n: getattr(args, n)
            for n in EngineSettings.OPTIONS
            if getattr(args, n, None) is not None
        }
    )


def evaluation_of_args(study: Study, args: argparse.Namespace) -> Evaluation:
    """The evaluation of the runs, with the checks' facts gathered in the same pass (their findings
    said)."""
    with progress_bar(study) as progress:
        result = study.evaluation(engine=_engine(args), progress=progress, check_k=check_k_of(args))
    checked(study, args, result)
    report_ignored(result.ignored)
    return result


def check_k_of(args: argparse.Namespace) -> int | None:
    """The top the checks read (None with ``--no-check``): their facts gathered in the
    evaluation's pass."""
    return None if args.no_check else TOP_K


def checked(study: Study, args: argparse.Namespace, evaluation: Evaluation) -> None:
    """The checks' warnings and errors (from the facts the evaluation gathered), once, on stderr
    before any number is printed (unless ``--no-check``)."""
    if args.no_check or not study.ranked:  # scores alone: nothing the checks read
        return
    for finding in study.ask(CHECK, TOP_K, evaluation=evaluation).at_least("warning"):
        warn(finding.line())
