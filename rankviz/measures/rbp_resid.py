"""trec_eval's ``rbp_resid``: what RBP could still gain were every unjudged document it retrieved,
and every rank past the run, relevant; 0 where every document retrieved is judged (trec_eval's
rule, which leaves the ranks past the run out then). ``RBP(residual=True)`` is the residual without
that rule."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from rankviz.measures.spec import Family, register
from rankviz.settings.options import Option

if TYPE_CHECKING:
    from rankviz.ranking.ranking_table import RankingTable

P = Option(
    "p",
    0.9,
    "persistence: the chance a user goes on to the next document (trec_eval's 0.9)",
    kind=float,
    low=1e-9,
    high=1 - 1e-9,
)


def rbp_resid(table: RankingTable, cutoff: None, *, p: float) -> np.ndarray:
    """p^n + (1 - p) sum over the unjudged ranks i (from 0) of p^i, n the documents retrieved; 0
    without an unjudged one. p^i made as trec_eval makes it, one multiplication after another, and
    each query's terms summed in rank order: the doubles are its own."""
    lengths = np.diff(table.offsets)
    weights = np.cumprod(np.r_[1.0, np.full(int(lengths.max(initial=0)), p)])
    # a judged rank adds 0.0, which leaves a sum as it is: the same doubles as summing the
    # unjudged ranks alone, without gathering them first
    unjudged = np.where(table.judged, 0.0, weights[table.pos])
    summed = np.bincount(table.row_query, weights=unjudged, minlength=table.n_queries)
    judged = np.bincount(table.row_query[table.judged], minlength=table.n_queries)
    return np.where(lengths > judged, weights[lengths] + (1 - p) * summed, 0.0)


FAMILY = register(
    Family(
        name="rbp_resid",
        aliases=(),
        params=(P,),
        cutoff_required=False,
        cutoff_allowed=False,
        kernel=rbp_resid,
        expected=None,  # which ranks hold the unjudged documents moves with the order
        definition="p^n + (1 - p) sum of p^(i-1) over the unjudged ranks i of the n retrieved, 0 "
        "where all are judged",
        convention="trec_eval rbp_resid (p = 0.9; rbp_resid.p=0.5); lower is better; "
        "RBP(residual=True) is the residual without the 0",
        lower_is_better=True,
    )
)
