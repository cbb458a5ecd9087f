"""trec_eval 10's measures that read its gain table (``ndcg.1=3,2=9``: a grade's gain; by default
the grade itself): ``G``, ``dcg``, ``ideal_dcg``, ``ndcg`` with a table, ``ndcg_rel``, ``Rndcg``,
``rbp`` and ``rbp_resid``, step for step as its ``m_*.c`` and ``gain_init.c`` compute them."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cmp_to_key

import numpy as np

from rankviz.trec_eval.lists import UNJUDGED, QueryList, atol, cdiv, log2, valid_int

GAIN_TABLES = ("G", "dcg", "ideal_dcg", "ndcg", "ndcg_rel", "Rndcg", "rbp", "rbp_resid")


@dataclass
class _Gain:
    level: int
    gain: float
    count: int


def _gains(ql: QueryList, table: list[tuple[str, float]]) -> list[_Gain]:
    """gain_init.c's setup_gains: the table's levels, then each grade of the qrels at its own value,
    sorted by gain with trec_eval's comparison (the difference truncated to an int)."""
    gains = [_Gain(atol(key), value, 0) for key, value in table if valid_int(key)]
    for level, count in enumerate(ql.levels):
        found = next((g for g in gains if g.level == level), None)
        if found is None:
            gains.append(_Gain(level, float(level), count))
        else:
            found.count = count
    return sorted(gains, key=cmp_to_key(_by_truncated_gain))


def _by_truncated_gain(a: _Gain, b: _Gain) -> int:
    """gain_init.c's comp_rel_gain: the difference of the gains as an int (gains less than 1 apart
    are equal, and keep their order: glibc's qsort merges)."""
    return int(a.gain - b.gain)


def _per_document(ql: QueryList, gains: list[_Gain]) -> list[float]:
    """get_gain for each document retrieved: the first gain of its grade, 0 without one (looked up
    in an array over the grades, one numpy take per query)."""
    lookup: dict[int, float] = {}
    for g in gains:
        lookup.setdefault(g.level, g.gain)
    if len(ql.rels) == 0:
        return []
    ranked = np.asarray(ql.rels, dtype=np.int64)
    low, high = min([UNJUDGED, *lookup]), max([0, int(ranked.max()), *lookup])
    if high - low > 4096:  # a table of far-off grades: one lookup per document
        return [lookup.get(r, 0.0) for r in ranked.tolist()]
    by_grade = np.zeros(high - low + 1)
    for level, gain in lookup.items():
        by_grade[level - low] = gain
    return by_grade[ranked - low].tolist()


class _Ideal:
    """trec_eval's walk down the ideal ranking: the gain at each next rank, level by level."""

    def __init__(self, gains: list[_Gain]) -> None:
        self.gains, self.level, self.at_level = gains, len(gains) - 1, 0
        self.gain = gains[-1].gain if gains else 0.0

    def step(self) -> float:
        self.at_level += 1
        while self.level >= 0 and self.at_level > self.gains[self.level].count:
            self.at_level, self.level = 1, self.level - 1
            self.gain = self.gains[self.level].gain if self.level >= 0 else 0.0
        return self.gain


def _dcgs(ql: QueryList, table) -> tuple[float, float]:
    """m_ndcg.c: the run's DCG and the ideal one."""
    gains = _gains(ql, table)
    each = _per_document(ql, gains)
    ideal, got, best, i = _Ideal(gains), 0.0, 0.0, 0
    while i < len(ql.rels) and ideal.gain > 0.0:
        got += _discounted(each[i], i)
        if ideal.step() > 0.0:
            best += ideal.gain / math.log2(i + 2)
        i += 1
    for j in _gaining(each, i):
        got += each[j] / math.log2(j + 2)
    i = max(i, len(ql.rels))
    while ideal.gain > 0.0:
        if ideal.step() > 0.0:
            best += ideal.gain / math.log2(i + 2)
        i += 1
    return got, best


def _gaining(each: list[float], start: int) -> list[int]:
    """The ranks from ``start`` on whose gain is not 0 (the others add nothing to a DCG)."""
    return [j for j in range(start, len(each)) if each[j]]


def _discounted(gain: float, i: int) -> float:
    return gain / math.log2(i + 2) if gain != 0 else 0.0


def ndcg(ql: QueryList, table) -> float:
    got, best = _dcgs(ql, table)
    return got / best if best > 0.0 else 0.0


def ndcg_rel(ql: QueryList, table) -> float:
    """m_ndcg_rel.c: nDCG averaged at each relevant document (a missed one: at the list's end)."""
    gains = _gains(ql, table)
    each = _per_document(ql, gains)
    ideal, got, best, total, rel_ret, relevant, i = _Ideal(gains), 0.0, 0.0, 0.0, 0, 0, 0
    n = len(ql.rels)
    while i < n and ideal.gain > 0.0:
        gain = each[i]
        got += _discounted(gain, i)
        if ideal.step() > 0.0:
            relevant += 1
            best += ideal.gain / math.log2(i + 2)
        if gain > 0:
            total, rel_ret = total + cdiv(got, best), rel_ret + 1
        i += 1
    for j in _gaining(each, i):
        got += each[j] / math.log2(j + 2)
        if each[j] > 0:
            total, rel_ret = total + cdiv(got, best), rel_ret + 1
    i = max(i, n)
    while ideal.gain > 0.0:
        if ideal.step() > 0.0:
            relevant += 1
            best += ideal.gain / math.log2(i + 2)
        i += 1
    total += cdiv(float(relevant - rel_ret) * got, best)
    return cdiv(total, relevant) if total > 0.0 else 0.0


def rndcg(ql: QueryList, table) -> float:
    """m_Rndcg.c: nDCG averaged where the ideal gain changes, and at the list's end."""
    if ql.num_rel == 0:
        return 0.0
    gains = _gains(ql, table)
    each = _per_document(ql, gains)
    ideal, got, best, total, changes, i = _Ideal(gains), 0.0, 0.0, 0.0, 0, 0
    before, n = ideal.gain, len(ql.rels)
    while i < n and ideal.gain > 0.0:
        gain = each[i]
        if ideal.step() != before:
            if best > 0.0:
                total, changes = total + got / best, changes + 1
            before = ideal.gain
        got += _discounted(gain, i)
        if ideal.gain > 0.0:
            best += ideal.gain / math.log2(i + 2)
        i += 1
    if i < n:
        for j in _gaining(each, i):
            got += each[j] / math.log2(j + 2)
        i = n
        if best > 0.0:
            total, changes = total + got / best, changes + 1
    while ideal.gain > 0.0:
        if ideal.step() != before:
            if best > 0.0:
                total, changes = total + got / best, changes + 1
            before = ideal.gain
        if ideal.gain > 0.0:
            best += ideal.gain / math.log2(i + 2)
        i += 1
    return cdiv(total, changes)


def g(ql: QueryList, table) -> float:
    """m_G.c: each document's gain over log2(2 + the ideal's cost so far - the run's gain)."""
    gains = _gains(ql, table)
    each = _per_document(ql, gains)
    ideal, found, got, best, cost, i = _Ideal(gains), 0.0, 0.0, 0.0, 0.0, 0
    n = len(ql.rels)
    while i < n and ideal.gain > 0.0:
        gain = each[i]
        got += gain
        if ideal.step() > 0.0:
            best += ideal.gain
        cost += ideal.gain if ideal.gain >= 1.0 else 1.0
        if gain != 0:
            found += gain / log2(2 + cost - got)
        i += 1
    for j in range(i, n):
        gain = each[j]
        got += gain
        cost += 1.0
        if gain != 0:
            found += gain / log2(2 + cost - got)
    while ideal.gain > 0.0:
        if ideal.step() > 0.0:
            best += ideal.gain
    return found / best if best > 0.0 else 0.0


def rbp(ql: QueryList, table) -> float:
    """m_rbp.c: (1 - p) sum of gain p^(i-1), p = 0.9 unless ``p=`` is given; gains outside [0, 1]
    scaled into it (trec_eval's bounds start from uninitialised doubles; 0 here, as its build
    prints)."""
    p = next((value for key, value in table if key == "p"), 0.9)
    gains = _gains(ql, table)
    low, high = min([0.0, *(x.gain for x in gains)]), max([0.0, *(x.gain for x in gains)])
    if low < 0 or high > 1:
        for x in gains:
            x.gain = (x.gain - low) / (high - low)
    total, weight = 0.0, 1.0
    for gain in _per_document(ql, gains):
        if gain != 0:
            total += gain * weight
        weight *= p
    return (1.0 - p) * total


def rbp_resids(lists: Mapping[str, QueryList], table) -> dict[str, float]:
    """m_rbp_resid.c of every query: what RBP could gain were every unjudged document relevant,
    and the ranks past the list (0 when every document retrieved is judged). p^i as trec_eval
    makes it, one multiplication after another, and each query's holes' weights summed in rank
    order, rank by rank for every query at once: the doubles are its own."""
    p = next((value for key, value in table if key == "p"), 0.9)
    ranked = [np.asarray(ql.rels, dtype=np.int64) for ql in lists.values()]
    lengths = np.array([len(r) for r in ranked], dtype=np.int64)
    longest = int(lengths.max(initial=0))
    weights = np.cumprod(np.r_[1.0, np.full(longest, p)])
    holes = np.zeros((len(ranked), longest), dtype=bool)
    starts = np.cumsum(lengths) - lengths
    rows = np.repeat(np.arange(len(ranked)), lengths)
    holes[rows, np.arange(int(lengths.sum())) - starts[rows]] = (
        np.concatenate([*ranked, np.empty(0, np.int64)]) < 0
    )
    summed = np.zeros(len(ranked))
    for rank in range(longest):
        np.add(summed, weights[rank], out=summed, where=holes[:, rank])
    found = np.where(holes.any(axis=1), weights[lengths] + (1 - p) * summed, 0.0)
    return dict(zip(lists, found.tolist(), strict=True))


GAINED: dict[str, Callable[[QueryList, list], float]] = {
    "G": g,
    "dcg": lambda ql, table: _dcgs(ql, table)[0],
    "ideal_dcg": lambda ql, table: _dcgs(ql, table)[1],
    "ndcg": ndcg,
    "ndcg_rel": ndcg_rel,
    "Rndcg": rndcg,
    "rbp": rbp,
}
