"""A run ordered into its ranking table under a tie policy (:func:`rank`), and the orders within
ties built from a table: the chance level's, random orders drawn, a table retagged."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from rankviz._arrow import hashed, paired_keys, side_by_side
from rankviz.errors import OptionError
from rankviz.io.id_keys import sorted_unique_ids
from rankviz.io.model import Qrels, Run
from rankviz.ranking.ranking_table import RankingTable, sorting
from rankviz.settings.eval_settings import NO_CUT, RunCut
from rankviz.settings.numbers import DEFAULT_SEED
from rankviz.settings.tie_policy import POLICIES, TREC_EVAL, TiePolicy, policy


def chance_table(table: RankingTable) -> RankingTable:
    """The table with each query's retrieved documents in one tie group, under ``expected``: every
    order of them equally likely. Its values are the chance level of the run: what a random order
    of the same documents would get on average, exactly (the expected closed forms)."""
    if not table.ties.groups_together:
        raise OptionError("the chance level is taken from a table in score order")
    return replace(
        table,
        ties=POLICIES["expected"],
        tie_group=table.row_query.astype(np.int32, copy=False),
        _cache={},
    )


def tie_seed(rng: np.random.Generator | int | None) -> int:
    """The seed of random tie orders from a seed, a Generator (one drawn from it) or None (fresh
    entropy)."""
    if rng is None:
        return int(np.random.default_rng().integers(2**63))
    if isinstance(rng, np.random.Generator):
        return int(rng.integers(2**63))
    return int(rng)


def shuffle_ties(table: RankingTable, seed: int, *, trial: int = 0) -> RankingTable:
    """The table with a uniformly random order inside every group of equal scores
    (``ties="random"``).

    The order is a function of (``seed``, ``trial``, query id, docid) alone: every tied document
    draws a 64-bit number from a hash of the four, and each group is sorted by its draws. So a
    query's random orders are the same whichever other queries are evaluated with it, in one piece
    of a run or another, on one machine or a cluster. Only rows move; positions, queries and group
    ids stay. Needs contiguous groups (any policy but ``run``).
    """
    if not table.ties.groups_together:
        raise OptionError("shuffle a table in score order, not in the run's rank order")
    tied, keys = table.tied_keys()
    salt = paired_keys(np.array([seed % 2**64], np.uint64), np.array([trial], np.uint64))[0]
    draws = hashed(keys, int(salt))
    order = np.arange(table.n_rows)
    order[tied] = tied[np.lexsort((draws, table.tie_group[tied]))]
    return replace(
        table,
        ties=POLICIES["random"],
        grade=table.grade[order],
        judged=table.judged[order],
        score=table.score[order],
        run_rows=table.run_rows[order],
        _cache={},
    )


def graded_within_ties(table: RankingTable, rule: TiePolicy) -> RankingTable:
    """trec_eval's table reordered inside its groups of equal scores by the grades, as ``rule``
    (optimistic: the best first; pessimistic: the worst first) orders them: the table
    :func:`rank` builds for the rule, from the tied rows alone instead of a second sort of the run.

    Inside a group trec_eval's rows are in docid-descending order, the rule's last key; a stable
    sort by the grade keeps it among equal grades."""
    if not (table.ties.in_trec_eval_order and rule.by_grade):
        raise OptionError("grades order the ties of trec_eval's table under a policy by grade")
    tied, _ = table.tied_keys()
    key = sorting.best_first_key(table.grade[tied], table.judged[tied])
    order = np.arange(table.n_rows)
    by_grade = -key if rule.by_grade == "best" else key
    order[tied] = tied[np.lexsort((by_grade, table.tie_group[tied]))]
    return replace(
        table,
        ties=rule,
        grade=table.grade[order],
        judged=table.judged[order],
        run_rows=table.run_rows[order],
        _cache={},
    )


def retagged(table: RankingTable, ties: TiePolicy) -> RankingTable:
    """The table's arrays under a policy measured on its order (``expected`` on trec_eval's): no
    copy."""
    return replace(table, ties=ties, _cache={})


def judged_order(qrels: Qrels) -> tuple[np.ndarray, np.ndarray]:
    """(which of ``qrels.query_ids`` comes at each place of trec_eval's output order, where each of
    them is in it): one sort, no lookup. The ids themselves are taken only where wanted (a million
    str objects gathered in another order cost a cache miss each)."""
    return qrels.query_index.order, qrels.query_index.place


def judged_positions(run: Run, qrels: Qrels, qrels_query_to_judged: np.ndarray) -> np.ndarray:
    """Where each of the run's queries is in :func:`judged_order`, -1 where it is not judged:
    looked up among the qrels' ids as they were read (see :func:`id_positions`)."""
    found = qrels.query_index.positions(run.query_ids_to_look_up())
    if not len(qrels_query_to_judged):
        return found  # nothing judged: every one -1
    return np.where(found >= 0, qrels_query_to_judged[np.maximum(found, 0)], -1)


def rank(
    run: Run,
    qrels: Qrels,
    *,
    ties: str | TiePolicy = TREC_EVAL,
    rng: np.random.Generator | int | None = None,
    cut: RunCut = NO_CUT,
) -> RankingTable:
    """Order every ranking of ``run`` under the tie policy and attach the qrels grades.

    Parameters
    ----------
    run
        The run.
    qrels
        The judgments whose grades the table carries.
    ties
        The tie policy, a :class:`~rankviz.settings.tie_policy.TiePolicy` or its name
        (default: trec_eval's, score descending, then docid descending).
    rng
        A Generator or a seed: the order of ``ties="random"`` (default: the default seed, the same
        order every call); ignored otherwise.
    cut
        The documents that count. Those whose id is the query's are dropped first; a depth keeps
        each ranking's first N in trec_eval's order (as ``trec_eval -M``), which the policy then
        orders; under ``ties="run"``, the first N in the run's own order (its rank column, then
        file order: trec_eval's preference measures cut ties by docno ascending, a run ranked so
        is cut as they cut it).

    Returns
    -------
    RankingTable
        Every query's ranking in the policy's order, with grades, judged marks and the ideal
        ranking."""
    rule = policy(ties)
    if rule.table_policy != rule:  # expected and random start from trec_eval's table
        table = rank(run, qrels, ties=rule.table_policy, cut=cut)
        drawn = tie_seed(DEFAULT_SEED if rng is None else rng)
        return shuffle_ties(table, drawn) if rule.sampled else retagged(table, rule)
    if cut.depth is not None and rule.by_rank_column:  # the run's order decides what is first
        return _ordered(run, qrels, rule, replace(cut, depth=None), None).capped(cut)
    if cut.depth is not None:
        capped = rank(run, qrels, cut=replace(cut, depth=None)).capped(cut)
        return (
            capped
            if rule.in_trec_eval_order
            else _ordered(run, qrels, rule, cut, np.sort(capped.run_rows))
        )
    return _ordered(run, qrels, rule, cut, None)


def _ordered(run: Run, qrels: Qrels, rule, cut: RunCut, kept: np.ndarray | None) -> RankingTable:
    """The run's rows ``kept`` (None: every row the qrels judge, less those the cut drops) under
    ``rule``."""
    output_order, qrels_query_to_judged = judged_order(qrels)
    run_query_to_judged = judged_positions(run, qrels, qrels_query_to_judged)
    ignored = tuple(sorted_unique_ids(run.query_ids[run_query_to_judged < 0]).tolist())

    # rows of the run that count; every row (no copies) in the usual case
    if kept is not None:
        rows = kept.astype(np.int32)
    elif bool(np.all(run_query_to_judged >= 0)) and not cut.drop_identical:
        rows = np.arange(len(run), dtype=np.int32)
    else:
        counted = run_query_to_judged[run.qid_codes] >= 0
        if cut.drop_identical:
            counted &= ~run.identical_ids()
        rows = np.flatnonzero(counted).astype(np.int32)
    if len(rows) == len(run):
        qcode, score = run.qid_codes, run.score
    else:
        qcode, score = run.qid_codes[rows], run.score[rows]
    # the grade lookup and the ordering are independent passes over millions of rows: side by side
    with side_by_side() as pool:
        looking_up = pool.submit(
            sorting.lookup_grades, run, qrels, run_query_to_judged, rows, qrels_query_to_judged
        )
        if rule.by_rank_column:
            ranks = run.rank if len(rows) == len(run) else run.rank[rows]
            order = sorting.rank_column_order(qcode, ranks)
            by_score = sorting.primary_order(qcode, score)
            starts = sorting.group_starts(by_score.apply(qcode), by_score.apply(score))
            if order.kept and by_score.kept:  # both the file's order: groups as they come
                tie_group = (np.cumsum(starts, dtype=np.int32) - 1).astype(np.int32)
            else:
                tie_group = sorting.numbered_by_first_place(
                    order.apply(np.arange(len(rows))), by_score.apply(np.arange(len(rows))), starts
                ).astype(np.int32)
        else:
            order = sorting.primary_order(qcode, score)
            tie_start = sorting.group_starts(order.apply(qcode), order.apply(score))
            tie_group = np.cumsum(tie_start, dtype=np.int32)
            tie_group -= 1
            by_grade = sorting.best_first_key(*looking_up.result()) if rule.by_grade else None
            order = sorting.break_ties(
                order, tie_start, tie_group, run.docids, rows, by_grade, rule
            )
        grade, judged = looking_up.result()

    qcode_sorted = order.apply_tied(qcode)
    seg_starts = (
        np.flatnonzero(np.r_[True, qcode_sorted[1:] != qcode_sorted[:-1]])
        if len(rows)
        else np.array([], np.int64)
    )
    qcode_sorted_firsts = qcode_sorted[seg_starts] if len(rows) else np.array([], np.int64)
    seg_judged_index = run_query_to_judged[qcode_sorted_firsts]
    answered = np.zeros(len(output_order), dtype=bool)
    answered[seg_judged_index] = True
    missing = np.flatnonzero(~answered)
    seg_order = np.r_[seg_judged_index, missing].astype(np.int64)
    offsets = np.r_[seg_starts, np.full(len(missing) + 1, len(rows))].astype(np.int64)
    # segments follow the query codes in ascending order, so a row's segment is its code, renumbered
    # past absent ones
    present = np.zeros(len(run.query_ids), dtype=bool)
    present[qcode_sorted_firsts] = True
    row_query = (
        qcode_sorted if present.all() else (np.cumsum(present, dtype=np.int32) - 1)[qcode_sorted]
    )
    del qcode_sorted
    pos = np.arange(len(rows), dtype=np.int32)
    pos -= offsets[:-1].astype(np.int32)[row_query]

    ideal_offsets, ideal_grades, ideal_query, ideal_pos = sorting.ideal(
        qrels, qrels_query_to_judged, seg_order
    )
    return RankingTable(
        run_name=run.name,
        ties=rule,
        # the answered queries' ids as the run holds them (read in the run's order: a million
        # are compared and sorted later several times faster than the qrels' in another order)
        qids=np.concatenate(
            [run.query_ids[qcode_sorted_firsts], qrels.query_ids[output_order[missing]]]
        ).astype(object),
        qid_rank=seg_order,
        in_run=np.r_[np.ones(len(seg_judged_index), bool), np.zeros(len(missing), bool)],
        offsets=offsets,
        row_query=row_query,
        pos=pos,
        # the lookup's arrays and the rows are this table's own: their tied rows move in place
        grade=order.apply_in_place(grade),
        judged=order.apply_in_place(judged),
        score=order.apply_tied(score),
        run_rows=order.apply_in_place(rows),
        run_docids=run.docids,
        tie_group=tie_group,
        ideal_offsets=ideal_offsets,
        ideal_grades=ideal_grades,
        ideal_query=ideal_query,
        ideal_pos=ideal_pos,
        ignored_qids=ignored,
        cut=cut,
        beside=qrels.beside,
    )
