"""Runs x qrels under settings -> one :class:`~rankviz.evaluation.Evaluation`, the result every
front end consumes: what the API accepts as runs and measures, the per-table values of each measure,
how they are assembled, revised for a few queries, or combined from evaluations of disjoint runs.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from rankviz.aggregate import Aggregation
from rankviz.errors import CollectionError, MeasureError, OptionError, RankvizError
from rankviz.evaluation import Evaluation, MeasureLike, query_values
from rankviz.io.frames import as_qrels, as_run
from rankviz.io.groups import NO_GROUP, QueryGroups, coverage
from rankviz.io.model import Qrels, Run
from rankviz.io.readers import run_names, unique_names
from rankviz.measures import Measure, parse
from rankviz.ranking import RankingTable, rank, shuffle_ties
from rankviz.ranking import tie_seed as ranking_seed
from rankviz.run_facts import RunFacts
from rankviz.settings import EvalSettings

if TYPE_CHECKING:
    from rankviz.io.collection import Collection

RunLike = Run | str | os.PathLike


def as_measures(
    measures: MeasureLike | Iterable[MeasureLike], *, defaults: Mapping[str, Any] | None = None
) -> list[Measure]:
    """Parse measure names (or ir_measures measure objects); one or a list. Duplicates are kept
    once."""
    single = isinstance(measures, (str, Measure)) or not isinstance(measures, Iterable)
    items: list[MeasureLike] = [measures] if single else list(measures)  # type: ignore[list-item,arg-type]
    parsed = [parse(m, defaults=dict(defaults or {})) for m in items]
    if not parsed:
        raise OptionError("no measure given")
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
        return as_measures(names or collection.config.measures, defaults=settings.measure_defaults)
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

    ``settings`` (or keyword ``options`` such as ``ties="expected"``, ``missing="skip"``,
    ``rel=2``, ``group_by="intent"``, ``aggregate="macro"``) set the conventions; ``groups`` (a
    :class:`~rankviz.io.groups.QueryGroups`) and ``weights`` (qid -> weight) feed ``group_by`` and
    ``aggregate="weights"``. ``rng`` draws the orders of ``ties="random"`` (default: ``seed``).
    One ranking table is alive at a time, so memory follows the largest run, not their sum.
    """
    settings = (settings or EvalSettings()).replace(**options)
    qrels = as_qrels(qrels)
    runs = as_runs(runs)
    measures = as_measures(measures, defaults=settings.measure_defaults)
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
    """The engine behind :func:`evaluate`, from ranking tables (run name, table) already built
    under ``settings.ties`` (trec_eval's order for ``random``)."""
    pairs = tables.items() if isinstance(tables, Mapping) else tables
    seed = tie_seed(settings, rng)
    gathered = [(name, table_values(table, measures, settings, seed)) for name, table in pairs]
    return assemble(
        gathered, measures, settings, qrels_qids=qrels_qids, groups=groups, weights=weights
    )


def tie_seed(settings: EvalSettings, rng: np.random.Generator | int | None = None) -> int:
    """The seed of the random tie orders: ``rng`` (a seed, or one drawn from a Generator), else the
    settings' seed, else fresh entropy. Drawn once per evaluation, so that every piece of a run
    and every worker shuffles with the same one."""
    return ranking_seed(settings.seed if rng is None else rng)


@dataclass(frozen=True, eq=False)
class TableValues:
    """One ranking table's per-query values (table order): what an engine gathers from every piece
    of a run before :func:`assemble` makes the evaluation."""

    qids: np.ndarray  # the judged queries of the table
    answered: np.ndarray  # bool per query: the run ranks documents for it
    values: Mapping[str, np.ndarray]  # measure -> per query (trials x queries under random ties)
    ignored: tuple[str, ...] = ()  # run queries the qrels do not judge
    facts: RunFacts | None = None  # what the checks need of the run, when gathered with the values

    @staticmethod
    def concatenate(parts: Sequence[TableValues]) -> TableValues:
        """The values of several tables of one run over disjoint queries, as one."""
        keys = parts[0].values.keys()
        return TableValues(
            qids=np.concatenate([p.qids for p in parts]),
            answered=np.concatenate([p.answered for p in parts]),
            values={k: np.concatenate([p.values[k] for p in parts], axis=-1) for k in keys},
            ignored=tuple(sorted(q for p in parts for q in p.ignored)),
            facts=RunFacts.merged([p.facts for p in parts if p.facts is not None])
            if parts[0].facts is not None
            else None,
        )


def table_values(
    table: RankingTable, measures: Sequence[Measure], settings: EvalSettings, seed: int
) -> TableValues:
    """Every measure's per-query values on one table (``seed``: of the random tie orders)."""
    values = {str(measure): v for measure, v in _measure_values(table, measures, settings, seed)}
    return TableValues(
        qids=table.qids, answered=table.in_run, values=values, ignored=tuple(table.ignored_qids)
    )


def assemble(
    gathered: Sequence[tuple[str, TableValues]],
    measures: Sequence[Measure],
    settings: EvalSettings,
    *,
    qrels_qids=None,
    groups: QueryGroups | None = None,
    weights: Mapping[str, float] | None = None,
) -> Evaluation:
    """The evaluation of every run's gathered values: queries in trec_eval's order (qid ``strcmp``),
    absent queries NaN under ``missing="skip"``, trials averaged under random ties."""
    if not gathered:
        raise OptionError("no run given")
    qids = None
    columns: dict[str, list[np.ndarray]] = {str(m): [] for m in measures}
    trial_columns: dict[str, list[np.ndarray]] = {str(m): [] for m in measures}
    for name, part in gathered:
        order = np.argsort(part.qids.astype(str), kind="stable")
        if qids is None:
            qids = part.qids[order]
        answered = part.answered[order]
        if settings.missing == "skip" and not answered.any():
            raise RankvizError(
                f"run {name!r} answers none of the judged queries; nothing to average"
            )
        for key in columns:
            values = part.values[key][..., order]
            if settings.missing != "zero":
                values = np.where(~answered, np.nan, values)
            if values.ndim == 2:  # trials x queries
                trial_columns[key].append(values)
                values = values.mean(axis=0)
            columns[key].append(values)
    aggregation = _aggregation(settings, groups, weights)
    covered = None
    if groups is not None and settings.group_by is not None:
        covered = coverage(groups.frame.index, qids if qrels_qids is None else qrels_qids)
    elif weights is not None and settings.aggregate == "weights":
        covered = coverage(list(weights), qids if qrels_qids is None else qrels_qids)
    if qids is None:
        raise OptionError("no run to evaluate")
    return Evaluation(
        settings=settings,
        measures=tuple(measures),
        runs=tuple(name for name, _ in gathered),
        qids=qids,
        values={k: np.column_stack(v) for k, v in columns.items()},
        aggregation=aggregation,
        trials={k: np.stack(v, axis=-1) for k, v in trial_columns.items()}
        if settings.ties.sampled
        else None,
        ignored={name: part.ignored for name, part in gathered},
        coverage=covered,
        facts=_facts(gathered),
    )


def _combined_facts(evaluations: Sequence[Evaluation]) -> dict[str, RunFacts] | None:
    facts = [e.facts for e in evaluations]
    return (
        {run: f for part in facts if part for run, f in part.items()}
        if all(p is not None for p in facts)
        else None
    )


def _facts(gathered: Sequence[tuple[str, TableValues]]) -> dict[str, RunFacts] | None:
    """Each run's facts, when every run's were gathered with its values."""
    facts = {name: part.facts for name, part in gathered if part.facts is not None}
    return facts if len(facts) == len(gathered) else None


def revised(previous: Evaluation, tables: Mapping[str, RankingTable], queries) -> Evaluation | None:
    """``previous`` with the values of ``queries`` computed again from ``tables``, which differ from
    the tables of ``previous`` only in those queries' judgments (the meeting judged them): the same
    numbers as a whole evaluation of ``tables``, at the cost of a few queries. None when it cannot
    be revised (the tables judge other queries; random orders without a seed)."""
    settings = previous.settings
    if settings.ties.sampled and settings.seed is None:
        return None
    if any(
        not np.array_equal(np.sort(tables[name].qids.astype(str)), previous.qids.astype(str))
        for name in previous.runs
    ):
        return None
    seed = tie_seed(settings)
    position = {q: i for i, q in enumerate(previous.qids)}
    values = {k: v.copy() for k, v in previous.values.items()}
    trials = (
        {k: v.copy() for k, v in previous.trials.items()} if previous.trials is not None else None
    )
    for column, name in enumerate(previous.runs):
        part = table_values(tables[name].of_queries(queries), previous.measures, settings, seed)
        rows = np.array([position[q] for q in part.qids], dtype=np.int64)
        for key in values:  # as assemble() does
            fresh = part.values[key]
            if settings.missing != "zero":
                fresh = np.where(~part.answered, np.nan, fresh)
            if fresh.ndim == 2:
                assert trials is not None, "an evaluation under random ties keeps its trials"
                trials[key][:, rows, column] = fresh
                fresh = fresh.mean(axis=0)
            values[key][rows, column] = fresh
    return replace(previous, values=values, trials=trials)


def combine(evaluations: Sequence[Evaluation]) -> Evaluation:
    """One evaluation of all the runs of several (same qrels, measures and settings), side by
    side."""
    first = evaluations[0]
    if any(
        e.measures != first.measures
        or e.settings != first.settings
        or not np.array_equal(e.qids, first.qids)
        for e in evaluations
    ):
        raise OptionError("only evaluations of the same qrels, measures and settings combine")
    trials = None
    if first.trials is not None:
        trials = {
            k: np.concatenate([e.trials[k] for e in evaluations if e.trials is not None], axis=-1)
            for k in first.trials
        }
    return Evaluation(
        settings=first.settings,
        measures=first.measures,
        runs=tuple(run for e in evaluations for run in e.runs),
        qids=first.qids,
        values={
            k: np.concatenate([e.values[k] for e in evaluations], axis=1) for k in first.values
        },
        aggregation=first.aggregation,
        trials=trials,
        ignored={run: queries for e in evaluations for run, queries in e.ignored.items()},
        coverage=first.coverage,
        facts=_combined_facts(evaluations),
    )


def _measure_values(
    table: RankingTable, measures: Sequence[Measure], settings: EvalSettings, seed: int
) -> Iterator[tuple[Measure, np.ndarray]]:
    """Each measure's values on the table, in the table's segment order; under random ties every
    trial's values (trials x queries), trial t's orders drawn from (``seed``, t)."""
    grade = settings.fill_grade

    def on(table: RankingTable, measure: Measure) -> np.ndarray:
        return measure(table if grade is None else table.filled(grade, measure.cutoff))

    if not settings.ties.sampled:
        for measure in measures:
            yield measure, on(table, measure)
        return
    # the filled documents are those of trec_eval's top K (RankingTable.filled): fill, then draw the
    # orders
    depth = {m: m.cutoff if grade is not None else None for m in measures}
    bases = {d: table if grade is None else table.filled(grade, d) for d in set(depth.values())}
    trials: dict[Measure, list[np.ndarray]] = {m: [] for m in measures}
    for trial in range(settings.trials):
        shuffled = {d: shuffle_ties(base, seed, trial=trial) for d, base in bases.items()}
        for measure in measures:
            trials[measure].append(measure(shuffled[depth[measure]]))
    for measure in measures:
        yield measure, np.vstack(trials[measure]).reshape(settings.trials, table.n_queries)


def _aggregation(
    settings: EvalSettings, groups: QueryGroups | None, weights: Mapping[str, float] | None
) -> Aggregation:
    group_of = None
    if settings.group_by is not None:
        if groups is None:
            raise OptionError(
                "group_by needs query groups (a groups file or a collection with groups)"
            )
        group_of = groups.column(settings.group_by).to_dict()
    return Aggregation(
        settings.aggregate,
        group_of=group_of,
        weights=weights if settings.aggregate == "weights" else None,
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
