"""G (trec_eval's): each gained document's gain, discounted by log2 of 2 + how far the run's gain
so far falls behind the ideal ranking's cost so far, over the ideal's total gain."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from rankviz.measures._ideal import GainWalk
from rankviz.measures._segments import per_query_ideal_sum, safe_divide, segment_prefix_sum
from rankviz.measures.spec import Family, register

if TYPE_CHECKING:
    from rankviz.ranking import RankingTable


def g(table: RankingTable, cutoff: None) -> np.ndarray:
    """(1/total ideal gain) sum over gained documents at rank i of gain / log2(2 + cost_i -
    got_i): cost_i the ideal's gains through rank i (1 a rank past them), got_i the run's gain
    through rank i. Integers all: exact whatever the order of the sums."""
    walk = GainWalk.of(table)
    pos = table.pos[walk.rows]
    count = walk.ideal_count[walk.query]
    total_gain = per_query_ideal_sum(table, walk.ideal_gain)
    within = pos < count
    cost = np.empty(len(pos))
    ideal_so_far = segment_prefix_sum(table.ideal_query, walk.ideal_gain) + walk.ideal_gain
    cost[within] = ideal_so_far[walk.ideal_start[walk.query[within]] + pos[within]]
    beyond = ~within
    cost[beyond] = total_gain[walk.query[beyond]] + (pos[beyond] - count[beyond] + 1)
    got = segment_prefix_sum(walk.query, walk.gain) + walk.gain
    found = np.bincount(
        walk.query, weights=walk.gain / np.log2(2.0 + cost - got), minlength=table.n_queries
    )
    return safe_divide(found, total_gain)


FAMILY = register(
    Family(
        name="G",
        aliases=(),
        params=(),
        cutoff_required=False,
        cutoff_allowed=False,
        kernel=g,
        expected=None,  # a discount of a running difference: no closed form over tied orders
        definition="(1/total ideal gain) sum over gained documents of gain / log2(2 + ideal cost "
        "so far - run gain so far)",
        convention="trec_eval G with its default gains (a grade is its gain; negative grades gain "
        "0); no closed form under ties=expected",
    )
)
