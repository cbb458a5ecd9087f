"""A study of per-query scores read from files (:mod:`rankviz.io.scores`) instead of runs and
qrels: every question that needs only the values (means, paired tests, ranks, groups) is answered
as for runs; one that needs rankings is refused in one line that says why, by its mark
(:func:`~rankviz.study.capability.needs_rankings`): no question is overridden here to refuse."""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa

from rankviz.errors import OptionError
from rankviz.evaluation.aggregate import aggregate_option
from rankviz.evaluation.pieces import Progress
from rankviz.evaluation.result import Evaluation
from rankviz.io.collection import Collection, open_collection
from rankviz.io.groups import QueryGroups, read_groups
from rankviz.io.irds import is_irds
from rankviz.io.model import Qrels
from rankviz.io.score_forms import is_scores
from rankviz.io.score_rules import ScoreRules, score_rules
from rankviz.measures import Measure
from rankviz.settings.engine_settings import EngineSettings
from rankviz.settings.eval_settings import EvalSettings
from rankviz.study.request import StudyRequest
from rankviz.study.run_study import Study, Ties

if TYPE_CHECKING:
    pass


def scores_folder(path: str | Path | Collection) -> Collection | None:
    """The collection ``path`` opens when it is a folder of per-query scores alone, else None."""
    if isinstance(path, Collection):
        return path if path.scores_only else None
    if is_irds(str(path)) or not Path(path).is_dir():
        return None
    collection = open_collection(path)
    return collection if collection.scores_only else None


def _no_qrels() -> Qrels:
    """The qrels of a study of scores: none (built when opened: pyarrow's arrays bring pandas)."""
    return Qrels(
        query_ids=np.array([], dtype=object),
        qid_codes=np.array([], dtype=np.int32),
        doc_ids=pa.array([], pa.string()),
        doc_codes=np.array([], dtype=np.int32),
        source="(per-query scores: no qrels)",
    )


@dataclass(frozen=True, eq=False)
class ScoresStudy(Study):
    """A study whose numbers are the files' scores (:attr:`scored`): a :class:`Study`'s
    parameters (its Parameters section, made from Study's) and ``scored``."""

    scored: Evaluation | None = None

    @classmethod
    def of_request(cls, request: StudyRequest) -> ScoresStudy:
        """What a request opens when its first input holds scores: a collection folder of scores
        alone (its scores, queries, groups, weights and ``[scores]`` as defaults, as
        :meth:`of_collection`), or a file of scores with the score files among the request's runs,
        whose other items name the runs kept (as :meth:`of_files`); the request's scores too."""
        r = request
        if isinstance(r.qrels, Qrels):
            raise OptionError("qrels already read open a Study of runs, not of scores")
        if r.judgments is not None:
            raise OptionError(f"{r.qrels}: per-query scores only: no qrels to judge")
        folder = scores_folder(r.qrels)
        rules = score_rules(r.lower_is_better, r.ranges)
        if folder is not None:
            paths, runs = [*folder.score_paths, *r.scores], [str(x) for x in r.runs]
            rules = folder.config.scores.joined(rules)
        else:
            assert not isinstance(r.qrels, Collection), "a collection of runs opens a Study"
            scored = {x: is_scores(x) for x in r.runs}  # each file sniffed once
            paths = [r.qrels, *(x for x in r.runs if scored[x]), *r.scores]
            runs = [str(x) for x in r.runs if not scored[x]]
        groups = read_groups(r.groups) if r.groups else (folder.groups if folder else None)
        return cls._of(
            paths,
            runs=runs,
            measures=r.measures,
            options=r.options,
            groups=groups,
            aggregate=r.aggregate,
            rules=rules,
            collection=folder,
        )

    @classmethod
    def of_collection(
        cls,
        folder: str | Path | Collection,
        runs: Sequence[str | Path] = (),
        *,
        scores: Sequence[str | Path] = (),
        measures: Sequence[str | Measure] | None = None,
        options: Mapping[str, Any] | None = None,
        groups: str | None = None,
        aggregate: str | None = None,
        lower_is_better: Sequence[str] = (),
        ranges: Mapping[str, Sequence[float]] | None = None,
    ) -> ScoresStudy:
        """A collection folder of scores alone (``scores.*``, ``scores/``; no runs/): its scores
        and ``scores``, its queries, groups, weights and ``[scores]`` as defaults (what is given
        over them), the runs named in ``runs`` (default: all)."""
        collection = folder if isinstance(folder, Collection) else open_collection(folder)
        if not collection.scores_only:
            raise OptionError(f"{collection.path}: has runs; open it with rankviz.Study.open")
        rules = collection.config.scores.joined(score_rules(lower_is_better, ranges))
        return cls._of(
            [*collection.score_paths, *scores],
            runs=[str(r) for r in runs],
            measures=measures,
            options=options,
            groups=read_groups(groups) if groups else collection.groups,
            aggregate=aggregate,
            rules=rules,
            collection=collection,
        )

    @classmethod
    def of_files(
        cls,
        paths: Sequence[str | Path],
        *,
        runs: Sequence[str] = (),
        measures: Sequence[str | Measure] | None = None,
        options: Mapping[str, Any] | None = None,
        groups: str | None = None,
        aggregate: str | None = None,
        lower_is_better: Sequence[str] = (),
        ranges: Mapping[str, Sequence[float]] | None = None,
    ) -> ScoresStudy:
        """The scores of ``paths``, of the runs and measures named (default: all); ``groups`` and
        ``aggregate`` as for runs (:meth:`Study.open`); ``lower_is_better`` and ``ranges`` as
        :meth:`Evaluation.from_scores` takes them."""
        return cls._of(
            paths,
            runs=runs,
            measures=measures,
            options=options,
            groups=read_groups(groups) if groups else None,
            aggregate=aggregate,
            rules=score_rules(lower_is_better, ranges),
        )

    @classmethod
    def _of(
        cls,
        paths: Sequence[str | Path],
        *,
        runs: Sequence[str],
        measures: Sequence[str | Measure] | None,
        options: Mapping[str, Any] | None,
        groups: QueryGroups | None,
        aggregate: str | None,
        rules: ScoreRules,
        collection: Collection | None = None,
    ) -> ScoresStudy:
        how, weights = aggregate_option(aggregate, collection)
        given = {**(options or {}), **({"aggregate": how} if how else {})}
        settings = EvalSettings.from_args(given)
        scored = Evaluation.from_scores(
            *paths,
            runs=list(runs) or None,
            measures=[str(m) for m in measures] if measures else None,
            settings=settings,
            lower_is_better=sorted(rules.lower_is_better),
            ranges=rules.ranges,
            groups=groups,
            weights=weights,
        )
        return cls(
            _no_qrels(),
            measures=scored.measures,
            settings=settings,
            collection=collection,
            groups=groups,
            weights=weights,
            scored=scored,
        )

    def only(self, names: Sequence[str], measures: Sequence[Measure] | None = None) -> ScoresStudy:
        """The study of these runs (and measures) alone: what a question about them reads by
        default."""
        scored = self.evaluation(names, measures=measures)
        return dataclasses.replace(self, measures=scored.measures, scored=scored)

    @property
    def _scores(self) -> Evaluation:
        assert self.scored is not None, "a ScoresStudy is opened with its scores"
        return self.scored

    def without_rankings(self) -> OptionError:
        return OptionError(
            f"this needs the runs' rankings; {', '.join(self._scores.runs)} are per-query scores "
            "only: means, comparisons, ranks and groups work on them"
        )

    @property
    def run_names(self) -> list[str]:
        return list(self._scores.runs)

    @property
    def ranked(self) -> bool:
        return False

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
        """The scores of ``names`` on ``measures`` (default: all). Another tie order needs
        rankings; ``engine``, ``progress`` and ``check_k`` have nothing to read."""
        if ties is not None:
            raise self.without_rankings()
        scored = self._scores
        runs = list(names or scored.runs)
        keys = [str(m) for m in (measures or scored.measures)]
        return dataclasses.replace(
            scored,
            runs=tuple(runs),
            measures=tuple(m for m in scored.measures if str(m) in keys),
            values={
                k: v[:, [scored.runs.index(r) for r in runs]]
                for k, v in scored.values.items()
                if k in keys
            },
        )

    def conventions(self) -> list[str]:
        return self._scores.conventions()

    def coverage_notes(self) -> list[str]:
        return []


def _parameters_of(base: type, cls: type, **added: str) -> str:
    """``cls``'s docstring with ``base``'s Parameters section and its own ``added`` entries.

    Both docstrings are cleaned first (``inspect.cleandoc``): Python 3.13 strips their common
    indentation when it compiles them, older versions keep it.
    """
    heading = "Parameters\n----------\n"
    inherited = inspect.cleandoc(base.__doc__ or "").split(heading, 1)[1].rstrip()
    own = "".join(f"\n{name}\n    {text}" for name, text in added.items())
    return f"{inspect.cleandoc(cls.__doc__ or '')}\n\n{heading}{inherited}{own}\n"


ScoresStudy.__doc__ = _parameters_of(
    Study, ScoresStudy, scored="The files' scores, the study's numbers."
)

__all__ = ["ScoresStudy", "is_scores"]
