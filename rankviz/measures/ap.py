"""Average precision (AP, AP@K); its mean over queries is MAP."""

from __future__ import annotations

import numpy as np

from rankviz.measures._common import REL
from rankviz.measures._segments import per_query_sum, rank_among, relevant_in_qrels, rows_with_grade_at_least, safe_divide
from rankviz.measures.spec import Family, register


def average_precision(table, cutoff: int | None, *, rel: int) -> np.ndarray:
    """AP = sum of precision at the rank of each relevant document in the top K / R.

    R counts every document of the query with grade >= rel in the qrels, retrieved or not
    (trec_eval ``map``; AP@K is ``map_cut.K``, still divided by all R). 0 when R = 0.
    """
    table = table.top(cutoff)
    hits = rows_with_grade_at_least(table, rel)
    precision_at_hit = (rank_among(table, hits) + 1.0) / (table.pos[hits] + 1.0)
    return safe_divide(per_query_sum(table, hits, precision_at_hit), relevant_in_qrels(table, rel))


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
