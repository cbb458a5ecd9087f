"""YAAP, "yet another average precision" (Robertson, "On Smoothing Average Precision", ECIR 2012;
trec_eval's ``yaap``): log((1 + S) / (1 + R - S)), S the sum of precision at each relevant
document retrieved (AP's numerator) and R the relevant documents in the qrels. It orders a query's
rankings as AP does, but is finite and spread out where AP is near 0 or 1, so it averages
better."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from rankviz.measures._common import REL
from rankviz.measures._segments import relevant_in_qrels
from rankviz.measures.ap import precision_sum
from rankviz.measures.spec import Family, register

if TYPE_CHECKING:
    from rankviz.ranking.ranking_table import RankingTable


def yaap(table: RankingTable, cutoff: int | None, *, rel: int) -> np.ndarray:
    """log((1 + S) / (1 + R - S)) of the top K (R still every relevant document; 0 when R = 0)."""
    found = precision_sum(table.top(cutoff), rel=rel)
    return np.log((1.0 + found) / (1.0 + relevant_in_qrels(table, rel) - found))


FAMILY = register(
    Family(
        name="yaap",
        aliases=("YAAP",),
        params=(REL,),
        cutoff_required=False,
        kernel=yaap,
        expected=None,  # the log of a ratio of sums over orders: no closed form here
        definition="log((1 + S) / (1 + R - S)), S the sum of precision at each relevant document "
        "(AP's numerator), R the relevant documents in the qrels",
        convention="trec_eval yaap (not in all_trec; Robertson 2012); no closed form under "
        "ties=expected",
    )
)
