"""SetP: precision of the whole retrieved set (trec_eval set_P; relative=True: set_relative_P)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from rankviz.measures._common import REL, RELATIVE
from rankviz.measures._segments import safe_divide
from rankviz.measures._sets import set_counts
from rankviz.measures.spec import Family, register

if TYPE_CHECKING:
    from rankviz.ranking.ranking_table import RankingTable


def set_precision(
    table: RankingTable, cutoff: int | None, *, rel: int, relative: bool
) -> np.ndarray:
    """Relevant retrieved / retrieved (or / min(retrieved, R)); 0 for an empty set or R = 0."""
    retrieved, found, relevant = set_counts(table, rel)
    if relative:
        return safe_divide(found, np.where(relevant > 0, np.minimum(retrieved, relevant), 0.0))
    return safe_divide(found, retrieved)


FAMILY = register(
    Family(
        name="SetP",
        aliases=("set_P",),
        params=(REL, RELATIVE),
        cutoff_required=False,
        kernel=set_precision,
        expected=set_precision,
        definition="relevant documents retrieved / documents retrieved (relative: / min(retrieved, "
        "R))",
        convention="trec_eval set_P and set_relative_P: the whole retrieved set (after -M, as "
        "--depth), no rank cutoff",
        cutoff_allowed=False,
    )
)
