"""A study: qrels, runs, measures and settings opened once, then asked for every number and report.

The command line (flags -> :meth:`Study.open` -> a report -> a renderer), the app (widgets -> a
:class:`Study` -> cached report calls -> the page) and the API ask the same object, so a
collection's defaults, the meeting's judgments, coverage warnings, the tie policies' orders and each
report's inputs are decided here once. The app hands in its own :data:`Orderer` (its cache of
ranking tables); nothing else differs between the front ends.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence, Set
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from rankviz.analyses.checks import TOP_K
from rankviz.engines import Progress, RunSource, evaluate_sources, file_size
from rankviz.errors import OptionError
from rankviz.evaluate import evaluate_tables, revised
from rankviz.evaluation import Evaluation
from rankviz.io.collection import Collection
from rankviz.io.groups import QueryGroups, coverage, group_of
from rankviz.io.meeting import MeetingStore
from rankviz.io.model import Qrels, Run
from rankviz.io.readers import read_run
from rankviz.measures import Measure
from rankviz.opening import open_inputs
from rankviz.ranking import RankingTable, chance_table, rank, retagged
from rankviz.regrading import regrade
from rankviz.report_settings import MetricSettings, TieReportSettings, UnjudgedSettings
from rankviz.run_facts import RunFacts, gather, sample_stride
from rankviz.settings import NO_CUT, EngineSettings, EvalSettings, RunCut, TestSettings
from rankviz.tie_policy import BOUNDS, EXPECTED, TREC_EVAL, TiePolicy, policy

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

#: How a run's ranking table under a tie policy and a cut is built: ``(run, qrels, ties, cut) ->
#: table``.
Ties = str | TiePolicy  # a policy, or its name (the API's convenience; the settings hold the value)
Orderer = Callable[[Run, Qrels, TiePolicy, RunCut], RankingTable]


def ordered(
    run: Run,
    qrels: Qrels,
    ties: TiePolicy,
    cut: RunCut = NO_CUT,
    *,
    like: RankingTable | None = None,
    changed: Set[str] | None = None,
) -> RankingTable:
    """A run's ranking table under a policy that builds its own order (see :meth:`Study.table` for
    the others).

    ``like``: the same run's table under qrels these only re-grade (same queries): its order is kept
    and only the grades of all queries (or of the ``changed`` ones alone) are looked up again."""
    if like is not None and ties.regradable and like.ties == ties and like.cut == cut:
        return regrade(like, run, qrels, queries=changed)
    return rank(run, qrels, ties=ties, cut=cut)


def fresh(run: Run, qrels: Qrels, ties: TiePolicy, cut: RunCut) -> RankingTable:
    """The orderer that keeps nothing: a study given other qrels must use it (a cache keys on its
    qrels)."""
    return rank(run, qrels, ties=ties, cut=cut)


@dataclass(frozen=True, eq=False)
class Study:
    """Runs against qrels under one set of conventions. Build it with :meth:`open` (files, a
    collection folder, the meeting's judgments) or directly from objects already read."""

    qrels: Qrels
    runs_given: Mapping[str, Run] = field(default_factory=dict)
    measures: tuple[Measure, ...] = ()
    settings: EvalSettings = field(default_factory=EvalSettings)
    collection: Collection | None = None
    groups: QueryGroups | None = None
    weights: Mapping[str, float] | None = None
    # run files read when first asked for (an engine may stream them instead)
    sources: tuple[RunSource, ...] = ()
    # what opening found worth saying: coverage gaps, the judgments in force
    notes: tuple[str, ...] = ()
    orderer: Orderer = fresh
    # the meeting's record whose judgments are in force (opened with ``judgments``)
    record: MeetingStore | None = None

    # --- opening ----------------------------------------------------------------------------------

    @classmethod
    def open(
        cls,
        qrels: str | Path,
        runs: Sequence[str | Path] = (),
        *,
        measures: Sequence[str | Measure] | None = None,
        judgments: str | None = None,
        qrels_in_force: str | None = None,
        groups: str | None = None,
        aggregate: str | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> Study:
        """A study of files (:func:`rankviz.opening.open_inputs`).

        Parameters
        ----------
        qrels
            A qrels file, a collection folder (its qrels, its runs unless ``runs`` names some, its
            conventions, measures, groups and weights as defaults) or ``irds:DATASET_ID``.
        runs
            Run files, or names of a collection's runs.
        measures
            Measure names (default: the collection's, else
            :data:`~rankviz.settings.DEFAULT_MEASURES`).
        judgments
            A meeting record ("" for the collection's own), whose judgments are put in force
            unless ``qrels_in_force`` says otherwise.
        qrels_in_force
            ``file``, ``meeting``, ``NAME`` or ``file+NAME``
            (:data:`~rankviz.in_force.QRELS_IN_FORCE`).
        groups
            A query groups file (default: the collection's).
        aggregate
            ``query``, ``macro`` or ``weights[:FILE]``.
        options
            Evaluation options by name (``{"rel": 2, "ties": "expected"}``), over the collection's.

        Returns
        -------
        The study, with what opening found worth saying in :attr:`notes`.
        """
        opened = open_inputs(
            qrels,
            runs,
            measures=measures,
            judgments=judgments,
            qrels_in_force=qrels_in_force,
            groups=groups,
            aggregate=aggregate,
            options=options,
        )
        study = cls(
            opened.qrels,
            {},
            opened.measures,
            opened.settings,
            opened.collection,
            opened.groups,
            opened.weights,
            opened.sources,
            opened.notes,
            record=opened.record,
        )
        return dataclasses.replace(study, notes=(*study.notes, *study.coverage_notes()))

    # --- runs and their orders
    # ------------------------------------------------------------------------

    @functools.cached_property
    def runs(self) -> Mapping[str, Run]:
        """The runs by name: those given (as given: a mapping may open each run when asked), then
        the run files read (once)."""
        if not self.sources:
            return self.runs_given
        return {
            **self.runs_given,
            **{source.name: read_run(source.path, name=source.name) for source in self.sources},
        }

    @property
    def run_names(self) -> list[str]:
        return [*self.runs_given, *(source.name for source in self.sources)]

    def table(self, name: str, ties: Ties | None = None, cut: RunCut | None = None) -> RankingTable:
        """A run's ranking table under a tie policy and a cut (the study's by default). Random
        orders are drawn from trec_eval's table when measured; ``expected`` measures trec_eval's
        arrays with the closed forms: only the policies that build their own order reach the
        orderer."""
        rule = policy(ties or self.settings.ties).ranked_as
        cut = self.settings.cut if cut is None else cut
        if rule.table_policy != rule:
            return retagged(self.table(name, rule.table_policy, cut), rule)
        return self.orderer(self.runs[name], self.qrels, rule, cut)

    def tables(
        self,
        names: Sequence[str] | None = None,
        ties: Ties | None = None,
        cut: RunCut | None = None,
    ) -> dict[str, RankingTable]:
        return {name: self.table(name, ties, cut) for name in (names or self.run_names)}

    def _one_at_a_time(
        self,
        names: Sequence[str] | None = None,
        ties: Ties | None = None,
        cut: RunCut | None = None,
    ) -> Iterable[tuple[str, RankingTable]]:
        """(name, table) pairs built as they are consumed: one table alive at a time, unless the
        orderer keeps them."""
        return ((name, self.table(name, ties, cut)) for name in (names or self.run_names))

    # --- numbers
    # ------------------------------------------------------------------------------------

    def evaluation(
        self,
        names: Sequence[str] | None = None,
        *,
        ties: Ties | None = None,
        measures: Sequence[Measure] | None = None,
        engine: EngineSettings | None = None,
        progress: Progress | None = None,
        check_k: int | None = None,
        **changes: Any,
    ) -> Evaluation:
        """Every run (or ``names``) under the study's settings (``ties`` and ``changes`` replaced).
        With ``engine``, run files not yet read are evaluated by that engine (streamed, in blocks or
        on Dask) instead of being ranked here. ``check_k``: gather what :meth:`check` needs in the
        same pass (its top K)."""
        settings = self.settings.replace(**({"ties": ties} if ties else {}), **changes)
        chosen = list(measures or self.measures)
        if (
            engine is not None
            and self.sources
            and not self.runs_given
            and names is None
            and "runs" not in self.__dict__
        ):
            return evaluate_sources(
                self.qrels,
                list(self.sources),
                chosen,
                settings,
                engine,
                groups=self.groups,
                weights=self.weights,
                progress=progress,
                check_k=check_k,
            )
        facts: dict[str, RunFacts] = {}
        tables = self._one_at_a_time(names, settings.ties, settings.cut)
        if check_k is not None:
            tables = self._with_facts(tables, facts, check_k, settings.rel)
        result = evaluate_tables(
            tables,
            chosen,
            settings,
            qrels_qids=self.qrels.query_ids,
            groups=self.groups,
            weights=self.weights,
        )
        return dataclasses.replace(result, facts=facts) if check_k is not None else result

    def _with_facts(
        self,
        tables: Iterable[tuple[str, RankingTable]],
        facts: dict[str, RunFacts],
        k: int,
        rel: int,
    ) -> Iterator[tuple[str, RankingTable]]:
        """The (name, table) pairs, each run's facts gathered into ``facts`` on the way."""
        for name, table in tables:
            run = self.runs[name]
            facts[name] = gather(
                run, table, self.qrels.doc_ids, k=k, rel=rel, stride=sample_stride(len(run))
            )
            yield name, table

    def revised(
        self,
        previous: Evaluation,
        queries: Iterable[str],
        names: Sequence[str] | None = None,
        ties: Ties | None = None,
    ) -> Evaluation | None:
        """``previous`` (an evaluation of these runs under older qrels) with ``queries`` evaluated
        again: what a new judgment costs; None when it cannot be revised."""
        return revised(previous, self.tables(names, ties), queries)

    def chance(self, names: Sequence[str] | None = None) -> Evaluation:
        """Each run's chance level: its retrieved documents of each query in a random order, exactly
        (:func:`rankviz.ranking.chance_table`, measured with the ``expected`` closed forms)."""
        settings = self.settings.replace(ties=EXPECTED)
        tables = (
            (name, chance_table(table)) for name, table in self._one_at_a_time(names, TREC_EVAL)
        )
        return evaluate_tables(
            tables,
            list(self.measures),
            settings,
            qrels_qids=self.qrels.query_ids,
            groups=self.groups,
            weights=self.weights,
        )

    def chance_revised(
        self, previous: Evaluation, queries: Iterable[str], names: Sequence[str] | None = None
    ) -> Evaluation | None:
        tables = {
            name: chance_table(table) for name, table in self.tables(names, TREC_EVAL).items()
        }
        return revised(previous, tables, queries)

    def compare(self, test: TestSettings, *, evaluation: Evaluation | None = None) -> Comparison:
        """Every run against the baseline on every measure
        (:func:`rankviz.analyses.comparisons.compare`)."""
        from rankviz.analyses.comparisons import compare

        return compare(evaluation or self.evaluation(), test)

    def standings(
        self,
        test: TestSettings,
        *,
        evaluation: Evaluation | None = None,
        measures: Sequence[Measure] | None = None,
    ) -> Standings:
        """Each run's rank, rank interval and Tukey group per measure
        (:mod:`rankviz.analyses.standings`)."""
        from rankviz.analyses.standings import standings

        return standings(evaluation or self.evaluation(), test, measures=measures)

    def test_settings(self, baseline: str | None = None, **given: Any) -> TestSettings:
        """The test in force; ``baseline`` must be one of the runs (default: the first)."""
        if baseline is not None and baseline not in self.run_names:
            raise OptionError(
                f"--baseline {baseline!r} is not among the runs ({', '.join(self.run_names)})"
            )
        return TestSettings(**given, baseline=baseline)

    # --- reports
    # --------------------------------------------------------------------------------------

    def tie_report(
        self,
        test: TestSettings | None = None,
        options: TieReportSettings | None = None,
        *,
        rng: np.random.Generator | int | None = None,
    ) -> TieReport:
        """Every run under every report policy (:func:`rankviz.analyses.ties.tie_report`)."""
        from rankviz.analyses.ties import report_from_tables

        return report_from_tables(
            lambda ties: self._one_at_a_time(ties=ties),
            list(self.measures),
            self.settings,
            test,
            options,
            groups=self.groups,
            weights=self.weights,
            rng=rng,
        )

    def unjudged_report(
        self, test: TestSettings | None = None, options: UnjudgedSettings | None = None
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

    def meeting_report(
        self,
        store: MeetingStore,
        *,
        file_study: Study,
        test: TestSettings | None = None,
        k: int = 10,
    ) -> MeetingReport:
        """What the meeting decided (:mod:`rankviz.analyses.meeting_report`): this study has the
        meeting's judgments in force, ``file_study`` the same runs with the qrels file alone; the
        baseline is the test's (the first run by default), against the next run."""
        from rankviz.analyses.meeting_report import (
            MeetingReport,
            discussed_query,
            means_with_verdicts,
        )

        names = self.run_names
        if len(names) < 2:
            raise OptionError("the meeting's report compares two runs: give at least two")
        test = test or self.test_settings()
        baseline = test.baseline or names[0]
        run = next(n for n in names if n != baseline)
        before, after = file_study.evaluation(), self.evaluation()
        means = means_with_verdicts(
            before,
            after,
            file_study.compare(test, evaluation=before),
            self.compare(test, evaluation=after),
        )
        judged = store.latest_judgments()
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
        tables = self.tables([baseline, run])
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
            name, tuple(self.conventions()), baseline, run, means, tuple(queries), len(judged)
        )

    def rank_report(self) -> RankReport:
        """Where each run puts the relevant documents
        (:func:`rankviz.analyses.deltas.rank_report`)."""
        from rankviz.analyses.deltas import rank_report

        return rank_report(self.tables(), self.settings.rel)

    def facts(self, k: int = TOP_K) -> dict[str, RunFacts]:
        """What the checks need of each run (:mod:`rankviz.run_facts`), from its table in
        trec_eval's order."""
        facts: dict[str, RunFacts] = {}
        for _ in self._with_facts(self._one_at_a_time(ties=TREC_EVAL), facts, k, self.settings.rel):
            pass
        return facts

    def check(
        self,
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

    def infer_task(self, k: int) -> Task:
        """The task's answers guessed from the qrels (:func:`rankviz.analyses.task.infer_task`)."""
        from rankviz.analyses.task import infer_task

        first = self.run_names[0]
        return infer_task({first: self.table(first, TREC_EVAL)}, rel=self.settings.rel, top_k=k)

    def metric_report(
        self,
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

    def protocol(self):
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

    def thinly_judged(self, k: int, names: Sequence[str] | None = None) -> dict[str, float]:
        """The runs whose top K the qrels judge less than
        :data:`~rankviz.analyses.unjudged.JUDGED_WARNING`."""
        from rankviz.analyses.unjudged import JUDGED_WARNING, judged_share

        shares = {name: judged_share(table, k) for name, table in self._one_at_a_time(names)}
        return {name: share for name, share in shares.items() if share < JUDGED_WARNING}

    def conventions(self) -> list[str]:
        return self.settings.conventions()

    def coverage_notes(self) -> list[str]:
        """What the groups file (under ``group_by``) and the weights leave out of the judged
        queries, or give extra."""
        notes = []
        if self.settings.group_by is not None and self.groups is not None:
            notes += coverage(self.groups.frame.index, self.qrels.query_ids).messages(
                self.groups.source
            )
        if self.weights is not None and self.settings.aggregate == "weights":
            notes += coverage(list(self.weights), self.qrels.query_ids).messages("the weights file")
        return notes

    def group_of(self, qids: Sequence[str]) -> pd.Series | None:
        """Each query's group under the settings' ``group_by`` (None without grouping)."""
        if self.settings.group_by is None or self.groups is None:
            return None
        return group_of(self.groups, self.settings.group_by, qids)

    def bytes_to_read(self) -> int:
        """The size of the run files not read yet (a progress bar's total)."""
        return (
            0 if "runs" in self.__dict__ else sum(file_size(source.path) for source in self.sources)
        )
