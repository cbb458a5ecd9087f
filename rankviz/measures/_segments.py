"""Segment operations over a RankingTable, no loops.

Every measure here depends only on the documents with a positive grade (relevant documents for the
binary measures, gains for nDCG and ERR, where a zero-grade document contributes nothing and
multiplies ERR's continuation by 1). Kernels therefore pick those rows first and work on that
small set, which keeps time and memory proportional to the judged hits, not to the run's depth.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from rankviz.ranking.ranking_table import RankingTable


def per_query_sum(
    table: RankingTable, rows: np.ndarray, values: np.ndarray | None = None
) -> np.ndarray:
    """Sum of ``values`` (or a count) over the given rows within each query."""
    return np.bincount(table.row_query[rows], weights=values, minlength=table.n_queries).astype(
        np.float64
    )


def per_query_ideal_sum(table: RankingTable, values: np.ndarray) -> np.ndarray:
    """Sum of a per-judgment array (the ideal ranking) within each query."""
    return np.bincount(table.ideal_query, weights=values, minlength=table.n_queries)


def rows_with_grade_at_least(table: RankingTable, grade: int) -> np.ndarray:
    """Rows (in table order) whose grade is at least ``grade`` >= 1; unjudged rows have grade 0.
    Found once per table and grade (most measures ask, at every cutoff)."""
    key = ("rows with grade at least", grade)
    if key not in table._cache:
        rows = np.flatnonzero(table.grade >= grade)
        rows.flags.writeable = False  # shared by every measure of the table
        table._cache[key] = rows
    return table._cache[key]


def _first_of_query(table: RankingTable, rows: np.ndarray) -> np.ndarray:
    """For sorted rows, the index (into ``rows``) of the first given row of the same query."""
    counts = np.bincount(table.row_query[rows], minlength=table.n_queries)
    return np.repeat(np.cumsum(counts) - counts, counts)


def rank_among(table: RankingTable, rows: np.ndarray) -> np.ndarray:
    """For sorted rows, how many of the given rows precede each one in the same query (0-based)."""
    return np.arange(len(rows)) - _first_of_query(table, rows)


def exclusive_prefix_sum(table: RankingTable, rows: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Sum of ``values`` over the earlier given rows of the same query (0 for each query's
    first)."""
    return segment_prefix_sum(table.row_query[rows], values)


def segment_prefix_sum(
    segment: np.ndarray, values: np.ndarray, at: np.ndarray | None = None
) -> np.ndarray:
    """Sum of ``values`` over the earlier elements of the same segment (a run of equal ids in the
    non-decreasing ``segment``), 0 for each segment's first; at the sorted positions ``at`` alone
    when given (what the expected measures need: the groups that hold a relevant document).

    Only the nonzero values are summed (a zero adds nothing, exactly), then each element takes the
    total of the nonzero ones before it in its segment: tie groups' values are mostly zero (a group
    holds a relevant document or not), so this is a sum over thousands and a lookup per element.
    """
    n = len(values)
    if n < 2 or bool(np.all(segment[1:] != segment[:-1])):
        # each element its segment's first (a chance table: one tie group a query): nothing before
        return np.zeros(n if at is None else len(at), dtype=np.float64)
    nonzero = np.flatnonzero(values)
    if at is None and len(nonzero) == n:
        return _dense_prefix_sum(segment, values)
    positions = np.arange(n) if at is None else at
    out = np.zeros(len(positions), dtype=np.float64)
    if len(nonzero) == 0:
        return out
    held = segment[nonzero]
    inclusive = _dense_prefix_sum(held, values[nonzero]) + values[nonzero]
    # the last nonzero element strictly before each position, when it is in the same segment
    last = np.searchsorted(nonzero, positions) - 1
    counted = np.flatnonzero(last >= 0)
    counted = counted[held[last[counted]] == segment[positions[counted]]]
    out[counted] = inclusive[last[counted]]
    return out


def _dense_prefix_sum(segment: np.ndarray, values: np.ndarray) -> np.ndarray:
    """:func:`segment_prefix_sum` over every element. Each segment is summed on its own from its
    first element (segments of similar length side by side in a padded matrix, a power of two
    wide), never through a running total of the segments before it: that total's rounding would
    make a query's value depend on which queries share its table, and the engines that evaluate a
    run in pieces would disagree in the last digit."""
    n = len(values)
    out = np.zeros(n, dtype=np.float64)
    if n == 0:
        return out
    starts = np.flatnonzero(np.r_[True, segment[1:] != segment[:-1]])
    counts = np.diff(np.r_[starts, n])
    segment_of = np.repeat(np.arange(len(starts)), counts)
    position = np.arange(n) - np.repeat(starts, counts)
    widths = np.left_shift(1, np.ceil(np.log2(counts)).astype(np.int64))
    for width in np.unique(widths[widths > 1]):
        chosen = widths == width
        slot = np.cumsum(chosen) - 1
        members = np.flatnonzero(chosen[segment_of])
        at = (slot[segment_of[members]], position[members])
        matrix = np.zeros((int(chosen.sum()), int(width)))
        matrix[at] = values[members]
        before = np.zeros_like(matrix)
        np.cumsum(matrix[:, :-1], axis=1, out=before[:, 1:])
        out[members] = before[at]
    return out


def relevant_in_qrels(table: RankingTable, rel: int) -> np.ndarray:
    """Number of relevant judgments per query, retrieved or not."""
    return per_query_ideal_sum(table, (table.ideal_grades >= rel).astype(np.float64))


def relevant_retrieved(table: RankingTable, rel: int) -> np.ndarray:
    """Number of relevant documents ranked in the table (truncated to the cutoff by the caller)."""
    return per_query_sum(table, rows_with_grade_at_least(table, rel))


def first_hit_rank(table: RankingTable, rows: np.ndarray) -> np.ndarray:
    """1-based rank of the first of the given (sorted) rows per query; 0 where there is none."""
    first = np.zeros(table.n_queries, dtype=np.float64)
    if len(rows):
        queries = table.row_query[rows]
        # sorted rows: each query's first
        at = np.flatnonzero(np.r_[True, queries[1:] != queries[:-1]])
        first[queries[at]] = table.pos[rows[at]] + 1
    return first


def safe_divide(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """numerator / denominator, 0 where the denominator is 0 (a query with nothing to find)."""
    out = np.zeros(len(numerator), dtype=np.float64)
    np.divide(numerator, denominator, out=out, where=denominator > 0)
    return out
