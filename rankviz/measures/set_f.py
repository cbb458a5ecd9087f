"""SetF: the F measure of the whole retrieved set (trec_eval set_F)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from rankviz.measures._common import REL
from rankviz.measures._segments import safe_divide
from rankviz.measures._sets import set_counts
from rankviz.measures.spec import Family, Param, register

if TYPE_CHECKING:
    from rankviz.ranking.ranking_table import RankingTable

BETA = Param(
    "beta",
    1.0,
    "the weight of recall against precision in SetF: (beta + 1) P R / (beta P + R), as trec_eval "
    "set_F.beta (its x; ir_measures' beta)",
    kind=float,
    low=0.0,
    high=1e6,
)


def set_f(table: RankingTable, cutoff: int | None, *, rel: int, beta: float) -> np.ndarray:
    """(beta + 1) P R / (beta P + R) of the retrieved set; 0 without a relevant document
    retrieved (trec_eval's formula, beta not squared)."""
    retrieved, found, relevant = set_counts(table, rel)
    precision, recall = safe_divide(found, retrieved), safe_divide(found, relevant)
    return np.where(
        found > 0, safe_divide((beta + 1.0) * precision * recall, beta * precision + recall), 0.0
    )


FAMILY = register(
    Family(
        name="SetF",
        aliases=("set_F",),
        params=(REL, BETA),
        cutoff_required=False,
        kernel=set_f,
        expected=set_f,
        definition="(beta + 1) P R / (beta P + R) of the retrieved set (set precision and recall)",
        convention="trec_eval set_F (beta = its x, default 1, not squared): the whole retrieved "
        "set (after -M), no rank cutoff",
        cutoff_allowed=False,
    )
)
