"""NumRet@K: how many documents the run retrieved for the query (trec_eval num_ret)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from rankviz.measures.spec import Family, register

if TYPE_CHECKING:
    from rankviz.ranking.ranking_table import RankingTable


def retrieved(table: RankingTable, cutoff: int | None) -> np.ndarray:
    """Documents in the top K (all retrieved without K): no order inside ties changes the count,
    so this is its expected value too."""
    return np.diff(table.top(cutoff).offsets).astype(np.float64)


FAMILY = register(
    Family(
        name="NumRet",
        aliases=("num_ret",),
        params=(),
        cutoff_required=False,
        kernel=retrieved,
        expected=retrieved,
        definition="documents retrieved (in the top K)",
        convention="trec_eval num_ret (after -M, as --depth); a count: its summary in trec_eval's "
        "output is the sum over queries, rankviz's the mean",
    )
)
