"""R-precision (Rprec): precision at rank R, R the number of relevant documents."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from rankviz.measures._common import REL
from rankviz.measures._groups import group_sum, inside, tie_groups
from rankviz.measures._segments import (
    per_query_sum,
    relevant_in_qrels,
    rows_with_grade_at_least,
    safe_divide,
)
from rankviz.measures.spec import Family, register

if TYPE_CHECKING:
    from rankviz.ranking import RankingTable


def r_precision(table: RankingTable, cutoff: int | None, *, rel: int) -> np.ndarray:
    """Rprec = relevant documents in the top R / R, with R the relevant documents of the qrels
    (grade >= rel); 0 when R = 0 (trec_eval ``Rprec``)."""
    r = relevant_in_qrels(table, rel)
    hits = rows_with_grade_at_least(table, rel)
    inside = hits[table.pos[hits] < r[table.row_query[hits]]]
    return safe_divide(per_query_sum(table, inside), r)


def expected_r_precision(table: RankingTable, cutoff: int | None, *, rel: int) -> np.ndarray:
    """E[Rprec] over random orders inside tie groups: a group cut by rank R contributes its relevant
    count times the share of its positions above R (each query has its own R)."""
    r = relevant_in_qrels(table, rel)
    groups = tie_groups(table)
    hits = rows_with_grade_at_least(table, rel)
    mean = group_sum(table, groups, hits) / np.maximum(groups.size, 1)
    found = np.bincount(
        groups.query, weights=mean * inside(groups, r[groups.query]), minlength=table.n_queries
    )
    return safe_divide(found, r)


FAMILY = register(
    Family(
        name="Rprec",
        aliases=("rprec",),
        params=(REL,),
        cutoff_required=False,
        kernel=r_precision,
        expected=expected_r_precision,
        definition="relevant documents in the top R / R, R = relevant documents in the qrels",
        convention="trec_eval Rprec",
        cutoff_allowed=False,
    )
)
