"""SetAP: the unranked average precision of the retrieved set (trec_eval set_map)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from rankviz.measures._common import REL
from rankviz.measures._segments import safe_divide
from rankviz.measures._sets import set_counts
from rankviz.measures.spec import Family, register

if TYPE_CHECKING:
    from rankviz.ranking.ranking_table import RankingTable


def set_average_precision(table: RankingTable, cutoff: int | None, *, rel: int) -> np.ndarray:
    """Relevant retrieved squared / (retrieved x relevant in the qrels): set precision times set
    recall; 0 for an empty set or R = 0."""
    retrieved, found, relevant = set_counts(table, rel)
    return safe_divide(found * found, retrieved * relevant)


FAMILY = register(
    Family(
        name="SetAP",
        aliases=("set_map",),
        params=(REL,),
        cutoff_required=False,
        kernel=set_average_precision,
        expected=set_average_precision,
        definition="relevant retrieved^2 / (retrieved x relevant in the qrels): set precision x "
        "set recall",
        convention="trec_eval set_map: the whole retrieved set (after -M), no rank cutoff",
        cutoff_allowed=False,
    )
)
