"""Interpolated precision at recall levels, as trec_eval's ``iprec_at_recall`` computes it.

Not yet a family of the catalogue (its value over the orders of tied documents has no closed form
here): ``rankviz trec-eval`` prints it, on trec_eval's own order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from rankviz.measures._segments import relevant_in_qrels, rows_with_grade_at_least

if TYPE_CHECKING:
    from rankviz.ranking import RankingTable


def interpolated_precision(table: RankingTable, levels: Sequence[float], *, rel: int) -> np.ndarray:
    """Queries x levels: the highest precision at any rank from the one where the run has found
    round(level x R) relevant documents on (R: relevant in the qrels; trec_eval rounds with
    ``lround``, halves away from zero); 0 where the run never finds that many. At level 0, the
    highest precision anywhere (0 without a relevant document retrieved)."""
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
    relevant = relevant_in_qrels(table, rel)
    values = np.zeros((table.n_queries, len(levels)))
    for column, level in enumerate(levels):
        needed = np.floor(level * relevant + 0.5).astype(np.int64)
        at = start + np.maximum(needed, 1) - 1
        reached = (needed <= found) & (found > 0)
        values[reached, column] = best_after[at[reached]]
    return values
