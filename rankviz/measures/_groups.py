"""Exact expectations over every order of each group of equal scores (the ``expected`` tie policy).

A ranking under ``ties="expected"`` is a sequence of tie groups (documents with one score in one
query); the order of the groups is fixed, the order inside each group is uniformly random. Measures
then have closed forms (McSherry & Najork, ECIR 2008) built from three primitives here:

- :func:`expected_positional_sum`: E[sum over ranks p <= K of discount(p) * value at p], where the
  value at each position of a group is the group's mean (P, R, nDCG).
- :func:`expected_cascade`: E[sum over p <= K of discount(p) * stop(p) * prod_{q<p} (1 - stop(q))]
  (RR with 0/1 stops and discount 1/p, Hits@K with discount 1, ERR with graded stops). Inside a
  group E[stop(x) prod_{y<x}(1 - stop(y))] = A(x-1) - A(x), where A(t) is the mean, over random
  t-prefixes of the group, of the product of (1 - stop): a hypergeometric mixture over how many
  documents with a positive stop the prefix holds, times the mean product over subsets of that many
  of them.
- :func:`discount_sums`: per group, the sum of a discount over its positions inside the cutoff (AP's
  pairwise term sums 1/rank, nDCG's 1/log2(rank + 1)): position by position for small groups, by
  differences of the discount's prefix sums for large ones (a run's chance level is one group of
  1,000 documents per query: 7M positions would be summed one by one).

Groups are contiguous runs of the table (the ``expected`` table is in trec_eval order), so a
group's start, size and query come from its first row. Work is proportional to the rows of groups
that hold a relevant document inside the cutoff; no Python loop over queries or groups (loops run
over positions inside a group and over relevant documents inside a group, vectorised across groups).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from rankviz.io.id_keys import many, marks
from rankviz.measures._segments import segment_prefix_sum

if TYPE_CHECKING:
    from rankviz.ranking.ranking_table import RankingTable


@dataclass(frozen=True)
class TieGroups:
    """The tie groups of a table, in table order."""

    query: np.ndarray  # int64 per group: segment (query) index
    start: np.ndarray  # int64 per group: 0-based rank of its first document
    size: np.ndarray  # int64 per group: number of documents

    def __len__(self) -> int:
        return len(self.size)


def tie_groups(table: RankingTable) -> TieGroups:
    """The table's tie groups (cached on the table)."""
    cached = table._cache.get("groups")
    if cached is None:
        group = table.tie_group
        first = (
            np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
            if len(group)
            else np.zeros(0, np.int64)
        )
        size = np.diff(np.r_[first, len(group)]).astype(np.int64)
        cached = TieGroups(
            table.row_query[first].astype(np.int64), table.pos[first].astype(np.int64), size
        )
        table._cache["groups"] = cached
    return cached


def group_sum(
    table: RankingTable, groups: TieGroups, rows: np.ndarray, values: np.ndarray | None = None
) -> np.ndarray:
    """Sum of ``values`` (or a count) over the given rows within each tie group."""
    return np.bincount(_group_index(table, rows), weights=values, minlength=len(groups)).astype(
        np.float64
    )


def _group_index(table: RankingTable, rows: np.ndarray) -> np.ndarray:
    """Index of each row's group among :func:`tie_groups` (tie_group ids are contiguous from 0)."""
    return table.tie_group[rows].astype(np.int64)


def exclusive_group_prefix(groups: TieGroups, values: np.ndarray, at: np.ndarray) -> np.ndarray:
    """Sum of ``values`` over the earlier groups of the same query, for the groups ``at``
    (sorted)."""
    return segment_prefix_sum(groups.query, values, at)


def inside(groups: TieGroups, cutoff: int | None) -> np.ndarray:
    """How many positions of each group fall inside the cutoff (0 for groups past it)."""
    if cutoff is None:
        return groups.size.copy()
    return np.clip(cutoff - groups.start, 0, groups.size)


#: Groups spanning up to this many positions inside the cutoff sum a discount position by position;
#: wider ones by a difference of its prefix sums (relative error ~1e-15 x the span's ratio to the
#: start).
ENUMERATED_SPAN = 64


def discount_sums(
    groups: TieGroups, selected: np.ndarray, cutoff: int | None, discount
) -> np.ndarray:
    """For each selected group, the sum of ``discount(rank)`` over its positions inside the cutoff
    (1-based ranks)."""
    span = inside(groups, cutoff)[selected]
    start = groups.start[selected]
    sums = np.zeros(len(selected))
    narrow = np.flatnonzero(span <= ENUMERATED_SPAN)
    if len(narrow):
        # position by position, each a pass over the groups: the discount of each rank taken
        # once, the terms added in rank order from 0.0 (a million groups of ten positions make
        # no ten-million-entry temporaries)
        counts, first = (span, start) if len(narrow) == len(span) else (span[narrow], start[narrow])
        widest = int(counts.max())
        rank_discount = discount(np.arange(1, int(first.max()) + widest + 1, dtype=np.float64))
        # groups alike (one first rank, one span: a chance level's whole rankings of one length)
        # have one sum, taken once: a million queries of ten documents were ten passes over a
        # million groups
        alike = _alike(first, counts)
        if alike is not None:
            first, counts = first[alike[0]], counts[alike[0]]
        narrow_sums = np.zeros(len(first))
        for offset in range(1, widest + 1):
            narrow_sums += np.where(offset <= counts, rank_discount[first + offset - 1], 0.0)
        found = narrow_sums if alike is None else narrow_sums[alike[1]]
        if len(narrow) == len(span):
            sums = found
        else:
            sums[narrow] = found
    wide = np.flatnonzero(span > ENUMERATED_SPAN)
    if len(wide):
        last = int((start[wide] + span[wide]).max())
        prefix = np.concatenate(
            [[0.0], np.cumsum(discount(np.arange(1, last + 1, dtype=np.float64)))]
        )
        sums[wide] = prefix[start[wide] + span[wide]] - prefix[start[wide]]
    return sums


def expected_positional_sum(
    table: RankingTable, cutoff: int | None, rows: np.ndarray, values: np.ndarray, discount=None
) -> np.ndarray:
    """Per query E[sum over ranks p <= K of discount(p) * value(p)] under random orders inside
    groups.

    ``rows`` and ``values`` give the nonzero values; each position of a group holds the group's mean
    value in expectation. Without a discount this is sum over groups of (positions inside K) * mean.
    """
    groups = tie_groups(table)
    mean = group_sum(table, groups, rows, values) / np.maximum(groups.size, 1)
    if discount is None:
        return np.bincount(
            groups.query, weights=mean * inside(groups, cutoff), minlength=table.n_queries
        )
    selected = np.flatnonzero((mean != 0) & (inside(groups, cutoff) > 0))
    weighted = mean[selected] * discount_sums(groups, selected, cutoff, discount)
    return np.bincount(groups.query[selected], weights=weighted, minlength=table.n_queries)


def expected_cascade(
    table: RankingTable, cutoff: int | None, rows: np.ndarray, stop: np.ndarray, discount
) -> np.ndarray:
    """Per query E[sum_{p <= K} discount(p) * stop(p) * prod_{q < p} (1 - stop(q))], random orders
    inside groups.

    ``rows`` (table order) are the documents with a positive stop probability ``stop`` in (0, 1];
    every other document has stop 0. ``discount`` maps 1-based ranks to weights.
    """
    groups = tie_groups(table)
    result = np.zeros(table.n_queries)
    if len(rows) == 0:
        return result
    certain = stop >= 1.0
    every_certain = bool(np.all(certain))  # RR, Hits: the first positive document stops
    positive = group_sum(table, groups, rows)
    span = inside(groups, cutoff)
    candidates = np.flatnonzero((positive > 0) & (span > 0))
    if every_certain:  # nothing continues past a positive document: each earlier group's
        # product is 1 (exp of a sum of zeros) unless it holds one, and every positive one stops
        reach, stopped = np.ones(len(candidates)), positive
    else:
        # the product over a whole earlier group does not depend on its order
        log_continue = np.where(certain, 0.0, np.log1p(-np.where(certain, 0.0, stop)))
        reach = np.exp(
            exclusive_group_prefix(groups, group_sum(table, groups, rows, log_continue), candidates)
        )
        stopped = group_sum(table, groups, rows, certain.astype(np.float64))
    reach[exclusive_group_prefix(groups, stopped, candidates) > 0] = 0.0
    positive = positive.astype(np.int64)
    selected, reach = candidates[reach > 0], reach[reach > 0]
    if len(selected) == 0:
        return result

    size = groups.size[selected].astype(np.float64)
    steps = span[selected]
    if every_certain:  # no subsets of positive documents to weigh
        total = _first_positive(
            size, size - positive[selected], steps, groups.start[selected], discount
        )
        np.add.at(result, groups.query[selected], reach * total)
        return result

    # B[g, j]: mean over j-subsets of the group's positive documents of prod (1 - stop), j < J
    local = np.searchsorted(selected, _group_index(table, rows))
    mine = (local < len(selected)) & (
        selected[np.minimum(local, len(selected) - 1)] == _group_index(table, rows)
    )
    item_group, item_continue = local[mine], 1.0 - stop[mine]
    item_index = np.arange(len(item_group)) - np.searchsorted(item_group, item_group)
    n_positive = positive[selected]
    width = int(min(n_positive.max(), span[selected].max())) + 1
    subset_mean = np.zeros((len(selected), width))
    subset_mean[:, 0] = 1.0
    j = np.arange(1, width)
    for i in range(int(item_index.max()) + 1):
        at = item_index == i
        g, w = item_group[at], item_continue[at][:, None]
        # a j-subset of i+1 items holds the new one with probability j/(i+1)
        share = np.minimum(j / (i + 1.0), 1.0)
        subset_mean[g, 1:] = share * w * subset_mean[g, :-1] + (1.0 - share) * subset_mean[g, 1:]

    # walk t = 0..m through each group's prefix: hypergeometric P(j positive documents in a
    # t-prefix)
    zeros = size - n_positive
    pmf = np.zeros((len(selected), width))
    pmf[:, 0] = 1.0
    previous = np.ones(len(selected))  # A(0) = 1
    total = np.zeros(len(selected))
    jj = np.arange(width)
    for t in range(int(steps.max())):
        active = np.flatnonzero(steps > t)
        p = pmf[active]
        left = (size[active] - t)[:, None]
        no_positive = np.clip(zeros[active][:, None] - (t - jj), 0, None) / left
        yes_positive = np.clip(n_positive[active][:, None] - (jj - 1), 0, None) / left
        stepped = p * no_positive
        stepped[:, 1:] += p[:, :-1] * yes_positive[:, 1:]
        pmf[active] = stepped
        # cumsum adds left to right (sum() is pairwise, its order set by the batch's width): a
        # query's value must not depend on the widest group of the queries evaluated with it
        current = np.cumsum(stepped * subset_mean[active], axis=1)[:, -1]
        total[active] += (previous[active] - current) * discount(
            groups.start[selected[active]] + t + 1
        )
        previous[active] = current
    np.add.at(result, groups.query[selected], reach * total)
    return result


def _alike(*columns: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """(a member of each distinct row of ``columns``, non-negative integers; each row's distinct
    row) where the rows are :func:`~rankviz.io.id_keys.many` against the rows the columns can
    make (a chance level's million queries of one length make a few), else None."""
    rows = len(columns[0])
    if rows and all(column.min() == column.max() for column in columns):  # one row, repeated
        return np.zeros(1, dtype=np.int64), np.zeros(rows, dtype=np.int64)
    key = np.zeros(rows, dtype=np.int64)
    size = 1
    for column in columns:
        width = int(column.max()) + 1 if len(column) else 1
        size *= width
        if not many(len(key), size):
            return None
        key *= width
        key += column.astype(np.int64)
    marked = marks(key, size)
    which = (np.cumsum(marked, dtype=np.int64) - 1)[key]
    members = np.empty(int(which.max()) + 1 if len(which) else 0, dtype=np.int64)
    members[which] = np.arange(len(key))
    return members, which


def _first_positive(
    size: np.ndarray, zeros: np.ndarray, steps: np.ndarray, start: np.ndarray, discount
) -> np.ndarray:
    """Per group, sum over t < steps of P(the first positive document is at t + 1) * discount(start
    + t + 1),
    in a uniformly random order of ``size`` documents, ``zeros`` of them not positive. P(no positive
    in a t-prefix) is the product of (zeros - i) / (size - i) over i < t, taken in t's order as the
    general walk takes it, and the terms added in t's order (a group's value does not depend on the
    batch). Groups alike (a chance level's million queries of ten documents, one relevant) are
    taken once. Groups are taken a block at a time, so that every temporary stays a few megabytes
    (a million groups would fault in fresh pages for each of them)."""
    alike = _alike(start, size, zeros, steps)
    if alike is not None:
        members, which = alike
        return _first_positive_each(
            size[members], zeros[members], steps[members], start[members], discount
        )[which]
    return _first_positive_each(size, zeros, steps, start, discount)


def _first_positive_each(
    size: np.ndarray, zeros: np.ndarray, steps: np.ndarray, start: np.ndarray, discount
) -> np.ndarray:
    """:func:`_first_positive`, group by group."""
    out = np.empty(len(size))
    for lo in range(0, len(size), _BLOCK_GROUPS):
        sizes, zero, step, first = (a[lo : lo + _BLOCK_GROUPS] for a in (size, zeros, steps, start))
        # a step at a time, each a pass over the block's groups: A(t), then A(t + 1)
        before, total = np.ones(len(sizes)), np.zeros(len(sizes))
        for t in range(int(step.max())):
            after = before * (np.clip(zero - t, 0, None) / np.maximum(sizes - t, 1.0))
            total += np.where(t < step, (before - after) * discount(first + t + 1), 0.0)
            before = after
        out[lo : lo + _BLOCK_GROUPS] = total
    return out


#: groups of one block of :func:`_first_positive`: 1 MB a float64 temporary
_BLOCK_GROUPS = 1 << 17
