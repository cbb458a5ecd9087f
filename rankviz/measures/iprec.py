"""Interpolated precision at a recall level (IPrec@r; ir_measures' name, trec_eval's
``iprec_at_recall_0.50``): the highest precision at any rank where the run has found at least that
share of the relevant documents."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from rankviz.measures._common import REL
from rankviz.measures._segments import relevant_in_qrels, rows_with_grade_at_least
from rankviz.measures.spec import Family, register
from rankviz.settings.options import Option

if TYPE_CHECKING:
    from rankviz.ranking.ranking_table import RankingTable

RECALL = Option(
    "recall",
    None,
    "the recall level, from 0 to 1 (trec_eval's eleven: 0.0, 0.1, .., 1.0)",
    kind=float,
    low=0.0,
    high=1.0,
    optional=True,
)


def interpolated_precision(table: RankingTable, levels: Sequence[float], *, rel: int) -> np.ndarray:
    """Queries x levels: the highest precision at any rank from the one where the run has found
    round(level x R) relevant documents on (R: relevant in the qrels; trec_eval rounds with
    ``lround``, halves away from zero); 0 where the run never finds that many. At level 0, the
    highest precision anywhere (0 without a relevant document retrieved)."""
    start, found, best_after, relevant = table.derived(
        ("interpolated precision", rel), lambda t: _running_best(t, rel)
    )
    values = np.zeros((table.n_queries, len(levels)))
    for column, level in enumerate(levels):
        needed = np.floor(level * relevant + 0.5).astype(np.int64)
        at = start + np.maximum(needed, 1) - 1
        reached = (needed <= found) & (found > 0)
        values[reached, column] = best_after[at[reached]]
    return values


def _running_best(table: RankingTable, rel: int) -> tuple[np.ndarray, ...]:
    """(each query's first relevant row among the hits, its hits, the highest precision from each
    hit on, its relevant documents in the qrels): what every recall level reads, once a table."""
    hits = rows_with_grade_at_least(table, rel)  # table order: query by query, best first
    query = table.row_query[hits]
    found = np.bincount(query, minlength=table.n_queries)
    start = np.cumsum(found) - found
    precision = (np.arange(len(hits)) - start[query] + 1) / (table.pos[hits] + 1.0)
    # the highest precision from each relevant document on, within its query: a running maximum
    # from the end over the precisions' ranks, each query lifted above the ones after it so that
    # none carries over (in integers: a lifted double would lose its last digits)
    distinct, code = np.unique(precision, return_inverse=True)
    lift = (table.n_queries - query[::-1]).astype(np.int64) * len(distinct)
    best_after = distinct[(np.maximum.accumulate(code[::-1] + lift) - lift)[::-1]]
    return start, found, best_after, relevant_in_qrels(table, rel)


def iprec(table: RankingTable, cutoff: None, *, recall: float, rel: int) -> np.ndarray:
    """IPrec@r, as trec_eval's ``iprec_at_recall`` computes it on the table's order."""
    return interpolated_precision(table, [recall], rel=rel)[:, 0]


def undefined_at(table: RankingTable, levels: Sequence[float], *, rel: int) -> np.ndarray:
    """Queries x levels: trec_eval's 0 / 0, an empty list (cut by -M, condensed by -J) at a level
    that needs no relevant document (round(level x R) = 0)."""
    empty = np.diff(table.offsets) == 0
    needs_none = np.floor(np.outer(relevant_in_qrels(table, rel), levels) + 0.5) == 0
    return empty[:, None] & needs_none


def _undefined(table: RankingTable, cutoff: None, *, recall: float, rel: int) -> np.ndarray:
    return undefined_at(table, [recall], rel=rel)[:, 0]


FAMILY = register(
    Family(
        name="IPrec",
        aliases=("iprec_at_recall",),
        params=(RECALL, REL),
        cutoff_required=False,
        cutoff_allowed=False,
        at_param="recall",
        kernel=iprec,
        undefined=_undefined,
        expected=None,  # a maximum over ranks: no closed form over the orders of tied documents
        definition="the highest precision at any rank where recall is at least r "
        "(round(r x R) relevant documents found; 0 if never)",
        convention="trec_eval iprec_at_recall (recall rounded as its lround); level 0: the "
        "highest precision anywhere; no closed form under ties=expected",
    )
)
