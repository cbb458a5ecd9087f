"""Average precision (AP, AP@K); its mean over queries is MAP."""

from __future__ import annotations

import numpy as np

from rankviz.measures._common import REL
from rankviz.measures._segments import (
    in_cutoff,
    per_query_sum,
    prefix_sum,
    relevant,
    relevant_in_qrels,
    safe_divide,
)
from rankviz.measures.spec import Family, register


def average_precision(table, cutoff: int | None, *, rel: int) -> np.ndarray:
    """AP = sum of precision at the rank of each relevant document in the top K / R.

    R counts every document of the query with grade >= rel in the qrels, retrieved or not
    (trec_eval ``map``; AP@K is ``map_cut.K``, still divided by all R). 0 when R = 0.
    """
    hit = relevant(table, rel).astype(np.float64)
    precision_at_hit = prefix_sum(hit, table.offsets) / (table.pos + 1) * hit
    summed = per_query_sum(table, precision_at_hit * in_cutoff(table, cutoff))
    return safe_divide(summed, relevant_in_qrels(table, rel))


FAMILY = register(
    Family(
        name="AP",
        aliases=("MAP", "map"),
        params=(REL,),
        cutoff_required=False,
        kernel=average_precision,
        definition="sum of precision at each relevant document in the top K / number of relevant documents in the qrels",
        convention="trec_eval map / map_cut.K: the denominator counts relevant documents not retrieved",
    )
)
