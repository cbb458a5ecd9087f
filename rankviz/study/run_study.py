"""A study: qrels, runs, measures and settings opened once, then asked for every number and report.

Every front end opens it the same way, a :class:`~rankviz.study.request.StudyRequest` handed to
:meth:`Study.open`: the command line (flags -> request -> a report -> a renderer), the app (widgets
-> request -> cached report calls -> the page) and the API (keywords), so a collection's defaults,
the qrels in force, the meeting's judgments, coverage warnings, the tie policies' orders and each
report's inputs are decided here once. The app hands in its own
:class:`~rankviz.study.reading.Reading` (its caches of the files read) and shares its
:data:`~rankviz.ranking.regrading.Orderer` (its cache of ranking tables, :meth:`Study.sharing`);
nothing else differs between the front ends.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rankviz.errors import OptionError
from rankviz.evaluation.assembly import revised
from rankviz.evaluation.engines import evaluate_sources
from rankviz.evaluation.evaluate import evaluate_tables
from rankviz.evaluation.pieces import Progress, RunSource
from rankviz.evaluation.result import Evaluation
from rankviz.evaluation.run_facts import RunFacts, gather, sample_stride
from rankviz.io.collection import Collection
from rankviz.io.groups import QueryGroups
from rankviz.io.meeting import MeetingStore
from rankviz.io.model import Qrels, Run
from rankviz.io.readers import read_run
from rankviz.io.runs_when_asked import RunsWhenAsked
from rankviz.measures import Measure
from rankviz.ranking.ranking_table import RankingTable
from rankviz.ranking.regrading import Orderer, fresh
from rankviz.settings.engine_settings import EngineSettings
from rankviz.settings.eval_settings import EvalSettings
from rankviz.settings.significance_settings import TestSettings
from rankviz.study.capability import Rankings
from rankviz.study.chance_levels import ChanceLevel
from rankviz.study.feature_reports import Features
from rankviz.study.in_force import InForce
from rankviz.study.opening import open_inputs
from rankviz.study.passes import RunPasses
from rankviz.study.query_grouping import QueryGrouping
from rankviz.study.questions import Questions
from rankviz.study.reading import FILES, Reading
from rankviz.study.reports import Reports
from rankviz.study.repro_reports import Reproducing
from rankviz.study.request import StudyRequest
from rankviz.study.run_files import RunFiles
from rankviz.study.run_orders import RunOrders, Ties

if TYPE_CHECKING:
    pass


@dataclass(frozen=True, eq=False)
class Study(
    Reports,
    Questions,
    Features,
    Reproducing,
    ChanceLevel,
    RunPasses,
    RunFiles,
    QueryGrouping,
    RunOrders,
    Rankings,
):
    """Runs against qrels under one set of conventions. Build it with :meth:`open` (files, a
    collection folder, the meeting's judgments) or directly from objects already read.

    Parameters
    ----------
    qrels
        The qrels in force.
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
    """

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
    # the qrels in force as opening decided them (None: built from objects, the qrels given)
    in_force: InForce | None = None

    # --- opening ----------------------------------------------------------------------------------

    @classmethod
    def open(
        cls,
        qrels: str | Path | StudyRequest,
        runs: Sequence[str | Path] = (),
        *,
        measures: Sequence[str | Measure] | None = None,
        judgments: str | None = None,
        qrels_in_force: str | None = None,
        groups: str | None = None,
        aggregate: str | None = None,
        options: Mapping[str, Any] | None = None,
        scores: Sequence[str | Path] = (),
        lower_is_better: Sequence[str] = (),
        ranges: Mapping[str, Sequence[float]] | None = None,
        diversity: str | Path | None = None,
        judgment_groups: str | Path | None = None,
        preferences: str | Path | None = None,
        reading: Reading = FILES,
    ) -> Study:
        """A study of files (:func:`rankviz.study.opening.open_inputs`): of a
        :class:`~rankviz.study.request.StudyRequest`, or of the same inputs given as keywords.

        Parameters
        ----------
        qrels
            A qrels file, a collection folder (its qrels, its runs unless ``runs`` names some, its
            conventions, measures, groups and weights as defaults) or ``irds:DATASET_ID``; or a
            request holding every input (then nothing else is given).
        runs
            Run files, or names of a collection's runs.
        measures
            Measure names (default: the collection's, else
            :data:`~rankviz.settings.eval_settings.DEFAULT_MEASURES`).
        judgments
            A meeting record ("" for the collection's own), whose judgments are put in force
            unless ``qrels_in_force`` says otherwise.
        qrels_in_force
            ``file``, ``meeting``, ``NAME`` or ``file+NAME``
            (:data:`~rankviz.study.in_force.QRELS_IN_FORCE`).
        groups
            A query groups file (default: the collection's).
        aggregate
            ``query``, ``macro`` or ``weights[:FILE]``.
        options
            Evaluation options by name (``{"rel": 2, "ties": "expected"}``), over the collection's.
        scores, lower_is_better, ranges
            Files of per-query scores (:mod:`rankviz.io.scores`) whose scores stand beside the
            measures computed from the runs (named as the files name them; all of them unless
            ``measures`` names some), those where less is better, and each one's range where known
            (``{"nugget_all": (0, 1)}``; a value outside is refused with its line).
        diversity, judgment_groups, preferences
            Judgments beside the qrels, for the measures among ``measures`` that read them
            (default: a collection's ``subtopics.txt``, ``qrels_jg.txt``, ``prefs.txt``): diversity
            qrels for ndeval's (:mod:`rankviz.measures.diversity`), trec_eval's judgment groups
            for its ``*_avgjg`` (:mod:`rankviz.measures.judgment_groups`) and its preferences for
            its ``prefs_*`` (:mod:`rankviz.measures.preferences`), as ``rankviz evaluate``'s
            ``--diversity``, ``--judgment-groups`` and ``--preferences`` read them.
        reading
            How the files are read (:class:`~rankviz.study.reading.Reading`: each when asked; a
            server's keeps what it read).

        Returns
        -------
        The study, with what opening found worth saying in :attr:`notes` (a file of per-query
        scores, or a collection folder of scores alone, is refused:
        :class:`~rankviz.study.scores_study.ScoresStudy` opens it).
        """
        from rankviz.io.score_forms import is_scores

        if isinstance(qrels, StudyRequest):
            keywords = (measures, judgments, qrels_in_force, groups, aggregate, options, ranges)
            others = (diversity, judgment_groups, preferences, *runs, *scores, *lower_is_better)
            if any(given is not None for given in (*keywords, *others)):
                raise TypeError("Study.open: a StudyRequest holds every input; give nothing else")
            request = qrels
        else:
            request = StudyRequest(  # a single path or name is that one item (the request's rule)
                qrels,
                runs,  # type: ignore[arg-type]
                measures=measures,  # type: ignore[arg-type]
                judgments=judgments,
                qrels_in_force=qrels_in_force,
                groups=groups,
                aggregate=aggregate,
                options=options or {},
                scores=scores,  # type: ignore[arg-type]
                lower_is_better=lower_is_better,  # type: ignore[arg-type]
                ranges=ranges,
                diversity=diversity,
                judgment_groups=judgment_groups,
                preferences=preferences,
            )
        if not isinstance(request.qrels, (Collection, Qrels)) and is_scores(request.qrels):
            raise OptionError(
                f"{request.qrels} holds per-query scores, not qrels: open it with "
                "rankviz.ScoresStudy.of_files (or rankviz.Evaluation.from_scores)"
            )
        opened = open_inputs(request, reading)
        study = cls(
            opened.qrels,
            opened.runs_given,
            opened.measures,
            opened.settings,
            opened.collection,
            opened.groups,
            opened.weights,
            opened.sources,
            opened.notes,
            fresh,
            opened.record,
            opened.in_force,
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

    def sharing(self, orderer: Orderer, *, runs: Mapping[str, Run] | None = None) -> Study:
        """This study with its tables built by ``orderer`` (one a twin study shares), over its
        runs read once (or ``runs``, the twin's, read once for both)."""
        given = self.runs if runs is None else runs
        return dataclasses.replace(self, runs_given=given, sources=(), orderer=orderer)

    @property
    def run_names(self) -> list[str]:
        return [*self.runs_given, *(source.name for source in self.sources)]

    def only(self, names: Sequence[str], measures: Sequence[Measure] | None = None) -> Study:
        """The study of these runs (and measures) alone, none of them opened here: what a question
        about them reads by default."""
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
            Gather what :meth:`check` needs in the same pass (its top K).

        Returns
        -------
        The :class:`~rankviz.evaluation.result.Evaluation`: per-query values, means, what was
        ignored.
        """
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
        return self.settings.conventions()
