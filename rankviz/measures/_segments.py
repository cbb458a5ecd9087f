"""Segment operations over a RankingTable, no loops.

Every measure here depends only on the documents with a positive grade (relevant documents for the
binary measures, gains for nDCG and ERR, where a zero-grade document contributes nothing and
multiplies ERR's continuation by 1). Kernels therefore pick those rows first and work on that
small set, which keeps time and memory proportional to the judged hits, not to the run's depth.
"""

from __future__ import annotations

import numpy as np


def per_query_sum(table, rows: np.ndarray, values: np.ndarray | None = None) -> np.ndarray:
    """Sum of ``values`` (or a count) over the given rows within each query."""
    return np.bincount(table.row_query[rows], weights=values, minlength=table.n_queries).astype(np.float64)


def per_query_ideal_sum(table, values: np.ndarray) -> np.ndarray:
    """Sum of a per-judgment array (the ideal ranking) within each query."""
    return np.bincount(table.ideal_query, weights=values, minlength=table.n_queries)


def rows_with_grade_at_least(table, grade: int) -> np.ndarray:
    """Rows (in table order) whose grade is at least ``grade`` >= 1; unjudged rows have grade 0."""
    return np.flatnonzero(table.grade >= grade)


def _first_of_query(table, rows: np.ndarray) -> np.ndarray:
    """For sorted rows, the index (into ``rows``) of the first given row of the same query."""
    counts = np.bincount(table.row_query[rows], minlength=table.n_queries)
    return np.repeat(np.cumsum(counts) - counts, counts)


def rank_among(table, rows: np.ndarray) -> np.ndarray:
    """For sorted rows, how many of the given rows precede each one in the same query (0-based)."""
    return np.arange(len(rows)) - _first_of_query(table, rows)


def exclusive_prefix_sum(table, rows: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Sum of ``values`` over the earlier given rows of the same query (0 for each query's first)."""
    before = np.cumsum(values) - values
    return before - before[_first_of_query(table, rows)]


def relevant_in_qrels(table, rel: int) -> np.ndarray:
    """Number of relevant judgments per query, retrieved or not."""
    return per_query_ideal_sum(table, (table.ideal_grades >= rel).astype(np.float64))


def relevant_retrieved(table, rel: int) -> np.ndarray:
    """Number of relevant documents ranked in the table (truncated to the cutoff by the caller)."""
    return per_query_sum(table, rows_with_grade_at_least(table, rel))


def first_hit_rank(table, rows: np.ndarray) -> np.ndarray:
    """1-based rank of the first of the given (sorted) rows per query; 0 where there is none."""
    first = np.zeros(table.n_queries, dtype=np.float64)
    if len(rows):
        queries = table.row_query[rows]
        at = np.flatnonzero(np.r_[True, queries[1:] != queries[:-1]])  # sorted rows: each query's first
        first[queries[at]] = table.pos[rows[at]] + 1
    return first


def safe_divide(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """numerator / denominator, 0 where the denominator is 0 (a query with nothing to find)."""
    out = np.zeros(len(numerator), dtype=np.float64)
    np.divide(numerator, denominator, out=out, where=denominator > 0)
    return out
