"""Judged@K: how much of the top K the qrels judge (ir_measures' judgment rate)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from rankviz.measures._groups import expected_positional_sum
from rankviz.measures._segments import per_query_sum, safe_divide
from rankviz.measures.spec import Family, register

if TYPE_CHECKING:
    from rankviz.ranking.ranking_table import RankingTable


def judged(table: RankingTable, cutoff: int | None) -> np.ndarray:
    """Judged@K = judged documents in the top K / min(K, documents retrieved); 0 for a query the run
    does not answer.

    A document is judged when the qrels list it for the query at a grade of 0 or more; a negative
    grade is trec_eval's "in the pool, unjudged" (ir_measures' ``Judged`` counts it as judged).
    """
    top = table.top(cutoff)
    found = per_query_sum(top, np.flatnonzero(top.judged))
    return safe_divide(found, np.diff(top.offsets).astype(np.float64))


def expected_judged(table: RankingTable, cutoff: int | None) -> np.ndarray:
    """E[Judged@K] over random orders inside tie groups: only a group cut by K can move judged
    documents in or out of the top K (in proportion to its positions inside K)."""
    rows = np.flatnonzero(table.judged)
    found = expected_positional_sum(table, cutoff, rows, np.ones(len(rows)))
    return safe_divide(found, np.diff(table.top(cutoff).offsets).astype(np.float64))


FAMILY = register(
    Family(
        name="Judged",
        aliases=("judged",),
        params=(),
        cutoff_required=False,
        kernel=judged,
        expected=expected_judged,
        definition="judged documents in the top K / min(K, documents retrieved)",
        convention="judged: listed in the qrels at a grade >= 0; a negative grade is trec_eval's "
        "'in the pool, unjudged'",
        condensable=False,
    )
)
