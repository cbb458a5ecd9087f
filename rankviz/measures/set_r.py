"""SetR: recall of the whole retrieved set (trec_eval set_recall)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from rankviz.measures._common import REL
from rankviz.measures._segments import safe_divide
from rankviz.measures._sets import set_counts
from rankviz.measures.spec import Family, register

if TYPE_CHECKING:
    from rankviz.ranking.ranking_table import RankingTable


def set_recall(table: RankingTable, cutoff: int | None, *, rel: int) -> np.ndarray:
    """Relevant retrieved / relevant in the qrels; 0 where the qrels hold none."""
    _, found, relevant = set_counts(table, rel)
    return safe_divide(found, relevant)


FAMILY = register(
    Family(
        name="SetR",
        aliases=("set_recall",),
        params=(REL,),
        cutoff_required=False,
        kernel=set_recall,
        expected=set_recall,
        definition="relevant documents retrieved / relevant documents in the qrels",
        convention="trec_eval set_recall: the whole retrieved set (after -M), no rank cutoff",
        cutoff_allowed=False,
    )
)
