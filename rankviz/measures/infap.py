"""Inferred average precision (infAP; Yilmaz & Aslam, CIKM 2006), as trec_eval 10 computes it:
AP estimated from a sampled pool, where a document the qrels list below 0 was pooled but not judged
(sampled out), and one they do not list was never pooled."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from rankviz.measures._common import REL
from rankviz.measures._segments import per_query_sum, relevant_in_qrels, safe_divide
from rankviz.measures.spec import Family, register

if TYPE_CHECKING:
    from rankviz.ranking.ranking_table import RankingTable

#: trec_eval's smoothing of the judged share above a relevant document (m_infap.c)
EPSILON = 0.00001


def inf_ap(table: RankingTable, cutoff: None, *, rel: int) -> np.ndarray:
    """The mean over the qrels' relevant documents of the expected precision at each one retrieved:
    1 at rank 1; below it, 1/k + ((k-1)/k) x (pooled documents above / (k-1)) x (relevant above +
    eps) / (judged above + 2 eps), at 1-based rank k. Unpooled documents count only in the rank."""
    relevant = table.judged & (table.grade >= rel)
    pooled = table.judged | (table.grade < 0)  # a negative grade: pooled, not judged
    hits = np.flatnonzero(relevant)
    first = table.offsets[:-1][table.row_query[hits]]
    rel_above, nonrel_above, unjudged_above = (
        _above(flags, hits, first)
        for flags in (relevant, table.judged & ~relevant, pooled & ~table.judged)
    )
    j = table.pos[hits].astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        term = 1.0 / (j + 1.0) + (j / (j + 1.0)) * (
            (rel_above + nonrel_above + unjudged_above) / j
        ) * ((rel_above + EPSILON) / (rel_above + nonrel_above + 2 * EPSILON))
    term[j == 0] = 1.0
    return safe_divide(per_query_sum(table, hits, term), relevant_in_qrels(table, rel))


def _above(flags: np.ndarray, rows: np.ndarray, first: np.ndarray) -> np.ndarray:
    """How many flagged rows lie above each of ``rows`` in its query (``first``: its query's first
    row): counted among the flagged rows alone, not by a pass of sums over the whole table."""
    flagged = np.flatnonzero(flags)
    return np.searchsorted(flagged, rows) - np.searchsorted(flagged, first)


FAMILY = register(
    Family(
        name="infAP",
        aliases=("infap",),
        params=(REL,),
        cutoff_required=False,
        cutoff_allowed=False,
        kernel=inf_ap,
        expected=None,  # a product of counts above each document: no closed form here
        definition="(1/R) sum over retrieved relevant documents at rank k > 1 of 1/k + ((k-1)/k) "
        "(pooled above / (k-1)) (relevant above + eps) / (judged above + 2 eps); 1 at rank 1",
        convention="trec_eval infAP (eps = 0.00001): grade < 0 pooled but not judged, a document "
        "the qrels do not list not pooled; no closed form under ties=expected",
    )
)
