"""Reciprocal rank (RR, RR@K); its mean over queries is MRR."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from rankviz.measures._common import REL
from rankviz.measures._groups import expected_cascade
from rankviz.measures._segments import first_hit_rank, rows_with_grade_at_least, safe_divide
from rankviz.measures.spec import Family, register

if TYPE_CHECKING:
    from rankviz.ranking.ranking_table import RankingTable


def reciprocal_rank(table: RankingTable, cutoff: int | None, *, rel: int) -> np.ndarray:
    """RR = 1 / rank of the first document with grade >= rel within the top ``cutoff``; 0 if none.

    Equals trec_eval ``recip_rank`` (and ``-M K recip_rank`` for RR@K) under the same tie order.
    """
    table = table.top(cutoff)
    first = first_hit_rank(table, rows_with_grade_at_least(table, rel))
    return safe_divide(np.ones_like(first), first)


def expected_reciprocal_rank_of_first(
    table: RankingTable, cutoff: int | None, *, rel: int
) -> np.ndarray:
    """E[RR@K] over random orders inside tie groups: sum over ranks p <= K of P(first relevant at p)
    / p.

    A cascade whose stop is 1 at a relevant document; inside the first group holding one, with n
    documents of which r relevant, P(none in the first t) = C(n - r, t) / C(n, t).
    """
    relevant = rows_with_grade_at_least(table, rel)
    return expected_cascade(
        table, cutoff, relevant, np.ones(len(relevant)), lambda rank: 1.0 / rank
    )


FAMILY = register(
    Family(
        name="RR",
        aliases=("MRR", "recip_rank"),
        params=(REL,),
        cutoff_required=False,
        kernel=reciprocal_rank,
        expected=expected_reciprocal_rank_of_first,
        definition="1 / rank of the first relevant document in the top K; 0 if none",
        convention="trec_eval recip_rank (RR@K = trec_eval -M K); relevant: grade >= rel",
    )
)
