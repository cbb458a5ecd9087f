"""What the set measures read: per query, the documents retrieved (all of them: a set has no rank
cutoff), the relevant ones among them, and the relevant ones in the qrels. No order inside ties
changes them, so every set measure is its own expected value."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from rankviz.measures._segments import relevant_in_qrels, relevant_retrieved

if TYPE_CHECKING:
    from rankviz.ranking.ranking_table import RankingTable


def set_counts(table: RankingTable, rel: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(retrieved, relevant retrieved, relevant in the qrels) per query, as floats."""
    retrieved = np.diff(table.offsets).astype(np.float64)
    return retrieved, relevant_retrieved(table, rel), relevant_in_qrels(table, rel)
