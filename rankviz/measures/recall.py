"""Recall (R, R@K)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from rankviz.measures._common import REL
from rankviz.measures._groups import expected_positional_sum
from rankviz.measures._segments import (
    relevant_in_qrels,
    relevant_retrieved,
    rows_with_grade_at_least,
    safe_divide,
)
from rankviz.measures.spec import Family, register

if TYPE_CHECKING:
    from rankviz.ranking.ranking_table import RankingTable


def recall(table: RankingTable, cutoff: int | None, *, rel: int) -> np.ndarray:
    """R@K = relevant documents in the top K / relevant documents in the qrels (trec_eval recall.K);
    0 when none."""
    found = relevant_retrieved(table.top(cutoff), rel)
    return safe_divide(found, relevant_in_qrels(table, rel))


def expected_recall(table: RankingTable, cutoff: int | None, *, rel: int) -> np.ndarray:
    """E[R@K]: as :func:`expected_precision`, over the relevant documents in the qrels."""
    relevant = rows_with_grade_at_least(table, rel)
    return safe_divide(
        expected_positional_sum(table, cutoff, relevant, np.ones(len(relevant))),
        relevant_in_qrels(table, rel),
    )


FAMILY = register(
    Family(
        name="R",
        aliases=("recall",),
        params=(REL,),
        cutoff_required=False,
        kernel=recall,
        expected=expected_recall,
        definition="relevant documents in the top K / relevant documents in the qrels",
        convention="trec_eval recall.K",
    )
)
