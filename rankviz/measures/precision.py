"""Precision at K (P@K)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from rankviz.measures._common import REL
from rankviz.measures._groups import expected_positional_sum
from rankviz.measures._segments import relevant_retrieved, rows_with_grade_at_least
from rankviz.measures.spec import Family, register

if TYPE_CHECKING:
    from rankviz.ranking import RankingTable


def precision(table: RankingTable, cutoff: int | None, *, rel: int) -> np.ndarray:
    """P@K = relevant documents in the top K / K, also when fewer than K were retrieved (trec_eval
    P.K)."""
    found = relevant_retrieved(table.top(cutoff), rel)
    return found / cutoff


def expected_precision(table: RankingTable, cutoff: int | None, *, rel: int) -> np.ndarray:
    """E[P@K]: a group cut by K contributes its relevant count times the share of its positions
    inside K."""
    relevant = rows_with_grade_at_least(table, rel)
    return expected_positional_sum(table, cutoff, relevant, np.ones(len(relevant))) / cutoff


FAMILY = register(
    Family(
        name="P",
        aliases=("precision",),
        params=(REL,),
        cutoff_required=True,
        kernel=precision,
        expected=expected_precision,
        definition="relevant documents in the top K / K",
        convention="trec_eval P.K: divides by K even when fewer documents were retrieved",
    )
)
