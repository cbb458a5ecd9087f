"""Normalised discounted cumulative gain (nDCG, nDCG@K)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from rankviz.measures._gains import GAINS, IDEAL, ideal_gains, row_gains
from rankviz.measures._groups import expected_positional_sum
from rankviz.measures._segments import per_query_ideal_sum, per_query_sum, safe_divide
from rankviz.measures.spec import Family, register
from rankviz.settings import eval_settings as settings

if TYPE_CHECKING:
    from rankviz.ranking.ranking_table import RankingTable

GAIN = settings.GAIN


def ndcg(
    table: RankingTable, cutoff: int | None, *, gain: str, gains: str | None, ideal: str = "gain"
) -> np.ndarray:
    """nDCG@K = DCG@K / ideal DCG@K with DCG = sum gain(g_i) / log2(i + 1) over ranks i <= K.

    Negative grades and unjudged documents gain 0. The ideal ranking sorts all judged documents of
    the query by grade (not only the retrieved ones), truncated at K; 0 when the ideal DCG is 0.
    Linear gain with this ideal is trec_eval ``ndcg`` / ``ndcg_cut.K``; ``gain=exp`` is gdeval's;
    a gain table (``gains``) is trec_eval's ``ndcg.1=3,2=9``: a gain below 0 costs in the run's
    DCG, and the ideal ranks only the documents that gain. The relevance threshold does not apply.
    """
    top = table.top(cutoff)
    gained, values = row_gains(top, gain, gains)
    dcg = per_query_sum(top, gained, values / np.log2(top.pos[gained] + 2.0))
    return safe_divide(dcg, ideal_dcg(table, cutoff, gain, gains, ideal))


def ideal_dcg(
    table: RankingTable, cutoff: int | None, gain: str, gains: str | None, ideal: str = "gain"
) -> np.ndarray:
    """The ideal ranking's DCG@K of each query."""
    ideal_in = np.ones(len(table.ideal_pos), bool) if cutoff is None else table.ideal_pos < cutoff
    return per_query_ideal_sum(
        table, ideal_gains(table, gain, gains, ideal) / np.log2(table.ideal_pos + 2.0) * ideal_in
    )


def expected_ndcg(
    table: RankingTable, cutoff: int | None, *, gain: str, gains: str | None, ideal: str = "gain"
) -> np.ndarray:
    """E[nDCG@K] over random orders inside tie groups: each position of a group gains the group's
    mean gain.

    The ideal DCG does not depend on the run's order.
    """
    gained, values = row_gains(table, gain, gains)
    dcg = expected_positional_sum(
        table, cutoff, gained, values, lambda rank: 1.0 / np.log2(rank + 1.0)
    )
    return safe_divide(dcg, ideal_dcg(table, cutoff, gain, gains, ideal))


FAMILY = register(
    Family(
        name="nDCG",
        aliases=("NDCG", "ndcg_cut"),
        params=(GAIN, GAINS, IDEAL),
        cutoff_required=False,
        kernel=ndcg,
        expected=expected_ndcg,
        definition="DCG@K / ideal DCG@K, DCG = sum of gain / log2(rank + 1)",
        convention=(
            "linear gain (trec_eval ndcg_cut.K) or gain=exp (gdeval), or a gain table "
            "(trec_eval ndcg.1=3,2=9); ideal from all judged documents; negative grades gain 0"
        ),
    )
)
