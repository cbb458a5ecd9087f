"""What a request opens when its first input holds per-query scores (:mod:`rankviz.io.scores`)
instead of qrels: a file of scores, or a collection folder of scores alone (``scores.*``,
``scores/``; no ``runs/``). The study then has no qrels and no rankings; its numbers are the files'
scores, and every question that needs only the values (means, paired tests, ranks, groups) is
answered as for runs."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa

from rankviz.errors import OptionError
from rankviz.evaluation.aggregate import aggregate_option
from rankviz.evaluation.result import Evaluation
from rankviz.io.collection import Collection, open_collection
from rankviz.io.groups import read_groups
from rankviz.io.irds import is_irds
from rankviz.io.model import Qrels
from rankviz.io.score_forms import is_scores
from rankviz.io.score_rules import score_rules
from rankviz.measures import Measure
from rankviz.settings.eval_settings import EvalSettings
from rankviz.study.opening import Opened
from rankviz.study.request import StudyRequest


def scores_folder(path: str | Path | Collection) -> Collection | None:
    """The collection ``path`` opens when it is a folder of per-query scores alone, else None."""
    if isinstance(path, Collection):
        return path if path.scores_only else None
    if is_irds(str(path)) or not Path(path).is_dir():
        return None
    collection = open_collection(path)
    return collection if collection.scores_only else None


def holds_scores(request: StudyRequest) -> bool:
    """Whether the request's first input holds per-query scores (a file of them, or a collection
    folder of them with no runs) rather than qrels."""
    qrels = request.qrels
    if isinstance(qrels, Qrels):  # read already: qrels, never scores
        return False
    if scores_folder(qrels) is not None:
        return True
    return not isinstance(qrels, Collection) and is_scores(qrels)


def open_scores(request: StudyRequest) -> Opened:
    """A request whose first input holds scores, opened: a collection folder of scores alone (its
    scores, queries, groups, weights and ``[scores]`` as defaults), or a file of scores with the
    score files among the request's runs, whose other items name the runs kept; the request's
    ``scores`` too."""
    r = request
    assert not isinstance(r.qrels, Qrels), "qrels already read open a study of runs"
    if r.judgments is not None:
        raise OptionError(f"{r.qrels}: per-query scores only: no qrels to judge")
    folder = scores_folder(r.qrels)
    rules = score_rules(r.lower_is_better, r.ranges)
    if folder is not None:
        paths, runs = [*folder.score_paths, *r.scores], [str(x) for x in r.runs]
        rules = folder.config.scores.joined(rules)
    else:
        assert not isinstance(r.qrels, Collection), "a collection of runs opens a study of runs"
        scored = {x: is_scores(x) for x in r.runs}  # each file sniffed once
        paths = [r.qrels, *(x for x in r.runs if scored[x]), *r.scores]
        runs = [str(x) for x in r.runs if not scored[x]]
    groups = read_groups(r.groups) if r.groups else (folder.groups if folder else None)
    how, weights = aggregate_option(r.aggregate, folder)
    settings = EvalSettings.from_args({**r.options, **({"aggregate": how} if how else {})})
    scores = Evaluation.from_scores(
        *paths,
        runs=list(runs) or None,
        measures=[str(m) for m in r.measures] if r.measures else None,
        settings=settings,
        lower_is_better=sorted(rules.lower_is_better),
        ranges=rules.ranges,
        groups=groups,
        weights=weights,
    )
    return Opened(
        _no_qrels(),
        scores.measures,
        settings,
        folder,
        groups,
        weights,
        runs_given={},
        sources=(),
        notes=(),
        record=None,
        in_force=None,
        scored=scores,
    )


def scored_part(
    scores: Evaluation, names: Sequence[str] | None, measures: Sequence[Measure] | None
) -> Evaluation:
    """The scores of ``names`` on ``measures`` (default: all)."""
    runs = list(names or scores.runs)
    keys = [str(m) for m in (measures or scores.measures)]
    return dataclasses.replace(
        scores,
        runs=tuple(runs),
        measures=tuple(m for m in scores.measures if str(m) in keys),
        values={
            k: v[:, [scores.runs.index(r) for r in runs]]
            for k, v in scores.values.items()
            if k in keys
        },
    )


def _no_qrels() -> Qrels:
    """The qrels of a study of scores: none (built when opened: pyarrow's arrays bring pandas)."""
    return Qrels(
        query_ids=np.array([], dtype=object),
        qid_codes=np.array([], dtype=np.int32),
        docids=pa.array([], pa.string()),
        source="(per-query scores: no qrels)",
    )
