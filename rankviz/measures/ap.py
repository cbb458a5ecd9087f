"""Average precision (AP, AP@K); its mean over queries is MAP."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from rankviz.measures._common import REL
from rankviz.measures._groups import (
    discount_sums,
    exclusive_group_prefix,
    group_sum,
    inside,
    tie_groups,
)
from rankviz.measures._segments import (
    per_query_sum,
    rank_among,
    relevant_in_qrels,
    rows_with_grade_at_least,
    safe_divide,
)
from rankviz.measures.spec import Family, register

if TYPE_CHECKING:
    from rankviz.ranking.ranking_table import RankingTable


def average_precision(table: RankingTable, cutoff: int | None, *, rel: int) -> np.ndarray:
    """AP = sum of precision at the rank of each relevant document in the top K / R.

    R counts every document of the query with grade >= rel in the qrels, retrieved or not
    (trec_eval ``map``; AP@K is ``map_cut.K``, still divided by all R). 0 when R = 0.
    """
    table = table.top(cutoff)
    return safe_divide(precision_sum(table, rel=rel), relevant_in_qrels(table, rel))


def precision_sum(table: RankingTable, *, rel: int) -> np.ndarray:
    """Each query's sum of precision at the rank of each relevant document, added in rank order
    (as trec_eval adds it)."""
    hits = rows_with_grade_at_least(table, rel)
    precision_at_hit = (rank_among(table, hits) + 1.0) / (table.pos[hits] + 1.0)
    return per_query_sum(table, hits, precision_at_hit)


def expected_average_precision(table: RankingTable, cutoff: int | None, *, rel: int) -> np.ndarray:
    """E[AP@K] over random orders inside tie groups (McSherry & Najork 2008), divided by all R.

    Position x of a group of n documents with r relevant, after b relevant documents in earlier
    groups, is relevant with probability r/n; given that, the relevant documents up to it number
    b + 1 + (x - 1)(r - 1)/(n - 1) in expectation. AP sums that precision over positions inside K:
    with d = (r - 1)/(n - 1) and a group starting after s documents, sum_x (b + 1 + (x - 1) d)/(s +
    x) = d m + (b + 1 - d (1 + s)) sum_x 1/(s + x) over its m positions inside K.
    """
    relevant = rows_with_grade_at_least(table, rel)
    groups = tie_groups(table)
    found = group_sum(table, groups, relevant)
    group = np.flatnonzero((found > 0) & (inside(groups, cutoff) > 0))
    before = exclusive_group_prefix(groups, found, group)
    n, r, m = (
        groups.size[group].astype(np.float64),
        found[group],
        inside(groups, cutoff)[group].astype(np.float64),
    )
    d = np.where(n > 1, (r - 1) / np.maximum(n - 1, 1), 0.0)
    harmonic = discount_sums(groups, group, cutoff, lambda rank: 1.0 / rank)
    precision = (r / n) * (d * m + (before + 1 - d * (1 + groups.start[group])) * harmonic)
    total = np.bincount(groups.query[group], weights=precision, minlength=table.n_queries)
    return safe_divide(total, relevant_in_qrels(table, rel))


FAMILY = register(
    Family(
        name="AP",
        aliases=("MAP", "map"),
        params=(REL,),
        cutoff_required=False,
        kernel=average_precision,
        expected=expected_average_precision,
        definition="sum of precision at each relevant document in the top K / number of relevant "
        "documents in the qrels",
        convention="trec_eval map / map_cut.K: the denominator counts relevant documents not "
        "retrieved",
    )
)
