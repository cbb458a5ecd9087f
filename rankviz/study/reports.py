"""The reports a study answers: ties, unjudged documents, the meeting, checks, metric choice.

:class:`Reports` is the half of :class:`~rankviz.study.run_study.Study` that turns its ranking
tables and evaluations into the reports of :mod:`rankviz.analyses` (the other half decides the
inputs and computes the numbers). Each method asks :class:`Asked`, what a study offers its reports.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Protocol

import numpy as np

from rankviz.analyses.checks import TOP_K
from rankviz.errors import OptionError
from rankviz.evaluation.result import Evaluation
from rankviz.evaluation.run_facts import RunFacts
from rankviz.io.collection import Collection
from rankviz.io.groups import QueryGroups
from rankviz.io.meeting import MeetingStore
from rankviz.io.model import Qrels, Run
from rankviz.measures import Measure
from rankviz.ranking.ranking_table import RankingTable
from rankviz.ranking.regrading import Keeping, LastRunKept, Orderer, differing_queries
from rankviz.settings.eval_settings import EvalSettings, RunCut
from rankviz.settings.report_settings import MetricSettings, TieReportSettings, UnjudgedSettings
from rankviz.settings.significance_settings import TestSettings
from rankviz.settings.tie_policy import BOUNDS, TREC_EVAL, TiePolicy
from rankviz.study.capability import needs_rankings

if TYPE_CHECKING:
    import pandas as pd

    from rankviz.analyses.checks import CheckReport
    from rankviz.analyses.comparisons import Comparison
    from rankviz.analyses.deltas import RankReport
    from rankviz.analyses.meeting_report import MeetingReport
    from rankviz.analyses.metric_choice import MetricReport
    from rankviz.analyses.standings import Standings
    from rankviz.analyses.task import Task
    from rankviz.analyses.ties import TieReport
    from rankviz.analyses.unjudged import UnjudgedReport
    from rankviz.analyses.values_evidence import ValuesEvidence


class Asked(Protocol):
    """What a study offers its reports (:class:`~rankviz.study.run_study.Study` is one)."""

    @property
    def qrels(self) -> Qrels: ...
    @property
    def measures(self) -> tuple[Measure, ...]: ...
    @property
    def settings(self) -> EvalSettings: ...
    @property
    def collection(self) -> Collection | None: ...
    @property
    def groups(self) -> QueryGroups | None: ...
    @property
    def weights(self) -> Mapping[str, float] | None: ...
    @property
    def run_names(self) -> list[str]: ...
    @property
    def runs(self) -> Mapping[str, Run]: ...
    @property
    def orderer(self) -> Orderer: ...

    def table(
        self, name: str, ties: str | TiePolicy | None = None, cut: RunCut | None = None
    ) -> RankingTable: ...
    def tables(
        self,
        names: Sequence[str] | None = None,
        ties: str | TiePolicy | None = None,
        cut: RunCut | None = None,
    ) -> dict[str, RankingTable]: ...
    def _one_at_a_time(
        self,
        names: Sequence[str] | None = None,
        ties: str | TiePolicy | None = None,
        cut: RunCut | None = None,
    ) -> Iterable[tuple[str, RankingTable]]: ...
    def _with_facts(
        self,
        tables: Iterable[tuple[str, RankingTable]],
        facts: dict[str, RunFacts],
        k: int,
        rel: int,
    ) -> Iterator[tuple[str, RankingTable]]: ...
    def evaluation(self) -> Evaluation: ...
    def sharing(self, orderer: Orderer, *, runs: Mapping[str, Run] | None = None) -> Asked: ...
    def compare(
        self, test: TestSettings, *, evaluation: Evaluation | None = None
    ) -> Comparison: ...
    def test_settings(self) -> TestSettings: ...
    def conventions(self) -> list[str]: ...
    def group_of(self, qids: Sequence[str]) -> pd.Series | None: ...
    def facts(self, k: int = TOP_K) -> dict[str, RunFacts]: ...


class Reports:
    """The reports of a study (mixed into :class:`~rankviz.study.run_study.Study`)."""

    @needs_rankings
    def tie_report(
        self: Asked,
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

        study = self.sharing(LastRunKept(self.orderer))
        return report_from_tables(
            study.table,
            study.run_names,
            list(self.measures),
            self.settings,
            test,
            options,
            groups=self.groups,
            weights=self.weights,
            rng=rng,
            progress=progress,
            runs_at_once=runs_at_once,
        )

    @needs_rankings
    def unjudged_report(
        self: Asked, test: TestSettings | None = None, options: UnjudgedSettings | None = None
    ) -> UnjudgedReport:
        """Each run with its unjudged top-K documents non-relevant and relevant
        (:mod:`rankviz.analyses.unjudged`)."""
        from rankviz.analyses.unjudged import report_from_tables

        return report_from_tables(
            self._one_at_a_time(),
            list(self.measures),
            self.settings,
            test,
            options,
            groups=self.groups,
            weights=self.weights,
        )

    @needs_rankings
    def meeting_report(
        self: Asked,
        store: MeetingStore,
        *,
        file_study: Asked,
        test: TestSettings | None = None,
        k: int = 10,
        pair: tuple[str, str] | None = None,
    ) -> MeetingReport:
        """What the meeting decided (:mod:`rankviz.analyses.meeting_report`): this study has the
        meeting's judgments in force, ``file_study`` the same runs with the qrels file alone;
        ``pair``: the baseline and the run the meeting discussed (its rankings, verdicts and
        ranks in the report), by default the test's baseline (the first run) and the next run."""
        from rankviz.analyses.meeting_report import (
            MeetingReport,
            discussed_query,
            means_with_verdicts,
        )

        names = self.run_names
        if len(names) < 2:
            raise OptionError("the meeting's report compares two runs: give at least two")
        test = test or self.test_settings()
        if pair is not None:
            unknown = [n for n in pair if n not in names]
            if unknown or pair[0] == pair[1]:
                raise OptionError(
                    f"the meeting's pair is two of the runs ({', '.join(names)}), not {pair}"
                )
            test = dataclasses.replace(test, baseline=pair[0])
        baseline = test.baseline or names[0]
        run = pair[1] if pair is not None else next(n for n in names if n != baseline)
        judged = store.latest_judgments()
        # every run read and ranked once, re-graded for the file's qrels where the two differ
        changed = differing_queries(file_study.qrels, self.qrels)
        keeping = Keeping(self.orderer, names, changed=changed)
        meeting = self.sharing(keeping)
        file_study = file_study.sharing(keeping, runs=meeting.runs)
        after, before = meeting.evaluation(), file_study.evaluation()
        means = means_with_verdicts(
            before,
            after,
            file_study.compare(test, evaluation=before),
            meeting.compare(test, evaluation=after),
        )
        tags, notes = store.tags(), store.notes()
        touched = sorted({q for q, _ in judged} | set(tags) | set(notes))
        frame = file_study.qrels.to_frame()
        file_grades = dict(
            zip(
                zip(frame["qid"].astype(str), frame["docid"].astype(str)),
                map(int, frame["rel"]),
                strict=True,
            )
        )
        tables = meeting.tables([baseline, run])
        texts = self.collection.queries if self.collection else {}
        docs = self.collection.docs if self.collection else None

        def titles(docids: list[str]) -> dict[str, str]:
            found = docs.get(docids) if docs is not None else {}
            return {d: r.get("title") or r.get("text", "")[:160] for d, r in found.items()}

        queries = [
            discussed_query(
                qid,
                texts.get(qid, ""),
                tables,
                baseline,
                run,
                k=k,
                file_grades=file_grades,
                judged=judged,
                titles=titles,
                tags=tags.get(qid, []),
                note=notes.get(qid, ""),
                history=store.history(qid),
            )
            for qid in touched
        ]
        name = self.collection.config.name if self.collection else str(self.qrels.source)
        return MeetingReport(
            name,
            tuple(self.conventions()),
            baseline,
            run,
            means,
            tuple(queries),
            len(judged),
            store.provenance(),
            store.lock_state(),
        )

    def rank_report(self: Asked) -> RankReport:
        """Where each run puts the relevant documents
        (:func:`rankviz.analyses.deltas.rank_report`)."""
        from rankviz.analyses.deltas import rank_report

        return rank_report(self.tables(), self.settings.rel)

    @needs_rankings
    def facts(self: Asked, k: int = TOP_K) -> dict[str, RunFacts]:
        """What the checks need of each run (:mod:`rankviz.evaluation.run_facts`), from its table in
        trec_eval's order."""
        facts: dict[str, RunFacts] = {}
        for _ in self._with_facts(self._one_at_a_time(ties=TREC_EVAL), facts, k, self.settings.rel):
            pass
        return facts

    @needs_rankings
    def check(
        self: Asked,
        k: int = TOP_K,
        *,
        evaluation: Evaluation | None = None,
        facts: Mapping[str, RunFacts] | None = None,
    ) -> CheckReport:
        """The mistakes that change what the numbers mean (:func:`rankviz.analyses.checks.check`):
        from
        ``facts`` (:meth:`facts`), or those ``evaluation`` gathered (``check_k=k``), else the runs'
        own."""
        from rankviz.analyses.checks import check

        if facts is None:
            facts = (
                evaluation.facts
                if evaluation is not None and evaluation.facts is not None
                else self.facts(k)
            )
        return check(facts, self.qrels, self.measures, self.settings, k=k)

    def infer_task(self: Asked, k: int, names: Sequence[str] | None = None) -> Task:
        """The task's answers guessed from the qrels and the top ``k`` of ``names`` (default: the
        first run) (:func:`rankviz.analyses.task.infer_task`)."""
        from rankviz.analyses.task import infer_task

        tables = self.tables(names or self.run_names[:1], TREC_EVAL)
        return infer_task(tables, rel=self.settings.rel, top_k=k)

    def metric_report(
        self: Asked,
        options: MetricSettings | None = None,
        *,
        task: Task | None = None,
        every_candidate: bool = False,
    ) -> MetricReport:
        """Which measure fits the task (:func:`rankviz.analyses.metric_choice.metric_report`), from
        the runs under the three bounding orders."""
        from rankviz.analyses.metric_choice import metric_report

        if len(self.run_names) < 2:
            raise OptionError("metrics-report compares measures on two or more runs")
        tables = {name: self.tables(ties=name) for name in BOUNDS}
        return metric_report(
            tables,
            list(self.measures),
            self.settings,
            options,
            task=task,
            groups=self.groups,
            weights=self.weights,
            every_candidate=every_candidate,
        )

    def values_evidence(self: Asked, options: MetricSettings | None = None) -> ValuesEvidence:
        """What the values alone say of the measures: metrics-report's evidence without the task
        and the stability that read qrels and rankings
        (:func:`rankviz.analyses.values_evidence.values_evidence`); all a study of scores has."""
        from rankviz.analyses.values_evidence import values_evidence

        if len(self.run_names) < 2:
            raise OptionError("metrics-report compares measures on two or more runs")
        return values_evidence(self.evaluation(), options)

    def protocol(self: Asked):
        """Each group of queries scored by the collection's protocol measure, and their macro
        mean."""
        from rankviz.analyses.protocol import protocol_values

        if (
            self.collection is None
            or self.collection.config.protocol is None
            or self.groups is None
        ):
            raise OptionError(
                "--protocol needs a collection folder whose collection.toml has a [protocol] table"
            )
        return protocol_values(
            self.tables(), self.groups, self.collection.config.protocol, self.settings
        )

    @needs_rankings
    def thinly_judged(self: Asked, k: int, names: Sequence[str] | None = None) -> dict[str, float]:
        """The runs whose top K the qrels judge less than
        :data:`~rankviz.analyses.unjudged.JUDGED_WARNING`."""
        from rankviz.analyses.unjudged import JUDGED_WARNING, judged_share

        shares = {name: judged_share(table, k) for name, table in self._one_at_a_time(names)}
        return {name: share for name, share in shares.items() if share < JUDGED_WARNING}

    @staticmethod
    def judged_share_measures(k: int) -> list[Measure]:
        """What :meth:`thinly_judged_in` reads: Judged@K and NumRet@K."""
        from rankviz.measures import parse

        return [parse(f"Judged@{k}"), parse(f"NumRet@{k}")]

    def thinly_judged_in(self: Asked, evaluation: Evaluation, k: int) -> dict[str, float]:
        """:meth:`thinly_judged` from an evaluation of :meth:`judged_share_measures` (which the
        meeting's judgments revise query by query, where the tables would be re-graded whole)."""
        from rankviz.analyses.unjudged import JUDGED_WARNING, judged_share_of

        judged, retrieved = Reports.judged_share_measures(k)
        shares = {
            name: judged_share_of(
                evaluation.matrix(judged, complete=False)[name].to_numpy(dtype=float),
                evaluation.matrix(retrieved, complete=False)[name].to_numpy(dtype=float),
            )
            for name in evaluation.runs
        }
        return {name: share for name, share in shares.items() if share < JUDGED_WARNING}

    def compare(
        self: Asked, test: TestSettings, *, evaluation: Evaluation | None = None
    ) -> Comparison:
        """Every run against the baseline on every measure
        (:func:`rankviz.analyses.comparisons.compare`)."""
        from rankviz.analyses.comparisons import compare

        return compare(evaluation or self.evaluation(), test)

    def standings(
        self: Asked,
        test: TestSettings,
        *,
        evaluation: Evaluation | None = None,
        measures: Sequence[Measure] | None = None,
        progress: Callable[[int], None] | None = None,
    ) -> Standings:
        """Each run's rank, rank interval and Tukey group per measure
        (:mod:`rankviz.analyses.standings`); ``progress`` is told the resamples done."""
        from rankviz.analyses.standings import standings

        return standings(
            evaluation or self.evaluation(), test, measures=measures, progress=progress
        )
