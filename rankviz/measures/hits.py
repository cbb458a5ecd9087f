"""Hits@K: binary success, 1 if a relevant document is in the top K (trec_eval success.K)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from rankviz.measures._common import REL
from rankviz.measures._groups import expected_cascade
from rankviz.measures._segments import relevant_retrieved, rows_with_grade_at_least
from rankviz.measures.spec import Family, register

if TYPE_CHECKING:
    from rankviz.ranking.ranking_table import RankingTable


def hits(table: RankingTable, cutoff: int | None, *, rel: int) -> np.ndarray:
    """1.0 where some document with grade >= rel is ranked within the top ``cutoff``, else 0.0.

    A binary success, as trec_eval ``success.K`` and ranx ``hit_rate@K`` (not ranx ``hits@K``,
    which counts the relevant documents).
    """
    found = relevant_retrieved(table.top(cutoff), rel)
    return (found > 0).astype(np.float64)


def expected_hits(table: RankingTable, cutoff: int | None, *, rel: int) -> np.ndarray:
    """E[Hits@K] over random orders inside tie groups: P(a relevant document in the top K).

    1 when a group wholly inside K holds one; for the group cut by K (n documents, r relevant, m of
    its positions inside K) the chance is 1 - C(n - r, m) / C(n, m).
    """
    relevant = rows_with_grade_at_least(table, rel)
    return expected_cascade(table, cutoff, relevant, np.ones(len(relevant)), np.ones_like)


FAMILY = register(
    Family(
        name="Hits",
        aliases=("Success", "success", "hit_rate"),
        params=(REL,),
        cutoff_required=False,
        kernel=hits,
        expected=expected_hits,
        definition="1 if a relevant document is in the top K, else 0",
        convention="trec_eval success.K; binary, not a count",
    )
)
