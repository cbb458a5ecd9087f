"""DCG@K, not normalised (trec_eval's ``dcg`` without a gain table: the whole run, linear gain)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from rankviz.measures._gains import GAINS, row_gains
from rankviz.measures._groups import expected_positional_sum
from rankviz.measures._segments import per_query_sum
from rankviz.measures.ndcg import GAIN
from rankviz.measures.spec import Family, register

if TYPE_CHECKING:
    from rankviz.ranking.ranking_table import RankingTable


def dcg(table: RankingTable, cutoff: int | None, *, gain: str, gains: str | None) -> np.ndarray:
    """sum over ranks i <= K of gain(g_i) / log2(i + 1); negative grades and unjudged documents
    gain 0 (a gain table may give a grade a gain below 0)."""
    top = table.top(cutoff)
    gained, values = row_gains(top, gain, gains)
    return per_query_sum(top, gained, values / np.log2(top.pos[gained] + 2.0))


def expected_dcg(
    table: RankingTable, cutoff: int | None, *, gain: str, gains: str | None
) -> np.ndarray:
    """E[DCG@K] over random orders inside tie groups: each position of a group gains the group's
    mean gain."""
    gained, values = row_gains(table, gain, gains)
    return expected_positional_sum(
        table, cutoff, gained, values, lambda rank: 1.0 / np.log2(rank + 1.0)
    )


FAMILY = register(
    Family(
        name="DCG",
        aliases=("dcg",),
        params=(GAIN, GAINS),
        cutoff_required=False,
        kernel=dcg,
        expected=expected_dcg,
        definition="sum of gain / log2(rank + 1) over the top K (not normalised)",
        convention="linear gain (trec_eval dcg, whole run) or gain=exp, or a gain table "
        "(trec_eval dcg.1=3,2=9); negative grades gain 0",
    )
)
