"""Precision at K (P@K), and relative precision at K (trec_eval relative_P)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from rankviz.measures._common import REL, RELATIVE
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


def precision(table: RankingTable, cutoff: int | None, *, rel: int, relative: bool) -> np.ndarray:
    """P@K = relevant documents in the top K / K, also when fewer than K were retrieved (trec_eval
    P.K); ``relative``: / min(K, R), 0 where the qrels hold nothing relevant (relative_P.K)."""
    found = relevant_retrieved(table.top(cutoff), rel)
    return safe_divide(found, _bound(table, cutoff, rel, relative))


def expected_precision(
    table: RankingTable, cutoff: int | None, *, rel: int, relative: bool
) -> np.ndarray:
    """E[P@K]: a group cut by K contributes its relevant count times the share of its positions
    inside K."""
    relevant = rows_with_grade_at_least(table, rel)
    found = expected_positional_sum(table, cutoff, relevant, np.ones(len(relevant)))
    return safe_divide(found, _bound(table, cutoff, rel, relative))


def _bound(table: RankingTable, cutoff: int | None, rel: int, relative: bool) -> np.ndarray:
    """What P@K divides by: K, or min(K, R) (0 where R = 0: the value is then 0)."""
    assert cutoff is not None, "P needs a cutoff"
    k = np.full(table.n_queries, float(cutoff))
    if not relative:
        return k
    relevant = relevant_in_qrels(table, rel)
    return np.where(relevant > 0, np.minimum(k, relevant), 0.0)


FAMILY = register(
    Family(
        name="P",
        aliases=("precision",),
        params=(REL, RELATIVE),
        cutoff_required=True,
        kernel=precision,
        expected=expected_precision,
        definition="relevant documents in the top K / K",
        convention="trec_eval P.K: divides by K even when fewer documents were retrieved; "
        "relative=True: trec_eval relative_P.K",
    )
)
