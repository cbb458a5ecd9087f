"""Segment operations over a RankingTable: sums, prefix sums and first hits per query, no loops."""

from __future__ import annotations

import numpy as np


def in_cutoff(table, cutoff: int | None) -> np.ndarray:
    """True for rows ranked within the cutoff (every row when there is none)."""
    if cutoff is None:
        return np.ones(table.n_rows, dtype=bool)
    return table.pos < cutoff


def per_query_sum(table, values: np.ndarray) -> np.ndarray:
    """Sum of a per-row array within each query."""
    return np.bincount(table.row_query, weights=values, minlength=table.n_queries)


def per_query_ideal_sum(table, values: np.ndarray) -> np.ndarray:
    """Sum of a per-judgment array (the ideal ranking) within each query."""
    return np.bincount(table.ideal_query, weights=values, minlength=table.n_queries)


def prefix_sum(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Inclusive cumulative sum restarting at each segment."""
    total = np.cumsum(values)
    lengths = np.diff(offsets)
    before = np.r_[0, total][offsets[:-1]]
    return total - np.repeat(before, lengths)


def relevant(table, rel: int) -> np.ndarray:
    """Rows that count as relevant: judged with a grade of at least ``rel`` (trec_eval ``-l``)."""
    return table.judged & (table.grade >= rel)


def relevant_in_qrels(table, rel: int) -> np.ndarray:
    """Number of relevant judgments per query, retrieved or not."""
    return per_query_ideal_sum(table, (table.ideal_grades >= rel).astype(np.float64))


def first_hit_rank(table, hits: np.ndarray) -> np.ndarray:
    """1-based rank of the first True row per query; 0 where there is none."""
    first = np.zeros(table.n_queries, dtype=np.float64)
    rows = np.flatnonzero(hits)
    if len(rows):
        queries, at = np.unique(table.row_query[rows], return_index=True)
        first[queries] = table.pos[rows[at]] + 1
    return first


def safe_divide(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """numerator / denominator, 0 where the denominator is 0 (a query with nothing to find)."""
    out = np.zeros(len(numerator), dtype=np.float64)
    np.divide(numerator, denominator, out=out, where=denominator > 0)
    return out


def relevant_retrieved(table, rel: int, cutoff: int | None) -> np.ndarray:
    """Number of relevant documents ranked within the cutoff, per query."""
    return per_query_sum(table, (relevant(table, rel) & in_cutoff(table, cutoff)).astype(np.float64))
