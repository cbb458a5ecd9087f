"""The questions that read the runs' rankings: how the tie policies and the unjudged documents move
every number, where each run puts the relevant documents, one query's two rankings, the
precision-recall curves, the task's answers guessed from the top of a run, which measure fits the
task, and a collection's protocol measure.

Each is a plain function over a study, turning its ranking tables into a report of
:mod:`rankviz.analyses`, and an entry of :data:`rankviz.study.questions.QUESTIONS` that a study of
per-query scores alone refuses.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from rankviz.errors import OptionError
from rankviz.ranking.regrading import LastRunKept
from rankviz.settings.report_settings import MetricSettings, TieReportSettings, UnjudgedSettings
from rankviz.settings.significance_settings import TestSettings
from rankviz.settings.tie_policy import BOUNDS, TREC_EVAL
from rankviz.study.question import Follows, Question, Reads
from rankviz.study.study import Study

if TYPE_CHECKING:
    import pandas as pd

    from rankviz.analyses.deltas import RankReport
    from rankviz.analyses.metric_choice import MetricReport
    from rankviz.analyses.precision_recall import PrecisionRecall
    from rankviz.analyses.task import Task
    from rankviz.analyses.ties import TieReport
    from rankviz.analyses.unjudged import UnjudgedReport


def tie_report(
    study: Study,
    test: TestSettings | None = None,
    options: TieReportSettings | None = None,
    *,
    rng: np.random.Generator | int | None = None,
    progress: Callable[[int], None] | None = None,
    runs_at_once: int = 1,
) -> TieReport:
    """Every run under every report policy (:func:`rankviz.analyses.ties.tie_report`);
    ``progress`` is told each run done; ``runs_at_once`` runs side by side (the app's two, as
    its passes; the command line's one, which holds one run's tables at a time)."""
    from rankviz.analyses.ties import report_from_tables

    kept = study.sharing(LastRunKept(study.orderer))
    return report_from_tables(
        kept.table,
        kept.run_names,
        list(study.measures),
        study.settings,
        test,
        options,
        groups=study.groups,
        weights=study.weights,
        rng=rng,
        progress=progress,
        runs_at_once=runs_at_once,
    )


def unjudged_report(
    study: Study, test: TestSettings | None = None, options: UnjudgedSettings | None = None
) -> UnjudgedReport:
    """Each run with its unjudged top-K documents non-relevant and relevant
    (:mod:`rankviz.analyses.unjudged`)."""
    from rankviz.analyses.unjudged import report_from_tables

    return report_from_tables(
        study.one_at_a_time(),
        list(study.measures),
        study.settings,
        test,
        options,
        groups=study.groups,
        weights=study.weights,
    )


def rank_report(study: Study) -> RankReport:
    """Where each run puts the relevant documents (:func:`rankviz.analyses.deltas.rank_report`)."""
    from rankviz.analyses import deltas

    return deltas.rank_report(study.tables(), study.settings.rel)


def aligned(study: Study, baseline: str, run: str, qid: str, depth: int) -> pd.DataFrame:
    """One query's two rankings side by side, to ``depth``
    (:func:`rankviz.analyses.query_view.aligned`)."""
    from rankviz.analyses import query_view

    tables = study.tables([baseline, run])
    return query_view.aligned(tables[baseline], tables[run], qid, depth)


def overlap(study: Study, baseline: str, run: str) -> pd.Series:
    """Rank-biased overlap of two runs' rankings of every query, under the study's policy."""
    from rankviz.analyses.query_view import rank_biased_overlap

    tables = study.tables([baseline, run])
    return rank_biased_overlap(tables[baseline], tables[run])


def precision_recall(study: Study, names: Sequence[str] | None = None) -> PrecisionRecall:
    """The runs' interpolated precision-recall curves on the qrels in force: the tie policy's
    order when it is one order (trec_eval, run, optimistic, pessimistic), trec_eval's under
    ``expected`` and ``random`` (interpolated precision has no closed form over orders)."""
    from rankviz.analyses import precision_recall as curves

    rule = study.settings.ties
    ties = rule if rule.deterministic and not rule.closed_form else TREC_EVAL
    return curves.precision_recall(
        study.one_at_a_time(names, ties),
        rel=study.settings.rel,
        missing=study.settings.missing,
        order=str(ties),
        filled=study.settings.fill_grade,
    )


def infer_task(study: Study, k: int, names: Sequence[str] | None = None) -> Task:
    """The task's answers guessed from the qrels and the top ``k`` of ``names`` (default: the
    first run) (:func:`rankviz.analyses.task.infer_task`)."""
    from rankviz.analyses import task

    tables = study.tables(names or study.run_names[:1], TREC_EVAL)
    return task.infer_task(tables, rel=study.settings.rel, top_k=k)


def metric_report(
    study: Study,
    options: MetricSettings | None = None,
    *,
    task: Task | None = None,
    every_candidate: bool = False,
) -> MetricReport:
    """Which measure fits the task (:func:`rankviz.analyses.metric_choice.metric_report`), from
    the runs under the three bounding orders."""
    from rankviz.analyses import metric_choice

    if len(study.run_names) < 2:
        raise OptionError("metrics-report compares measures on two or more runs")
    tables = {name: study.tables(ties=name) for name in BOUNDS}
    return metric_choice.metric_report(
        tables,
        list(study.measures),
        study.settings,
        options,
        task=task,
        groups=study.groups,
        weights=study.weights,
        every_candidate=every_candidate,
    )


def protocol(study: Study) -> pd.DataFrame:
    """Each group of queries scored by the collection's protocol measure, and their macro
    mean."""
    from rankviz.analyses.protocol import protocol_values

    collection = study.collection
    if collection is None or collection.config.protocol is None or study.groups is None:
        raise OptionError(
            "--protocol needs a collection folder whose collection.toml has a [protocol] table"
        )
    return protocol_values(study.tables(), study.groups, collection.config.protocol, study.settings)


TIE_REPORT = Question(tie_report, Reads.RANKINGS)
UNJUDGED_REPORT = Question(unjudged_report, Reads.RANKINGS)
RANK_REPORT = Question(rank_report, Reads.RANKINGS)
ALIGNED = Question(aligned, Reads.RANKINGS)
OVERLAP = Question(overlap, Reads.RANKINGS, follows=Follows.ORDER)
PRECISION_RECALL = Question(precision_recall, Reads.RANKINGS)
INFER_TASK = Question(infer_task, Reads.RANKINGS)
METRIC_REPORT = Question(metric_report, Reads.RANKINGS)
PROTOCOL = Question(protocol, Reads.RANKINGS)
