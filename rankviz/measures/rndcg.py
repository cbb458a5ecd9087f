"""Rndcg (trec_eval's): nDCG averaged at the ranks where the ideal ranking's gain steps down (the
last one at R_g, where the ideal's gains end), and at the run's end when it goes on past R_g + 1."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from rankviz.measures._common import REL
from rankviz.measures._gains import GAINS, IDEAL
from rankviz.measures._ideal import GainWalk
from rankviz.measures._segments import relevant_in_qrels, safe_divide
from rankviz.measures.spec import Family, register

if TYPE_CHECKING:
    from rankviz.ranking.ranking_table import RankingTable


def rndcg(
    table: RankingTable, cutoff: None, *, rel: int, gains: str | None, ideal: str
) -> np.ndarray:
    """The mean over the steps b of the ideal gains (b documents at or above the step) of the
    run's DCG@b / ideal DCG@b, with the run's whole DCG / ideal DCG when it ranks R_g + 2 or more
    documents; 0 for a query with no relevant document at ``rel``."""
    walk = GainWalk.of(table, gains, ideal)
    ladder = walk.ideal_gain
    own = table.ideal_query
    at = table.ideal_pos
    # a step: the ideal's gain differs from the one above it, or its positive gains end below it
    steps = np.flatnonzero(
        (ladder > 0)
        & (
            (at >= walk.ideal_count[own] - 1)
            | ~np.r_[ladder[1:] == ladder[:-1], False]
            | (np.r_[own[1:], -1] != own)
        )
    )
    query, before = own[steps], at[steps] + 1  # each step's query and its b
    ratios = walk.run_dcg_before(table, query, before) / walk.ideal_dcg_at(query, before - 1)
    total = np.bincount(query, weights=ratios, minlength=table.n_queries)
    changes = np.bincount(query, minlength=table.n_queries).astype(np.float64)
    ranked = np.diff(table.offsets)
    longer = ranked >= walk.ideal_count + 2
    queries = np.flatnonzero(longer)
    whole = walk.run_dcg_before(table, queries, np.full(len(queries), table.n_rows + 1))
    whole_ideal = walk.whole_ideal_dcg(queries)
    total[queries] += safe_divide(whole, whole_ideal)
    changes[queries] += 1
    value = safe_divide(total, changes)
    value[relevant_in_qrels(table, rel) == 0] = 0.0
    return value


def _undefined(
    table: RankingTable, cutoff: None, *, rel: int, gains: str | None, ideal: str
) -> np.ndarray:
    """A query with a relevant document at ``rel`` whose ideal ranking gains nothing (a gain table
    with no positive gain for its grades): no step to average at, 0 / 0."""
    return (relevant_in_qrels(table, rel) > 0) & (GainWalk.of(table, gains, ideal).ideal_count == 0)


FAMILY = register(
    Family(
        name="Rndcg",
        aliases=(),
        params=(REL, GAINS, IDEAL),
        cutoff_required=False,
        cutoff_allowed=False,
        kernel=rndcg,
        undefined=_undefined,
        expected=None,  # an average of ratios at fixed ranks of one query: no closed form here
        definition="nDCG averaged at each rank where the ideal ranking's gain steps down, and at "
        "the run's end past R_g + 1",
        convention="trec_eval Rndcg: a grade is its gain, or a gain table's (Rndcg.2=-1: "
        "gains={2:-1}); 0 without a relevant document at rel; no closed form under ties=expected",
    )
)
