"""Bpref (Buckley & Voorhees, SIGIR 2004): binary preference, built from judged documents only."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from rankviz.measures._common import REL
from rankviz.measures._groups import exclusive_group_prefix, group_sum, tie_groups
from rankviz.measures._segments import (
    exclusive_prefix_sum,
    per_query_ideal_sum,
    per_query_sum,
    safe_divide,
)
from rankviz.measures.spec import Family, register

if TYPE_CHECKING:
    from rankviz.ranking.ranking_table import RankingTable


def _counts(table: RankingTable, rel: int) -> tuple[np.ndarray, np.ndarray]:
    """Per query: R, the relevant judgments (grade >= rel), and N, the non-relevant ones (0 <= grade
    < rel)."""
    relevant = per_query_ideal_sum(table, (table.ideal_grades >= rel).astype(np.float64))
    nonrelevant = per_query_ideal_sum(
        table, ((table.ideal_grades >= 0) & (table.ideal_grades < rel)).astype(np.float64)
    )
    return relevant, nonrelevant


def bpref(table: RankingTable, cutoff: int | None, *, rel: int) -> np.ndarray:
    """bpref = (1/R) sum over retrieved relevant documents r of 1 - min(n_r, R) / min(N, R), where
    n_r counts the judged non-relevant documents ranked above r (trec_eval ``bpref``). Documents the
    qrels do not judge, and those judged below 0 (trec_eval: in the pool, unjudged), are skipped.
    0 when R = 0."""
    relevant, nonrelevant = _counts(table, rel)
    rows = np.flatnonzero(table.judged & (table.grade >= 0))
    is_nonrel = (table.grade[rows] < rel).astype(np.float64)
    above = exclusive_prefix_sum(table, rows, is_nonrel)
    hit = is_nonrel == 0
    query = table.row_query[rows[hit]]
    r, denominator = relevant[query], np.minimum(nonrelevant[query], relevant[query])
    lost = safe_divide(np.minimum(above[hit], r), denominator)
    return safe_divide(per_query_sum(table, rows[hit], 1.0 - lost), relevant)


def expected_bpref(table: RankingTable, cutoff: int | None, *, rel: int) -> np.ndarray:
    """E[bpref] over random orders inside tie groups, exactly: a relevant document of a group with M
    judged non-relevant documents has X of them above it, uniform on 0..M, after the B of earlier
    groups, so it contributes 1 - E[min(B + X, R)] / min(N, R)."""
    relevant, nonrelevant = _counts(table, rel)
    groups = tie_groups(table)
    judged = table.judged & (table.grade >= 0)
    m = group_sum(table, groups, np.flatnonzero(judged & (table.grade < rel)))
    hits = group_sum(table, groups, np.flatnonzero(judged & (table.grade >= rel)))
    hit = np.flatnonzero(hits)  # the groups holding a relevant document: the others add 0
    before = exclusive_group_prefix(groups, m, hit)
    m, query = m[hit], groups.query[hit]
    r, n = relevant[query], nonrelevant[query]
    t = np.clip(r - before, 0, m + 1)  # how many of B + 0 .. B + M stay below R
    mean_min = (t * before + t * (t - 1) / 2 + (m + 1 - t) * r) / (m + 1)
    contribution = hits[hit] * (1.0 - safe_divide(mean_min, np.minimum(n, r)))
    return safe_divide(
        np.bincount(query, weights=contribution, minlength=table.n_queries), relevant
    )


FAMILY = register(
    Family(
        name="Bpref",
        aliases=("bpref",),
        params=(REL,),
        cutoff_required=False,
        kernel=bpref,
        expected=expected_bpref,
        definition="(1/R) sum over retrieved relevant r of 1 - min(judged non-relevant above r, R) "
        "/ min(N, R)",
        convention="trec_eval bpref: only judged documents count; N = judged non-relevant in the "
        "qrels",
        cutoff_allowed=False,
    )
)
