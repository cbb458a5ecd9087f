"""ndcg_rel (trec_eval's): nDCG averaged at the rank of each relevant document, a relevant
document the run misses counting the whole run's nDCG."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from rankviz.measures._gains import GAINS, IDEAL
from rankviz.measures._ideal import GainWalk
from rankviz.measures._segments import safe_divide
from rankviz.measures.spec import Family, register

if TYPE_CHECKING:
    from rankviz.ranking.ranking_table import RankingTable


def ndcg_rel(table: RankingTable, cutoff: None, *, gains: str | None, ideal: str) -> np.ndarray:
    """(1/R_g) (sum over retrieved documents with a gain of DCG / ideal DCG at its rank + (R_g -
    those retrieved) x the run's DCG / the whole ideal DCG); R_g: the judged documents with a
    gain (a document whose gain is below 0 costs in the DCG, and is not averaged at)."""
    walk = GainWalk.of(table, gains, ideal)
    gaining = walk.gain > 0
    query = walk.query[gaining]
    at_rank = walk.dcg[gaining] / walk.ideal_dcg_at(query, table.pos[walk.rows[gaining]])
    total = np.bincount(query, weights=at_rank, minlength=table.n_queries)
    found = np.bincount(query, minlength=table.n_queries)
    queries = np.arange(table.n_queries)
    whole = walk.run_dcg_before(table, queries, np.full(table.n_queries, table.n_rows + 1))
    whole_ideal = walk.whole_ideal_dcg(queries)
    total = total + safe_divide((walk.ideal_count - found) * whole, whole_ideal)
    return np.where(total > 0, safe_divide(total, walk.ideal_count.astype(np.float64)), 0.0)


FAMILY = register(
    Family(
        name="ndcg_rel",
        aliases=(),
        params=(GAINS, IDEAL),
        cutoff_required=False,
        cutoff_allowed=False,
        kernel=ndcg_rel,
        expected=None,  # an average of ratios at the relevant documents' ranks: no closed form
        definition="nDCG averaged at the rank of each judged document with a gain (a missed one "
        "counts the run's whole DCG over the whole ideal DCG)",
        convention="trec_eval ndcg_rel: a grade is its gain, or a gain table's (ndcg_rel.1=3,2=9: "
        "gains={1:3,2:9}); negative grades gain 0; no closed form under ties=expected",
    )
)
