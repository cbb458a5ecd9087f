"""Unjudged@K (trec_eval's ``unj_K``): the share of the top K the qrels do not judge, over K."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from rankviz.measures._groups import expected_positional_sum
from rankviz.measures._segments import per_query_sum
from rankviz.measures.spec import Family, register

if TYPE_CHECKING:
    from rankviz.ranking.ranking_table import RankingTable


def unjudged(table: RankingTable, cutoff: int) -> np.ndarray:
    """(documents in the top K the qrels do not list, or list below 0) / K: K even where the run
    retrieves fewer (``Judged@K`` divides by what was retrieved)."""
    top = table.top(cutoff)
    missing = per_query_sum(top, np.flatnonzero(~top.judged))
    return missing / float(cutoff)


def expected_unjudged(table: RankingTable, cutoff: int) -> np.ndarray:
    """E[Unjudged@K] over random orders inside tie groups (a group cut by K moves its unjudged
    documents in proportion to its positions inside K)."""
    rows = np.flatnonzero(~table.judged)
    return expected_positional_sum(table, cutoff, rows, np.ones(len(rows))) / float(cutoff)


FAMILY = register(
    Family(
        name="Unjudged",
        aliases=("unj",),
        params=(),
        cutoff_required=True,
        kernel=unjudged,
        expected=expected_unjudged,
        definition="documents in the top K the qrels do not judge / K",
        convention="trec_eval unj_K: unpooled and pooled-unjudged (grade below 0) documents; "
        "divided by K even past the run's end",
        condensable=False,
        lower_is_better=True,
    )
)
