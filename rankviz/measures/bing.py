"""binG (trec_eval's binary gain with a log discount of the non-relevant documents above): each
relevant document retrieved gains 1 / log2(2 + non-relevant documents above it)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from rankviz.measures._common import REL
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


def bin_g(table: RankingTable, cutoff: None, *, rel: int) -> np.ndarray:
    """(1/R) sum over retrieved relevant documents of 1 / log2(2 + n), n the documents above it
    that are not relevant (unjudged ones among them), R the relevant documents in the qrels."""
    hits = rows_with_grade_at_least(table, rel)
    not_relevant_above = table.pos[hits] - rank_among(table, hits)
    gained = 1.0 / np.log2(2.0 + not_relevant_above)
    return safe_divide(per_query_sum(table, hits, gained), relevant_in_qrels(table, rel))


FAMILY = register(
    Family(
        name="binG",
        aliases=(),
        params=(REL,),
        cutoff_required=False,
        cutoff_allowed=False,
        kernel=bin_g,
        expected=None,  # a discount of a count above each document: no closed form here
        definition="(1/R) sum over retrieved relevant documents of 1 / log2(2 + documents above it "
        "that are not relevant)",
        convention="trec_eval binG; unjudged documents count as not relevant; no closed form "
        "under ties=expected",
    )
)
