"""NumRel: how many documents the qrels judge relevant for the query (trec_eval num_rel)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from rankviz.measures._common import REL
from rankviz.measures._segments import relevant_in_qrels
from rankviz.measures.spec import Family, register

if TYPE_CHECKING:
    from rankviz.ranking.ranking_table import RankingTable


def relevant(table: RankingTable, cutoff: int | None, *, rel: int) -> np.ndarray:
    """Judgments of grade >= rel, retrieved or not: the run's order plays no part."""
    return relevant_in_qrels(table, rel)


FAMILY = register(
    Family(
        name="NumRel",
        aliases=("num_rel",),
        params=(REL,),
        cutoff_required=False,
        kernel=relevant,
        expected=relevant,
        definition="documents the qrels judge relevant (grade >= rel)",
        convention="trec_eval num_rel; a count: its summary in trec_eval's output is the sum over "
        "queries, rankviz's the mean",
        cutoff_allowed=False,
        condensable=False,
    )
)
