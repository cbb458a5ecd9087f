"""DCG@K, not normalised (trec_eval's ``dcg`` without a gain table: the whole run, linear gain)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from rankviz.measures._common import gain_of
from rankviz.measures._groups import expected_positional_sum
from rankviz.measures._segments import per_query_sum, rows_with_grade_at_least
from rankviz.measures.ndcg import GAIN
from rankviz.measures.spec import Family, register

if TYPE_CHECKING:
    from rankviz.ranking import RankingTable


def dcg(table: RankingTable, cutoff: int | None, *, gain: str) -> np.ndarray:
    """sum over ranks i <= K of gain(g_i) / log2(i + 1); negative grades and unjudged documents
    gain 0."""
    top = table.top(cutoff)
    gained = rows_with_grade_at_least(top, 1)
    return per_query_sum(
        top, gained, gain_of(top.grade[gained], gain) / np.log2(top.pos[gained] + 2.0)
    )


def expected_dcg(table: RankingTable, cutoff: int | None, *, gain: str) -> np.ndarray:
    """E[DCG@K] over random orders inside tie groups: each position of a group gains the group's
    mean gain."""
    gained = rows_with_grade_at_least(table, 1)
    return expected_positional_sum(
        table,
        cutoff,
        gained,
        gain_of(table.grade[gained], gain),
        lambda rank: 1.0 / np.log2(rank + 1.0),
    )


FAMILY = register(
    Family(
        name="DCG",
        aliases=("dcg",),
        params=(GAIN,),
        cutoff_required=False,
        kernel=dcg,
        expected=expected_dcg,
        definition="sum of gain / log2(rank + 1) over the top K (not normalised)",
        convention="linear gain (trec_eval dcg, whole run) or gain=exp; negative grades gain 0",
    )
)
