"""NumRelRet@K: how many relevant documents the run retrieved (trec_eval num_rel_ret)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from rankviz.measures._common import REL
from rankviz.measures._groups import expected_positional_sum
from rankviz.measures._segments import relevant_retrieved, rows_with_grade_at_least
from rankviz.measures.spec import Family, register

if TYPE_CHECKING:
    from rankviz.ranking.ranking_table import RankingTable


def relevant_found(table: RankingTable, cutoff: int | None, *, rel: int) -> np.ndarray:
    """Documents of grade >= rel in the top K."""
    return relevant_retrieved(table.top(cutoff), rel)


def expected_relevant_found(table: RankingTable, cutoff: int | None, *, rel: int) -> np.ndarray:
    """E[NumRelRet@K] over random orders inside tie groups: the group cut by K brings its relevant
    documents in proportion to its positions inside K."""
    rows = rows_with_grade_at_least(table, rel)
    return expected_positional_sum(table, cutoff, rows, np.ones(len(rows)))


FAMILY = register(
    Family(
        name="NumRelRet",
        aliases=("num_rel_ret",),
        params=(REL,),
        cutoff_required=False,
        kernel=relevant_found,
        expected=expected_relevant_found,
        definition="relevant documents retrieved (in the top K)",
        convention="trec_eval num_rel_ret (ir_measures NumRet(rel=1)); a count: its summary in "
        "trec_eval's output is the sum over queries, rankviz's the mean",
    )
)
