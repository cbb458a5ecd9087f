"""Utility (trec_eval's ``utility.a,b,c,d``; the TREC filtering tracks' linear utility): a gain
for each relevant document retrieved, a cost for each other one, over the retrieved set."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from rankviz.measures._common import REL
from rankviz.measures._segments import relevant_in_qrels, relevant_retrieved
from rankviz.measures.spec import Family, register
from rankviz.settings.options import Option

if TYPE_CHECKING:
    from rankviz.ranking.ranking_table import RankingTable


def _weight(name: str, default: float, what: str) -> Option:
    return Option(name, default, f"the weight of each {what}", kind=float)


REL_RET = _weight("rel_ret", 1.0, "relevant document retrieved")
NONREL_RET = _weight("nonrel_ret", -1.0, "other document retrieved")
REL_NONRET = _weight("rel_nonret", 0.0, "relevant document not retrieved")
NONREL_NONRET = _weight("nonrel_nonret", 0.0, "other document of the collection not retrieved")
DOCS = Option(
    "docs",
    0,
    "documents in the collection (trec_eval -N), for nonrel_nonret",
    kind=int,
    low=0,
)


def utility(
    table: RankingTable,
    cutoff: None,
    *,
    rel_ret: float,
    nonrel_ret: float,
    rel_nonret: float,
    nonrel_nonret: float,
    docs: int,
    rel: int,
) -> np.ndarray:
    """a x relevant retrieved + b x others retrieved + c x relevant missed + d x others missed
    (others missed: the collection's ``docs`` less everything retrieved or relevant); 0 for a query
    the run does not answer, as trec_eval -c clears it."""
    retrieved = np.diff(table.offsets).astype(np.float64)
    found = relevant_retrieved(table, rel)
    relevant = relevant_in_qrels(table, rel)
    value = (
        rel_ret * found
        + nonrel_ret * (retrieved - found)
        + rel_nonret * (relevant - found)
        + nonrel_nonret * (docs + found - retrieved - relevant)
    )
    return np.where(table.in_run, value, 0.0)


FAMILY = register(
    Family(
        name="Utility",
        aliases=("utility",),
        params=(REL_RET, NONREL_RET, REL_NONRET, NONREL_NONRET, DOCS, REL),
        cutoff_required=False,
        cutoff_allowed=False,
        kernel=utility,
        expected=utility,  # a function of the retrieved set alone: every order gives it
        definition="rel_ret x relevant retrieved + nonrel_ret x others retrieved + rel_nonret x "
        "relevant not retrieved + nonrel_nonret x others not retrieved",
        convention="trec_eval utility (weights 1, -1, 0, 0; docs as its -N); a query the run "
        "misses scores 0; not a share: its mean can be negative",
    )
)
