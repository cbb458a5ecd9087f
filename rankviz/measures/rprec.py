"""R-precision (Rprec): precision at rank R, R the number of relevant documents; with ``mult``,
at a multiple of R (trec_eval's Rprec_mult)."""

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
from rankviz.settings.options import Option

if TYPE_CHECKING:
    from rankviz.ranking.ranking_table import RankingTable


MULT = Option(
    "mult",
    1.0,
    "the multiple of R at which Rprec measures precision: (long)(mult R + 0.9) documents, as "
    "trec_eval's Rprec_mult",
    kind=float,
    low=0.01,
    high=100.0,
)


def _depth(table: RankingTable, rel: int, mult: float) -> np.ndarray:
    """Each query's rank: R, or trec_eval's (long)(mult R + 0.9) (R itself at mult 1)."""
    return np.floor(mult * relevant_in_qrels(table, rel) + 0.9)


def r_precision(table: RankingTable, cutoff: int | None, *, rel: int, mult: float) -> np.ndarray:
    """Rprec = relevant documents in the top R / R, with R the relevant documents of the qrels
    (grade >= rel); 0 when R = 0 (trec_eval ``Rprec``); at a multiple, the top (long)(mult R +
    0.9) over that many (trec_eval ``Rprec_mult``; past the list still over that many)."""
    r = _depth(table, rel, mult)
    hits = rows_with_grade_at_least(table, rel)
    inside = hits[table.pos[hits] < r[table.row_query[hits]]]
    return safe_divide(per_query_sum(table, inside), r)


def expected_r_precision(
    table: RankingTable, cutoff: int | None, *, rel: int, mult: float
) -> np.ndarray:
    """E[Rprec] over random orders inside tie groups: a group cut by rank R contributes its relevant
    count times the share of its positions above R (each query has its own R)."""
    r = _depth(table, rel, mult)
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
        params=(REL, MULT),
        cutoff_required=False,
        kernel=r_precision,
        expected=expected_r_precision,
        definition="relevant documents in the top R / R, R = relevant documents in the qrels "
        "(mult: in the top (long)(mult R + 0.9) / that many)",
        convention="trec_eval Rprec; mult: trec_eval Rprec_mult",
        cutoff_allowed=False,
    )
)
