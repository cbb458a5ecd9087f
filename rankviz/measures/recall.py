"""Recall (R, R@K)."""

from __future__ import annotations

import numpy as np

from rankviz.measures._common import REL
from rankviz.measures._segments import relevant_in_qrels, relevant_retrieved, safe_divide
from rankviz.measures.spec import Family, register


def recall(table, cutoff: int | None, *, rel: int) -> np.ndarray:
    """R@K = relevant documents in the top K / relevant documents in the qrels (trec_eval recall.K); 0 when none."""
    found = relevant_retrieved(table.top(cutoff), rel)
    return safe_divide(found, relevant_in_qrels(table, rel))


FAMILY = register(
    Family(
        name="R",
        aliases=("recall",),
        params=(REL,),
        cutoff_required=False,
        kernel=recall,
        definition="relevant documents in the top K / relevant documents in the qrels",
        convention="trec_eval recall.K",
    )
)
