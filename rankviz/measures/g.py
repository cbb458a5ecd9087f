"""G (trec_eval's): each gained document's gain, discounted by log2 of 2 + how far the run's gain
so far falls behind the ideal ranking's cost so far, over the ideal's total gain."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from rankviz.measures._gains import GAINS, IDEAL
from rankviz.measures._ideal import GainWalk
from rankviz.measures._segments import per_query_ideal_sum, safe_divide, segment_prefix_sum
from rankviz.measures.spec import Family, register

if TYPE_CHECKING:
    from rankviz.ranking.ranking_table import RankingTable


def g(table: RankingTable, cutoff: None, *, gains: str | None, ideal: str) -> np.ndarray:
    """(1/total ideal gain) sum over gained documents at rank i of gain / log2(2 + cost_i -
    got_i): cost_i the ideal's gains through rank i, each at least 1 (1 a rank past them), got_i
    the run's gain through rank i. Integers all under the default gains: exact whatever the order
    of the sums."""
    walk = GainWalk.of(table, gains, ideal)
    pos = table.pos[walk.rows]
    count = walk.ideal_count[walk.query]
    total_gain = per_query_ideal_sum(table, walk.ideal_gain)
    ideal_cost = np.where(walk.ideal_gain > 0, np.maximum(walk.ideal_gain, 1.0), 0.0)
    total_cost = per_query_ideal_sum(table, ideal_cost)
    within = pos < count
    cost = np.empty(len(pos))
    cost_so_far = segment_prefix_sum(table.ideal_query, ideal_cost) + ideal_cost
    cost[within] = cost_so_far[walk.ideal_start[walk.query[within]] + pos[within]]
    beyond = ~within
    cost[beyond] = total_cost[walk.query[beyond]] + (pos[beyond] - count[beyond] + 1)
    got = segment_prefix_sum(walk.query, walk.gain) + walk.gain
    found = np.bincount(
        walk.query, weights=walk.gain / np.log2(2.0 + cost - got), minlength=table.n_queries
    )
    return safe_divide(found, total_gain)


FAMILY = register(
    Family(
        name="G",
        aliases=(),
        params=(GAINS, IDEAL),
        cutoff_required=False,
        cutoff_allowed=False,
        kernel=g,
        expected=None,  # a discount of a running difference: no closed form over tied orders
        definition="(1/total ideal gain) sum over gained documents of gain / log2(2 + ideal cost "
        "so far - run gain so far)",
        convention="trec_eval G: a grade is its gain, or a gain table's (G.0=0.5,3=1: "
        "gains={0:0.5,3:1}); negative grades gain 0; no closed form under ties=expected",
    )
)
