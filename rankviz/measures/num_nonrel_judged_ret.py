"""NumNonRelJudgedRet: how many judged non-relevant documents the run retrieved (trec_eval
num_nonrel_judged_ret)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from rankviz.measures._common import REL
from rankviz.measures._segments import per_query_sum
from rankviz.measures.spec import Family, register

if TYPE_CHECKING:
    from rankviz.ranking.ranking_table import RankingTable


def judged_nonrelevant(table: RankingTable, cutoff: int | None, *, rel: int) -> np.ndarray:
    """Retrieved documents judged (grade >= 0) below ``rel``: no order changes the count."""
    return per_query_sum(table, np.flatnonzero(table.judged & (table.grade < rel)))


FAMILY = register(
    Family(
        name="NumNonRelJudgedRet",
        aliases=("num_nonrel_judged_ret",),
        params=(REL,),
        cutoff_required=False,
        kernel=judged_nonrelevant,
        expected=judged_nonrelevant,
        definition="judged non-relevant documents retrieved (judged: grade >= 0; non-relevant: "
        "grade < rel)",
        convention="trec_eval num_nonrel_judged_ret (after -M); a count: its summary in "
        "trec_eval's output is the sum over queries, rankviz's the mean",
        cutoff_allowed=False,
        condensable=False,
    )
)
