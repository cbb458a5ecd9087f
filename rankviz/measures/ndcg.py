"""Normalised discounted cumulative gain (nDCG, nDCG@K)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from rankviz import settings
from rankviz.measures._common import gain_of
from rankviz.measures._groups import expected_positional_sum
from rankviz.measures._segments import (
    per_query_ideal_sum,
    per_query_sum,
    rows_with_grade_at_least,
    safe_divide,
)
from rankviz.measures.spec import Family, register

if TYPE_CHECKING:
    from rankviz.ranking import RankingTable

GAIN = settings.GAIN


def ndcg(table: RankingTable, cutoff: int | None, *, gain: str) -> np.ndarray:
    """nDCG@K = DCG@K / ideal DCG@K with DCG = sum gain(g_i) / log2(i + 1) over ranks i <= K.

    Negative grades and unjudged documents gain 0. The ideal ranking sorts all judged documents of
    the query by grade (not only the retrieved ones), truncated at K; 0 when the ideal DCG is 0.
    Linear gain with this ideal is trec_eval ``ndcg`` / ``ndcg_cut.K``; ``gain=exp`` is gdeval's.
    The relevance threshold does not apply: grades are gains.
    """
    top = table.top(cutoff)
    gained = rows_with_grade_at_least(top, 1)
    dcg = per_query_sum(
        top, gained, gain_of(top.grade[gained], gain) / np.log2(top.pos[gained] + 2.0)
    )
    return safe_divide(dcg, _ideal_dcg(table, cutoff, gain))


def _ideal_dcg(table: RankingTable, cutoff: int | None, gain: str) -> np.ndarray:
    ideal_in = np.ones(len(table.ideal_pos), bool) if cutoff is None else table.ideal_pos < cutoff
    return per_query_ideal_sum(
        table, gain_of(table.ideal_grades, gain) / np.log2(table.ideal_pos + 2.0) * ideal_in
    )


def expected_ndcg(table: RankingTable, cutoff: int | None, *, gain: str) -> np.ndarray:
    """E[nDCG@K] over random orders inside tie groups: each position of a group gains the group's
    mean gain.

    The ideal DCG does not depend on the run's order.
    """
    gained = rows_with_grade_at_least(table, 1)
    dcg = expected_positional_sum(
        table,
        cutoff,
        gained,
        gain_of(table.grade[gained], gain),
        lambda rank: 1.0 / np.log2(rank + 1.0),
    )
    return safe_divide(dcg, _ideal_dcg(table, cutoff, gain))


FAMILY = register(
    Family(
        name="nDCG",
        aliases=("NDCG", "ndcg_cut"),
        params=(GAIN,),
        cutoff_required=False,
        kernel=ndcg,
        expected=expected_ndcg,
        definition="DCG@K / ideal DCG@K, DCG = sum of gain / log2(rank + 1)",
        convention=(
            "linear gain (trec_eval ndcg_cut.K) or gain=exp (gdeval); ideal from all judged "
            "documents; negative grades gain 0"
        ),
    )
)
