"""Runs x qrels under settings -> one :class:`~rankviz.evaluation.result.Evaluation`, the result
every front end consumes: what the API accepts as runs and measures, the per-table values of each
measure, how they are assembled, revised for a few queries, or combined from evaluations of disjoint
runs.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from rankviz.errors import CollectionError, MeasureError, OptionError
from rankviz.evaluation.assembly import TableValues, assemble, combine, table_values, tie_seed
from rankviz.evaluation.result import Evaluation, MeasureLike
from rankviz.io.frames import as_qrels, as_run
from rankviz.io.groups import NO_GROUP, QueryGroups
from rankviz.io.id_keys import id_order
from rankviz.io.model import Qrels, Run
from rankviz.io.readers import run_names, unique_names
from rankviz.measures import Measure, expand, refuse_without_closed_form
from rankviz.ranking.ordering import rank
from rankviz.ranking.ranking_table import RankingTable
from rankviz.settings.eval_settings import EvalSettings
from rankviz.settings.tie_policy import TiePolicy

if TYPE_CHECKING:
    from rankviz.io.collection import Collection

RunLike = Run | str | os.PathLike


def as_measures(
    measures: MeasureLike | Iterable[MeasureLike],
    *,
    defaults: Mapping[str, Any] | None = None,
    ties: TiePolicy | None = None,
) -> list[Measure]:
    """Parse measure names (or ir_measures measure objects); one or a list, an item of which may be
    trec_eval's spelling of several cutoffs (``P.5,10``: :func:`rankviz.measures.expand`).
    Duplicates are kept once. Under ``ties`` that take closed forms (``expected``), a measure
    without one is refused."""
    single = isinstance(measures, (str, Measure)) or not isinstance(measures, Iterable)
    items: list[MeasureLike] = [measures] if single else list(measures)  # type: ignore[list-item,arg-type]
    parsed = [one for m in items for one in expand(m, defaults=dict(defaults or {}))]
    if not parsed:
        raise OptionError("no measure given")
    if ties is not None:
        refuse_without_closed_form(parsed, ties)
    return list(dict.fromkeys(parsed))


def as_runs(runs: RunLike | Iterable[RunLike] | Mapping[str, Any]) -> list[Run]:
    """Runs from anything :func:`rankviz.io.frames.as_run` takes, one or a list, or ``{name: run}``.

    Files are named by :func:`~rankviz.io.readers.run_names` (unique where base names clash); runs
    from frames and dicts are named ``run`` unless given a name (``{name: frame}``,
    ``run_from_frame(..., name=)``). Two runs going by one name are refused: their numbers would
    mix."""
    # a generator of ScoredDoc (ir_measures.read_trec_run), or of runs
    if isinstance(runs, Iterator):
        runs = list(runs)
    if isinstance(runs, Mapping):  # {name: generator}: read each once, here
        runs = {
            name: list(value) if isinstance(value, Iterator) else value
            for name, value in runs.items()
        }
    if isinstance(runs, Mapping) and runs and all(_is_run_value(v) for v in runs.values()):
        loaded = [_named(as_run(value, name=str(name)), str(name)) for name, value in runs.items()]
    else:
        items = [runs] if _is_single_run(runs) else list(runs)  # type: ignore[arg-type]
        paths = [item for item in items if isinstance(item, (str, os.PathLike))]
        names = iter(run_names(paths))
        loaded = [
            as_run(item, name=next(names)) if isinstance(item, (str, os.PathLike)) else as_run(item)
            for item in items
        ]
    if not loaded:
        raise OptionError("no run given")
    unique_names([r.name for r in loaded])
    return loaded


def query_values(
    table: RankingTable, measure: Measure, *, missing: str = "zero"
) -> tuple[np.ndarray, np.ndarray]:
    """One measure's (qids, values) in trec_eval's query order; ``missing="skip"`` keeps only
    the queries the run answers."""
    values = measure(table)
    keep = np.arange(table.n_queries) if missing == "zero" else np.flatnonzero(table.in_run)
    order = keep[id_order(table.qids[keep])]
    return table.qids[order], values[order]


def _named(run: Run, name: str) -> Run:
    return run if run.name == name else replace(run, name=name)


def _is_run_object(value) -> bool:
    """A Run, a path, a DataFrame or a ranx Run: one run whatever it holds."""
    return (
        isinstance(value, (Run, str, os.PathLike))
        or type(value).__name__ == "DataFrame"
        or hasattr(value, "to_dict")
    )


def _is_run_value(value) -> bool:
    """A value of ``{name: run}`` (a run object, a ``{qid: {docid: score}}`` dict or a list, of
    ScoredDoc tuples), as opposed to the ``{docid: score}`` of a ``{qid: {docid: score}}`` run."""
    if isinstance(value, Mapping):
        return all(isinstance(inner, Mapping) for inner in value.values())
    return _is_run_object(value) or isinstance(value, (list, tuple))  # a list is no {docid: score}


def _is_scored_docs(value) -> bool:
    return isinstance(value, (list, tuple)) and bool(value) and hasattr(value[0], "query_id")


def _is_single_run(value) -> bool:
    """A run object, a ``{qid: {docid: score}}`` dict or a list of ir_measures' ScoredDoc tuples
    stands for one run, not a list of them."""
    return _is_run_object(value) or isinstance(value, Mapping) or _is_scored_docs(value)


def collection_measures(
    collection: Collection, settings: EvalSettings, names: Sequence[str] | None = None
) -> list[Measure]:
    """The collection's default measures (or ``names``) under the settings; a bad name in
    collection.toml is an error naming that file."""
    try:
        return as_measures(
            names or collection.config.measures,
            defaults=settings.measure_defaults,
            ties=settings.ties,
        )
    except MeasureError as exc:
        if names:
            raise
        raise CollectionError(f"{collection.path / 'collection.toml'}: {exc}") from None


# --- building an evaluation ----------------------------------------------------------------------


def evaluate(
    qrels: Qrels | str | os.PathLike,
    runs: RunLike | Iterable[RunLike],
    measures: MeasureLike | Sequence[MeasureLike],
    settings: EvalSettings | None = None,
    *,
    groups: QueryGroups | None = None,
    weights: Mapping[str, float] | None = None,
    rng: np.random.Generator | int | None = None,
    **options: Any,
) -> Evaluation:
    """Evaluate one or more runs against the qrels.

    One ranking table is alive at a time, so memory follows the largest run, not their sum.

    Parameters
    ----------
    qrels
        The judgments, or a path to them.
    runs
        One run or several: :class:`Run` objects, paths, DataFrames, dicts (see :func:`as_run`).
    measures
        One measure or several, as names (``"nDCG@10"``, trec_eval's ``"ndcg_cut.10"``) or
        :class:`Measure` objects.
    settings
        The conventions (:class:`EvalSettings`); keyword ``options`` such as ``ties="expected"``,
        ``missing="skip"``, ``rel=2``, ``group_by="intent"`` or ``aggregate="macro"`` replace its
        fields.
    groups
        Query attributes (:class:`QueryGroups`) for ``group_by`` and ``aggregate="macro"``.
    weights
        qid -> weight, for ``aggregate="weights"``.
    rng
        A Generator or a seed for the orders of ``ties="random"`` (default: the settings' seed).

    Returns
    -------
    Evaluation
        Per-query values of every run and measure, their means under the aggregate in force, and
        what was not covered."""
    settings = (settings or EvalSettings()).replace(**options)
    qrels = as_qrels(qrels)
    runs = as_runs(runs)
    measures = as_measures(measures, defaults=settings.measure_defaults, ties=settings.ties)
    tables = (
        (run.name, rank(run, qrels, ties=settings.ties.ranked_as, cut=settings.cut)) for run in runs
    )
    return evaluate_tables(
        tables,
        measures,
        settings,
        qrels_qids=qrels.query_ids,
        groups=groups,
        weights=weights,
        rng=rng,
    )


def evaluate_tables(
    tables: Iterable[tuple[str, RankingTable]] | Mapping[str, RankingTable],
    measures: Sequence[Measure],
    settings: EvalSettings,
    *,
    qrels_qids=None,
    groups: QueryGroups | None = None,
    weights: Mapping[str, float] | None = None,
    rng: np.random.Generator | int | None = None,
) -> Evaluation:
    """The engine behind :func:`evaluate`, from ranking tables already built under
    ``settings.ties`` (trec_eval's order for ``random``).

    Parameters
    ----------
    tables
        (run name, :class:`RankingTable`) pairs, or a mapping of them.
    measures
        The measures (:class:`Measure` objects).
    settings
        The conventions the tables were built under.
    qrels_qids
        The judged queries, when the tables do not list every one.
    groups
        Query attributes for ``group_by`` and ``aggregate="macro"``.
    weights
        qid -> weight, for ``aggregate="weights"``.
    rng
        A Generator or a seed for the orders of ``ties="random"``.

    Returns
    -------
    Evaluation
        Per-query values of every table and measure."""
    pairs = tables.items() if isinstance(tables, Mapping) else tables
    seed = tie_seed(settings, rng) if settings.ties.sampled else 0  # only random orders draw
    gathered = []
    for name, table in pairs:
        gathered.append((name, table_values(table, measures, settings, seed)))
        del table  # a table built as it is consumed goes before the next one is built
    return assemble(
        gathered, measures, settings, qrels_qids=qrels_qids, groups=groups, weights=weights
    )


__all__ = [
    "NO_GROUP",
    "Evaluation",
    "TableValues",
    "as_measures",
    "as_runs",
    "assemble",
    "collection_measures",
    "combine",
    "evaluate",
    "evaluate_tables",
    "query_values",
    "table_values",
    "tie_seed",
]
