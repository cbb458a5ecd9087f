"""A study: the inputs opened once (qrels, runs or per-query scores, measures, conventions), their
ranking tables and their evaluation; every other number and report is a question asked of it
(:meth:`Study.ask` with an entry of :data:`rankviz.study.questions.QUESTIONS`).

Every front end opens it the same way, a :class:`~rankviz.study.request.StudyRequest` handed to
:meth:`Study.open`: the command line (flags -> request -> a question -> a renderer), the app
(widgets -> request -> cached questions -> the page) and the API (a request built with keywords),
so a collection's defaults, the qrels in force, the meeting's judgments, coverage warnings, the tie
policies' orders and each report's inputs are decided once. The app hands in its own
:class:`~rankviz.study.reading.Reading` (its caches of the files read) and shares its
:data:`~rankviz.ranking.regrading.Orderer` (its cache of ranking tables, :meth:`Study.sharing`);
nothing else differs between the front ends.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ParamSpec, TypeVar

from rankviz.errors import OptionError
from rankviz.evaluation.assembly import revised
from rankviz.evaluation.engines import evaluate_sources
from rankviz.evaluation.evaluate import evaluate_tables
from rankviz.evaluation.pieces import Progress, RunSource
from rankviz.evaluation.result import Evaluation
from rankviz.evaluation.run_facts import RunFacts, gather, sample_stride
from rankviz.io.collection import Collection
from rankviz.io.groups import QueryGroups, coverage, group_of
from rankviz.io.meeting import MeetingStore
from rankviz.io.model import Qrels, Run
from rankviz.io.readers import read_run
from rankviz.io.runs_when_asked import RunsWhenAsked
from rankviz.measures import Measure
from rankviz.ranking.ordering import graded_within_ties, retagged
from rankviz.ranking.ranking_table import RankingTable
from rankviz.ranking.regrading import Orderer, fresh
from rankviz.settings.engine_settings import EngineSettings
from rankviz.settings.eval_settings import EvalSettings, RunCut
from rankviz.settings.significance_settings import TestSettings
from rankviz.settings.tie_policy import TREC_EVAL, TiePolicy, policy
from rankviz.study.in_force import InForce
from rankviz.study.opening import open_inputs
from rankviz.study.question import Question
from rankviz.study.reading import FILES, Reading
from rankviz.study.request import StudyRequest
from rankviz.study.scores_opening import holds_scores, open_scores, scored_part

if TYPE_CHECKING:
    import pandas as pd

P = ParamSpec("P")
R = TypeVar("R")
Ties = str | TiePolicy  # a policy, or its name (the API's convenience; the settings hold the value)


@dataclass(frozen=True, eq=False)
class Study:
    """Runs against qrels, or per-query scores alone, under one set of conventions. Open it with
    :meth:`open`, or build it from objects already read.

    Parameters
    ----------
    qrels
        The qrels in force (none for a study of per-query scores alone).
    runs_given
        Runs already read, by name.
    measures
        The measures asked.
    settings
        The conventions in force.
    collection
        The collection folder it was opened from, if any.
    groups
        Query groups, for ``group_by`` and ``aggregate="macro"``.
    weights
        qid -> weight, for ``aggregate="weights"``.
    sources
        Run files read when first asked for (an engine may stream them instead).
    notes
        What opening found worth saying: coverage gaps, the judgments in force.
    orderer
        How a run's ranking table is built (:data:`rankviz.ranking.regrading.Orderer`).
    record
        The meeting's record whose judgments are in force (opened with ``judgments``).
    in_force
        The qrels in force as opening decided them, with the sentence that says which they are
        (None: built from objects, the qrels given).
    scored
        Per-query scores read from files (:mod:`rankviz.io.scores`), the study's numbers when it
        has no runs: then it has no rankings (:attr:`ranked` is False), and a question that reads
        them is refused by its entry.
    correction
        People's judgments that correct those in force (an LLM's), with the sentence that names
        them (``StudyRequest(correct_with=...)``; :mod:`rankviz.study.corrected_questions`).
    """

    qrels: Qrels
    runs_given: Mapping[str, Run] = field(default_factory=dict)
    measures: tuple[Measure, ...] = ()
    settings: EvalSettings = field(default_factory=EvalSettings)
    collection: Collection | None = None
    groups: QueryGroups | None = None
    weights: Mapping[str, float] | None = None
    sources: tuple[RunSource, ...] = ()
    notes: tuple[str, ...] = ()
    orderer: Orderer = fresh
    record: MeetingStore | None = None
    in_force: InForce | None = None
    scored: Evaluation | None = None
    correction: InForce | None = None

    @classmethod
    def open(cls, request: StudyRequest, *, reading: Reading = FILES) -> Study:
        """The study a request names: of runs and qrels, or of per-query scores alone when its
        first input holds them (a file of scores, or a collection folder of scores with no runs).

        Parameters
        ----------
        request
            Every input, as given (:class:`~rankviz.study.request.StudyRequest`:
            ``StudyRequest("qrels.txt", ["a.run", "b.run"], measures=["AP"])``).
        reading
            How the files are read (:class:`~rankviz.study.reading.Reading`: each when asked; a
            server's keeps what it read).

        Returns
        -------
        The study, with what opening found worth saying in :attr:`notes`.
        """
        if not isinstance(request, StudyRequest):
            raise TypeError(
                "Study.open takes a StudyRequest: Study.open(StudyRequest(qrels, runs, ...)), "
                f"not {type(request).__name__}"
            )
        opened = open_scores(request) if holds_scores(request) else open_inputs(request, reading)
        study = cls(**{f.name: getattr(opened, f.name) for f in dataclasses.fields(opened)})
        return dataclasses.replace(study, notes=(*study.notes, *study.coverage_notes()))

    def ask(self, question: Question[P, R], /, *args: P.args, **kwargs: P.kwargs) -> R:
        """The answer to ``question``, an entry of :data:`~rankviz.study.questions.QUESTIONS`
        (``study.ask(TIE_REPORT, test)``), given its own arguments; a question that reads the
        runs' rankings asked of a study without them is refused in one line, before it starts."""
        if question.needs_rankings and not self.ranked:
            raise self.without_rankings(question.name)
        return question.answer(self, *args, **kwargs)

    @property
    def ranked(self) -> bool:
        """Whether the runs' rankings are at hand (False for per-query scores alone)."""
        return self.scored is None

    def without_rankings(self, asked: str) -> OptionError:
        """What a question that reads rankings (``asked``) raises of a study without them."""
        runs = ", ".join(self.run_names)
        return OptionError(
            f"{asked.replace('_', ' ')} needs the runs' rankings; {runs} are per-query scores "
            "only: means, comparisons, ranks and groups work on them"
        )

    # --- runs and their orders --------------------------------------------------------------------

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
        if self.scored is not None:
            return list(self.scored.runs)
        return [*self.runs_given, *(source.name for source in self.sources)]

    def sharing(self, orderer: Orderer, *, runs: Mapping[str, Run] | None = None) -> Study:
        """This study with its tables built by ``orderer`` (one a twin study shares), over its
        runs read once (or ``runs``, the twin's, read once for both)."""
        given = self.runs if runs is None else runs
        return dataclasses.replace(self, runs_given=given, sources=(), orderer=orderer)

    def only(self, names: Sequence[str], measures: Sequence[Measure] | None = None) -> Study:
        """The study of these runs (and measures) alone, none of them opened here: what a question
        about them reads by default."""
        if self.scored is not None:
            scored = scored_part(self.scored, names, measures)
            return dataclasses.replace(self, measures=scored.measures, scored=scored)
        given = self.runs_given
        if isinstance(given, RunsWhenAsked):
            kept: Mapping[str, Run] = given.only([n for n in names if n in given])
        else:
            kept = {n: given[n] for n in names if n in given}
        return dataclasses.replace(
            self,
            runs_given=kept,
            sources=tuple(source for source in self.sources if source.name in names),
            measures=tuple(self.measures if measures is None else measures),
        )

    def table(self, name: str, ties: Ties | None = None, cut: RunCut | None = None) -> RankingTable:
        """A run's ranking table under a tie policy and a cut (the study's by default). Random
        orders are drawn from trec_eval's table when measured; ``expected`` measures trec_eval's
        arrays with the closed forms; optimistic and pessimistic reorder its tied rows by grade:
        only trec_eval's order and the run's rank column reach the orderer."""
        if not self.ranked:
            raise self.without_rankings("a ranking table")
        rule = policy(ties or self.settings.ties).ranked_as
        cut = self.settings.cut if cut is None else cut
        if rule.table_policy != rule:
            return retagged(self.table(name, rule.table_policy, cut), rule)
        if rule.by_grade:
            return graded_within_ties(self.table(name, TREC_EVAL, cut), rule)
        return self.orderer(name, lambda: self.runs[name], self.qrels, rule, cut)

    def tables(
        self,
        names: Sequence[str] | None = None,
        ties: Ties | None = None,
        cut: RunCut | None = None,
    ) -> dict[str, RankingTable]:
        return {name: self.table(name, ties, cut) for name in (names or self.run_names)}

    def one_at_a_time(
        self,
        names: Sequence[str] | None = None,
        ties: Ties | None = None,
        cut: RunCut | None = None,
    ) -> Iterator[tuple[str, RankingTable]]:
        """(name, table) pairs built as they are consumed: one table alive at a time, unless the
        orderer keeps them."""
        return ((name, self.table(name, ties, cut)) for name in (names or self.run_names))

    def with_facts(
        self, tables: Iterable[tuple[str, RankingTable]], facts: dict[str, RunFacts], k: int
    ) -> Iterator[tuple[str, RankingTable]]:
        """The (name, table) pairs, each run's facts for the checks (its top ``k``) gathered into
        ``facts`` on the way."""
        for name, table in tables:
            run = self.runs[name]
            facts[name] = gather(
                run,
                table,
                k=k,
                rel=self.settings.rel,
                stride=sample_stride(len(run)),
            )
            yield name, table

    # --- numbers ----------------------------------------------------------------------------------

    def evaluation(
        self,
        names: Sequence[str] | None = None,
        *,
        ties: Ties | None = None,
        measures: Sequence[Measure] | None = None,
        engine: EngineSettings | None = None,
        progress: Progress | None = None,
        check_k: int | None = None,
    ) -> Evaluation:
        """Every run (or ``names``) under the study's settings.

        Parameters
        ----------
        names
            The runs to evaluate (default: every run of the study).
        ties
            A tie policy other than the settings' (a policy or its name).
        measures
            Measures other than the study's.
        engine
            Where run files not yet read are evaluated (streamed, in blocks or on Dask) instead
            of being ranked here.
        progress
            Told the bytes of each piece an engine finishes.
        check_k
            Gather what the checks need in the same pass (their top K).

        Returns
        -------
        The :class:`~rankviz.evaluation.result.Evaluation`: per-query values, means, what was
        ignored. Of a study of scores alone, the scores of ``names`` on ``measures`` (another tie
        policy needs rankings; an engine, progress and checks have nothing to read).
        """
        if self.scored is not None:
            if ties is not None:
                raise self.without_rankings("another tie policy")
            return scored_part(self.scored, names, measures)
        settings = self.settings.replace(ties=ties) if ties else self.settings
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
        tables = self.one_at_a_time(names, settings.ties, settings.cut)
        if check_k is not None:
            tables = self.with_facts(tables, facts, check_k)
        result = evaluate_tables(
            tables,
            chosen,
            settings,
            qrels_qids=self.qrels.query_ids,
            groups=self.groups,
            weights=self.weights,
        )
        return dataclasses.replace(result, facts=facts) if check_k is not None else result

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

    # --- what the inputs say ----------------------------------------------------------------------

    def test_settings(self, tests: TestSettings | None = None) -> TestSettings:
        """The test in force (``tests``, else every option's default), its baseline checked: one of
        the runs, or None for the first."""
        tests = tests or TestSettings()
        if tests.baseline is not None and tests.baseline not in self.run_names:
            raise OptionError(
                f"--baseline {tests.baseline!r} is not among the runs ({', '.join(self.run_names)})"
            )
        return tests

    def conventions(self) -> list[str]:
        """The lines that say the conventions in force (of scores alone: their files)."""
        if self.scored is not None:
            return self.scored.conventions()
        return self.settings.conventions()

    def coverage_notes(self) -> list[str]:
        """What the groups file (under ``group_by``) and the weights leave out of the judged
        queries, or give extra (nothing of scores alone, which have no judged queries)."""
        if self.scored is not None:
            return []
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
