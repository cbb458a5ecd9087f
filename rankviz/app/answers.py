"""What a page asks the frame beyond its numbers: the reports and the questions of
:class:`~rankviz.study.run_study.Study`, each kept in the app's caches (:mod:`rankviz.app.compute`)
under the content keys of its inputs. :class:`Answers` is the half of
:class:`~rankviz.app.context.Context` that asks them; :class:`Framed` is what it asks of the other.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pandas as pd

from rankviz.analyses.checks import TOP_K
from rankviz.app import compute
from rankviz.app.compute import PASS_WORKERS, settings_text
from rankviz.app.framed import Framed
from rankviz.app.progressing import counted
from rankviz.measures import Measure
from rankviz.settings.eval_settings import EvalSettings
from rankviz.settings.report_settings import MetricSettings, TieReportSettings, UnjudgedSettings
from rankviz.settings.significance_settings import TestSettings

if TYPE_CHECKING:
    from rankviz.analyses.deltas import PairDeltas
    from rankviz.analyses.task import Task


class Answers:
    """The cached reports and questions of a page (mixed into the frame's context)."""

    def paired_tests(
        self: Framed, measure: Measure, tests: TestSettings, *, verdict: bool = False
    ) -> pd.DataFrame:
        """:meth:`Study.paired_tests <rankviz.study.run_study.Study.paired_tests>` of the selected
        runs, kept under the measure's values."""
        values = self.matrix(measure, complete=False)
        details = (str(measure), settings_text(tests), tests.baseline, verdict)
        study, evaluation = self.study(), self.evaluation()
        ask = lambda: study.paired_tests(measure, tests, evaluation=evaluation, verdict=verdict)  # noqa: E731
        return compute.on_values("paired tests", values, details, _ask=ask)

    def anova(self: Framed, measure: Measure, confidence_level: float):
        """The two-way ANOVA of the selected runs on ``measure``, kept under its values."""
        values = self.matrix(measure, complete=False)
        study, evaluation = self.study(), self.evaluation()
        ask = lambda: study.anova(  # noqa: E731
            measure, confidence_level=confidence_level, evaluation=evaluation
        )
        return compute.on_values("anova", values, (str(measure), confidence_level), _ask=ask)

    def feature_report(self: Framed, measure: Measure, run: str, baseline: str):
        """``run``'s per-query delta against ``baseline`` on ``measure`` against the queries'
        features, at the frame's K (:meth:`rankviz.study.run_study.Study.feature_report`)."""
        details = (str(measure), run, baseline, self.k)
        build = lambda: self.study().feature_report(measure, run, baseline, k=self.k)  # noqa: E731
        return compute.report("features", self.key(), details, build)

    def reproduction(self: Framed, original: list[str], reproduced: list[str]):
        """The reproduction of ``original`` (baseline, advanced) by ``reproduced``, on the frame's
        measures (:meth:`rankviz.study.run_study.Study.reproduction`)."""
        names = [*original, *reproduced]
        build = lambda: self.study(names).reproduction(original, reproduced)  # noqa: E731
        return compute.report("repro", self.key(names), (), build)

    def run_headers(self: Framed) -> dict[str, tuple[str, ...]]:
        """The selected run files' comment lines at their tops (an ``ir_metadata`` block), read
        once per content of the files."""
        build = lambda: self.study().run_headers()  # noqa: E731
        return compute.report("run headers", self.key(), (), build)

    def paired_tests_by_group(self: Framed, measure: Measure, tests: TestSettings) -> pd.DataFrame:
        """The paired tests within each group of the frame's "group by", with their verdicts."""
        values = self.matrix(measure, complete=False)
        details = (str(measure), settings_text(tests), tests.baseline, self.grouping)
        study, evaluation = self.study(), self.evaluation()
        ask = lambda: study.paired_tests_by_group(measure, tests, evaluation=evaluation)  # noqa: E731
        return compute.on_values("paired tests by group", values, details, _ask=ask)

    def beats(self: Framed, tests: TestSettings) -> pd.DataFrame:
        """Runs x measures: the selected runs each one is significantly better than (every pair
        tested, the tests cached as the Significance page's all-pairs heatmap caches them)."""
        every = tests.replace(pairs="all")
        tables = {str(m): Answers.paired_tests(self, m, every) for m in self.measures}
        return self.study().beats(tests, tables=tables)

    def effect_sizes(self: Framed, measure: Measure, baseline: str) -> pd.DataFrame:
        values = self.matrix(measure, complete=False)
        study, evaluation = self.study(), self.evaluation()
        ask = lambda: study.effect_sizes(measure, baseline, evaluation=evaluation)  # noqa: E731
        return compute.on_values("effect sizes", values, (str(measure), baseline), _ask=ask)

    def queries_needed(
        self: Framed, measure: Measure, baseline: str, difference: float, alpha: float
    ) -> pd.Series:
        study, evaluation = self.study(), self.evaluation()
        return study.queries_needed(
            measure, baseline, difference, alpha=alpha, evaluation=evaluation
        )

    def pair(self: Framed, measure: Measure, baseline: str, run: str) -> PairDeltas:
        """Two of the selected runs on one measure, query by query."""
        names = [baseline, run]
        return self.study(names).pair(measure, baseline, run, evaluation=self.evaluation(names))

    def aligned(self: Framed, baseline: str, run: str, qid: str, depth: int) -> pd.DataFrame:
        """One query's two rankings side by side (from the cached ranking tables)."""
        return self.study([baseline, run]).aligned(baseline, run, qid, depth)

    def overlap(self: Framed, baseline: str, run: str) -> pd.Series:
        """Rank-biased overlap of two runs' rankings of every query under the frame's policy."""
        ties = self.settings.ties
        key = ((self.run_keys[baseline], self.run_keys[run]), self.order_key(ties), ties)
        study = self.study([baseline, run])
        return compute.overlap(key, lambda: study.overlap(baseline, run))

    def task_of(self: Framed) -> Task:
        """The task's answers guessed from the qrels and the selected runs' top K."""
        return self.study().infer_task(self.k, self.selected)

    def tie_report(self: Framed, trials: int, seed: int):
        """The Ties report of the selected runs: every run under every deterministic policy,
        ``trials``
        random orders drawn with ``seed``, verdicts under the test in force."""
        tests, options = self.test_settings(), TieReportSettings(k=self.k, trials=trials)
        details = (settings_text(options), seed, settings_text(tests), tests.baseline)

        def build():
            with counted(len(self.selected), "Runs under every tie order") as progress:
                return self.study().tie_report(
                    tests, options, rng=seed, progress=progress, runs_at_once=PASS_WORKERS
                )

        return compute.report("ties", self.key(), details, build)

    def unjudged_report(self: Framed, grade: int):
        """The Unjudged documents report of the selected runs and measures at the frame's K."""
        tests, options = self.test_settings(), UnjudgedSettings(k=self.k, grade=grade)
        details = (settings_text(options), settings_text(tests), tests.baseline)
        return compute.report(
            "unjudged", self.key(), details, lambda: self.study().unjudged_report(tests, options)
        )

    def standings(self: Framed, measure: Measure):
        """The selected runs' ranks, rank intervals and Tukey groups on ``measure``, under the test
        in force (its seed, resamples, confidence level and alpha): drawn once per qrels, runs and
        settings."""
        tests = self.test_settings()
        details = (str(measure), settings_text(tests))

        def build():
            with counted(tests.n_resamples, "Tukey HSD resamples (at most)") as progress:
                return self.study().standings(
                    tests, evaluation=self.evaluation(), measures=[measure], progress=progress
                )

        return compute.report("standings", self.key(), details, build)

    def precision_recall(self: Framed):
        """The selected runs' interpolated precision-recall curves
        (:meth:`rankviz.study.run_study.Study.precision_recall`), once per qrels, runs and
        settings."""
        return compute.report(
            "precision_recall", self.key(), (), lambda: self.study().precision_recall()
        )

    def figure(self: Framed, names: list[str], details: tuple, build: Callable[[], Any]) -> Any:
        """A figure of these runs' results (``details``: what else it shows), built once per key: a
        chart of thousands of queries is not built again on every rerun (Next, a note, a judgment
        elsewhere)."""
        return compute.report("figure", self.key(names), details, build)

    def check(self: Framed):
        """The checks of the selected runs (:meth:`rankviz.study.run_study.Study.check`) against the
        qrels file: how runs and qrels fit does not move with the meeting's judgments, nor with K or
        the measures, so the runs' facts are gathered once and a judgment or a new K costs a few
        milliseconds."""
        source = self.with_qrels("file")
        counted = EvalSettings(
            rel=self.settings.rel,
            depth=self.settings.depth,
            ignore_identical_ids=self.settings.ignore_identical_ids,
        )  # what the facts depend on
        key = dataclasses.replace(source.key(settings=counted), measures=(), grouping="")
        if self.passing() and self._facts_k() is not None:  # each run's pass gathered them
            facts = {n: p.facts for n, p in self.passes().items()}
        else:
            facts = compute.report("facts", key, (TOP_K,), lambda: source.study().facts(TOP_K))
        return compute.report(
            "checks", source.key(), (TOP_K,), lambda: source.study().check(TOP_K, facts=facts)
        )

    def meeting_report(self: Framed, pair: tuple[str, str]):
        """What the meeting decided (:meth:`rankviz.study.run_study.Study.meeting_report`): the
        selected runs with the meeting's judgments against the qrels file alone, of the ``pair`` the
        meeting discussed (baseline, run), cached on the record's identity and version."""
        meeting = self.meeting
        if meeting is None or meeting.store is None:
            raise ValueError("no meeting's record to report on")
        with_record, file_only, tests = (
            self.with_qrels("meeting"),
            self.with_qrels("file"),
            self.test_settings(),
        )
        details = (settings_text(tests), pair, meeting.identity, meeting.version)
        store = meeting.store
        build = lambda: with_record.study().meeting_report(  # noqa: E731
            store, file_study=file_only.study(), test=tests, pair=pair
        )
        return compute.report("meeting", with_record.key(), details, build)

    def values_evidence(self: Framed, test: str):
        """What the selected runs' values say of the chosen measures (scores alone: the Metric
        choice page's evidence without the task), seeded as :meth:`metric_report`."""
        options = MetricSettings(k=self.k, test=test, seed=0)
        build = lambda: self.study().values_evidence(options)  # noqa: E731
        return compute.report("values evidence", self.key(), settings_text(options), build)

    def metric_report(self: Framed, test: str):
        """The Metric choice evidence of the selected runs and measures, and of every measure some
        answer about the task would recommend, so a changed answer needs no new computation (seeded:
        the page is reproducible)."""
        options = MetricSettings(k=self.k, test=test, seed=0)
        build = lambda: self.study().metric_report(options, every_candidate=True)  # noqa: E731
        return compute.report("metrics", self.key(), settings_text(options), build)
