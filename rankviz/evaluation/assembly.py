"""Per-query values of ranking tables assembled into an evaluation, combined or revised."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from rankviz.errors import OptionError, RankvizError
from rankviz.evaluation.aggregate import aggregation_of
from rankviz.evaluation.result import Evaluation
from rankviz.evaluation.run_facts import RunFacts
from rankviz.io.groups import QueryGroups, coverage
from rankviz.io.id_keys import id_order
from rankviz.io.packed_ids import PackedIds
from rankviz.measures import Measure
from rankviz.ranking.ordering import shuffle_ties
from rankviz.ranking.ordering import tie_seed as ranking_seed
from rankviz.ranking.ranking_table import RankingTable
from rankviz.settings.eval_settings import EvalSettings


@dataclass(frozen=True, eq=False)
class TableValues:
    """One ranking table's per-query values (table order): what an engine gathers from every piece
    of a run before :func:`assemble` makes the evaluation."""

    qids: np.ndarray  # the judged queries of the table
    answered: np.ndarray  # bool per query: the run ranks documents for it
    values: Mapping[str, np.ndarray]  # measure -> per query (trials x queries under random ties)
    ignored: tuple[str, ...] = ()  # run queries the qrels do not judge
    facts: RunFacts | None = None  # what the checks need of the run, when gathered with the values
    #: per query, a number sorting the queries in ``strcmp`` order (the table's); None: not known
    qid_rank: np.ndarray | None = None

    def __getstate__(self) -> dict:
        """Pickled (a worker's values of a piece, sent to the client) with the query ids packed
        (:class:`~rankviz.io.packed_ids.PackedIds`): a million str objects cost the worker 0.24
        CPU-s to pickle, packed 0.065 (loading them: 0.11 either way)."""
        state = dict(self.__dict__)
        packed = PackedIds.of(self.qids)
        if packed is not None:
            state["qids"] = packed
        return state

    def __setstate__(self, state: dict) -> None:
        if isinstance(state["qids"], PackedIds):
            state = {**state, "qids": state["qids"].ids()}
        self.__dict__.update(state)

    @staticmethod
    def concatenate(parts: Sequence[TableValues]) -> TableValues:
        """The values of several tables of one run over disjoint queries, as one (their ``qid_rank``
        kept where every part's places are in one order: a streamed run's blocks place their
        queries among the whole qrels')."""
        keys = parts[0].values.keys()
        return TableValues(
            qids=np.concatenate([p.qids for p in parts]),
            answered=np.concatenate([p.answered for p in parts]),
            values={k: np.concatenate([p.values[k] for p in parts], axis=-1) for k in keys},
            ignored=tuple(sorted(q for p in parts for q in p.ignored)),
            facts=RunFacts.merged([p.facts for p in parts if p.facts is not None])
            if parts[0].facts is not None
            else None,
            qid_rank=None
            if any(p.qid_rank is None for p in parts)
            else np.concatenate([p.qid_rank for p in parts]),
        )


def table_values(
    table: RankingTable, measures: Sequence[Measure], settings: EvalSettings, seed: int
) -> TableValues:
    """Every measure's per-query values on one table (``seed``: of the random tie orders)."""
    values = {str(measure): v for measure, v in _measure_values(table, measures, settings, seed)}
    return TableValues(
        qids=table.qids,
        answered=table.in_run,
        values=values,
        ignored=tuple(table.ignored_qids),
        qid_rank=table.qid_rank,
    )


def _sorting(ranks: np.ndarray) -> np.ndarray:
    """The permutation that sorts ``ranks``: where they are the places 0..n-1 (a whole run's
    table), written into their places, no sort of a million queries."""
    n = len(ranks)
    if n and ranks.min() >= 0 and ranks.max() == n - 1:
        order = np.full(n, -1, dtype=np.int64)
        order[ranks] = np.arange(n)
        if order.min() >= 0:  # each place once
            return order
    return np.argsort(ranks, kind="stable")


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
        order = id_order(part.qids) if part.qid_rank is None else _sorting(part.qid_rank)
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
    aggregation = aggregation_of(settings, groups, weights)
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


def tie_seed(settings: EvalSettings, rng: np.random.Generator | int | None = None) -> int:
    """The seed of the random tie orders: ``rng`` (a seed, or one drawn from a Generator), else the
    settings' seed, else fresh entropy. Drawn once per evaluation, so that every piece of a run
    and every worker shuffles with the same one."""
    return ranking_seed(settings.seed if rng is None else rng)
