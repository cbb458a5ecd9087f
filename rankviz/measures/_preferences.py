"""Counting a ranking's preferences, as trec_eval 10's ``form_prefs_counts.c`` counts them, for the
preference families (:mod:`rankviz.measures.preferences`).

A query's judged documents are numbered by the ranking: those retrieved by their order (0 .. R-1,
R the number retrieved), the others after them in their bytes' order. A preference A > B is then
fulfilled among the retrieved (both retrieved, A first), not fulfilled among them (both, B first),
fulfilled by implication (A retrieved, B not), not fulfilled by implication (B retrieved, A not),
or out of the ranking (neither retrieved). ``prefs_avgjg_Rnonrel`` recounts a group whose
non-relevant documents outnumber its relevant ones, keeping as many of them as there are relevant
ones, exactly as trec_eval's ``m_prefs_avgjg_Rnonrel*.c`` recount (their quirks kept).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from rankviz.io.preference_judgments import GroupPreferences, QueryPreferences


@dataclass(frozen=True)
class GroupCounts:
    """One group's counts on one ranking (``*_poss`` include the fulfilled ones, as trec_eval's
    ``num_prefs_possible_*``); :attr:`recount` and :attr:`recount_ret`: (fulfilled, possible) of
    ``prefs_avgjg_Rnonrel`` and its ``_ret`` variant, counted when asked (where a group's
    non-relevant documents outnumber its relevant ones)."""

    ful_ret: int
    poss_ret: int
    ful_imp: int
    poss_imp: int
    notoccur: int
    rel: int
    rel_ret: int
    nonrel: int
    nonrel_ret: int
    group: GroupPreferences = field(repr=False, compare=False)
    ranks: np.ndarray = field(repr=False, compare=False)
    found: int = field(repr=False, compare=False)

    @cached_property
    def recount(self) -> tuple[int, int]:
        return _recount(self.group, self.ranks, self.found, self.rel, retrieved_only=False)

    @cached_property
    def recount_ret(self) -> tuple[int, int]:
        return _recount(self.group, self.ranks, self.found, self.rel_ret, retrieved_only=True)

    def reads_past(self, *, retrieved_only: bool) -> bool:
        """Whether trec_eval's recount of this group reads past the end of its lowest class: its
        new class of the first R non-relevant documents takes R from the lowest class alone, which
        holds fewer where levels below 0 make other classes non-relevant too (qrels_prefs' negative
        grades). trec_eval's number is then undefined; :attr:`recount` counts that class's own."""
        lowest = self.group.classes[-1] if self.group.classes is not None else None
        relevant, nonrelevant = (
            (self.rel_ret, self.nonrel_ret) if retrieved_only else (self.rel, self.nonrel)
        )
        if lowest is None or relevant >= nonrelevant or relevant <= len(lowest):
            return False
        return not retrieved_only or bool(np.all(self.ranks[lowest] < self.found))


def document_ranks(query: QueryPreferences, docids) -> tuple[np.ndarray, int]:
    """Each judged document's number (see the module's doc) given the ranking's documents in
    order, and how many were retrieved."""
    index = {d: i for i, d in enumerate(query.docs)}
    retrieved = np.array([index[d] for d in docids if d in index], dtype=np.int64)
    ranks = np.empty(len(query.docs), dtype=np.int32)  # their pairs are up to 50 million
    ranks[retrieved] = np.arange(len(retrieved))
    rest = np.ones(len(query.docs), dtype=bool)
    rest[retrieved] = False
    ranks[rest] = len(retrieved) + np.arange(np.count_nonzero(rest))
    return ranks, len(retrieved)


def group_counts(group: GroupPreferences, ranks: np.ndarray, found: int) -> GroupCounts:
    """A group's counts on the ranking whose documents are numbered ``ranks`` (``found``
    retrieved)."""
    if group.classes is not None:
        ful_ret, not_ret, ful_imp, not_imp, notoccur = _classes_counts(group.classes, ranks, found)
        members = np.concatenate(group.classes)
    else:
        first, second = ranks[group.preferred], ranks[group.other]
        a, b = first < found, second < found
        ful_ret = int(np.count_nonzero(a & b & (first < second)))
        not_ret = int(np.count_nonzero(a & b & (first > second)))
        ful_imp, not_imp = int(np.count_nonzero(a & ~b)), int(np.count_nonzero(~a & b))
        notoccur = int(np.count_nonzero(~a & ~b))
        members = np.flatnonzero(~np.isnan(group.level))
    level, retrieved = group.level[members], ranks[members] < found
    rel, nonrel = level > 0, level <= 0  # trec_eval: every level not above 0 is not relevant
    counts = dict(
        ful_ret=ful_ret,
        poss_ret=ful_ret + not_ret,
        ful_imp=ful_imp,
        poss_imp=ful_imp + not_imp,
        notoccur=notoccur,
        rel=int(np.count_nonzero(rel)),
        rel_ret=int(np.count_nonzero(rel & retrieved)),
        nonrel=int(np.count_nonzero(nonrel)),
        nonrel_ret=int(np.count_nonzero(nonrel & retrieved)),
    )
    return GroupCounts(**counts, group=group, ranks=ranks, found=found)


def _later(first: np.ndarray, second: np.ndarray) -> int:
    """How many (a, b) of ``first`` x ``second`` (``second`` sorted) have a < b."""
    return int(len(first) * len(second) - np.searchsorted(second, first, side="right").sum())


def _classes_counts(classes, ranks: np.ndarray, found: int) -> tuple[int, ...]:
    """(fulfilled, not fulfilled among the retrieved; fulfilled, not by implication; out of the
    ranking) of a group of classes (levels descending): the pairs of documents in different
    classes, counted by the classes' sizes and, among the retrieved, by the pairs in ranking order
    (:func:`ordered_pairs`) instead of class by class."""
    members = np.concatenate(classes)
    level = np.repeat(np.arange(len(classes)), [len(c) for c in classes])  # 0: the highest
    shown = ranks[members] < found
    by_rank = np.argsort(ranks[members][shown], kind="stable")
    ful_ret, not_ret = ordered_pairs(level[shown][by_rank])
    inside = np.bincount(level[shown], minlength=len(classes))
    outside = np.bincount(level[~shown], minlength=len(classes))
    # of each class, how many documents of the classes below it are retrieved, are not
    inside_below = np.cumsum(inside[::-1])[::-1] - inside
    outside_below = np.cumsum(outside[::-1])[::-1] - outside
    ful_imp = int(inside @ outside_below)
    not_imp = int(outside @ inside_below)
    notoccur = int(outside @ outside_below)
    return ful_ret, not_ret, ful_imp, not_imp, notoccur


def ordered_pairs(classes: np.ndarray) -> tuple[int, int]:
    """Of the pairs i < j of a sequence of class numbers, those with the earlier one in a higher
    class (a lower number) and those with it in a lower one: a merge sort's count, each round of
    it over the whole sequence at once (blocks of 1, 2, 4, ... against their right neighbours)."""
    n = len(classes)
    if n < 2:
        return 0, 0
    value = classes.astype(np.int64)
    span = int(value.max()) + 1
    position = np.arange(n)
    higher = lower = 0
    width = 1
    while width < n:
        block = position // (2 * width)
        left = position % (2 * width) < width
        keys = np.sort(block[left] * span + value[left])
        rights = block[~left] * span + value[~left]
        first = np.searchsorted(keys, block[~left] * span, side="left")
        below = np.searchsorted(keys, rights, side="left")
        above = np.searchsorted(keys, rights, side="right")
        last = np.searchsorted(keys, (block[~left] + 1) * span, side="left")
        higher += int((below - first).sum())
        lower += int((last - above).sum())
        width *= 2
    return higher, lower


def _recount(
    group: GroupPreferences, ranks: np.ndarray, found: int, kept: int, *, retrieved_only: bool
) -> tuple[int, int]:
    """(fulfilled, possible) of a group keeping ``kept`` non-relevant documents (the first in the
    ranking), as trec_eval's ``recalculate`` of ``m_prefs_avgjg_Rnonrel.c`` (``retrieved_only``:
    of ``m_prefs_avgjg_Rnonrel_ret.c``) counts them: the classes' pairs but those with the last
    class, then every class (the last one too) against the last class's first ``kept``."""
    if group.classes is not None:
        ranked = [np.sort(ranks[c]) for c in group.classes]
        if retrieved_only:
            ranked = [r[r < found] for r in ranked]
        kept_ones = ranked[-1][:kept]
        # the pairs of the classes but the last, fulfilled where the first is counted (retrieved)
        # and ranked before the second: their counts with those classes' ranks as the ranking
        rest = ranked[:-1]
        sizes = np.array([len(r) for r in rest], dtype=np.int64)
        ends = np.cumsum(sizes)
        spans = [np.arange(end - size, end) for size, end in zip(sizes, ends, strict=True)]
        ful_ret, _, ful_imp, _, _ = (
            _classes_counts(spans, np.concatenate(rest), found) if len(rest) > 1 else (0,) * 5
        )
        pairs = int((int(sizes.sum()) ** 2 - int((sizes**2).sum())) // 2)
        # then every class (the last too) against the last class's first ``kept``
        every = np.concatenate(ranked)
        counted = every if retrieved_only else every[every < found]
        fulfilled = ful_ret + ful_imp + _later(counted, kept_ones)
        return fulfilled, pairs + len(every) * len(kept_ones)
    # a group of pairs: the non-relevant documents after the (kept + 1)th in the numbering are
    # dropped (trec_eval's _ret variant looks among the retrieved only, but keeps as many as the
    # group's relevant documents, retrieved or not)
    by_rank = np.full(len(ranks), np.nan)
    by_rank[ranks] = group.level
    scanned = by_rank[:found] if retrieved_only else by_rank
    zeros = np.flatnonzero(scanned == 0)
    limit = kept if not retrieved_only else int(np.count_nonzero(group.level > 0))
    first_dropped = zeros[limit] if len(zeros) > limit else len(scanned)
    dropped = (np.arange(len(ranks)) >= first_dropped) & (by_rank == 0)
    first, second = ranks[group.preferred], ranks[group.other]
    keep = ~dropped[first] & ~dropped[second]
    if retrieved_only:
        keep &= (first < found) & (second < found)
    first, second = first[keep], second[keep]
    a, b = first < found, second < found
    ful = int(np.count_nonzero(a & b & (first < second)) + np.count_nonzero(a & ~b))
    return ful, int(np.count_nonzero(keep))


@dataclass(frozen=True)
class PairShares:
    """trec_eval's ``prefs_pair`` counts on one ranking: the sum of the shares of the pairs of two
    retrieved documents, that sum continued over the pairs of one retrieved and one not (each
    added in trec_eval's order, one after another, as its loop adds doubles), how many of each,
    and how many pairs have neither retrieved."""

    both: float
    both_then_one: float
    n_both: int
    n_one: int
    neither: int


def pair_ratios(groups: tuple[GroupPreferences, ...], ranks: np.ndarray, found: int) -> PairShares:
    """For each pair of documents some group orders, the share of the groups' preferences on it the
    ranking fulfils (:class:`PairShares`), without a copy of every pair's index (10,000 documents
    have up to 50 million pairs)."""
    n = len(ranks)
    # by document number: preferred, other; trec_eval's counts are unsigned shorts too (a pair
    # ordered by more than 32,767 groups would wrap in both)
    counts = np.zeros((n, n), dtype=np.uint16)
    for group in groups:
        if group.classes is not None:  # every document above those of the classes below its own
            ranked = ranks[np.concatenate(group.classes)]
            level = np.repeat(np.arange(len(group.classes)), [len(c) for c in group.classes])
            counts[np.ix_(ranked, ranked)] += level[:, None] < level[None, :]
        else:  # a block of pairs at a time: numpy indexes with 64-bit copies of its indices
            for start in range(0, len(group.preferred), 1 << 22):
                block = slice(start, start + (1 << 22))
                counts[ranks[group.preferred[block]], ranks[group.other[block]]] += 1
    total, sums, sizes = 0.0, [], []
    for columns in (slice(0, found), slice(found, n)):  # row by row, as trec_eval sums them
        size = 0
        for start in range(0, found, 1024):
            rows = slice(start, min(start + 1024, found))
            fulfilled = counts[rows, columns]
            either = fulfilled + counts[columns, rows].T
            ordered = either > 0
            if columns.start == 0:  # among the retrieved: each pair once, the upper triangle
                ordered &= np.arange(rows.start, rows.stop)[:, None] < np.arange(found)[None, :]
            shares = fulfilled[ordered] / either[ordered].astype(np.float64)
            total = float(np.add.accumulate(np.r_[total, shares])[-1]) if len(shares) else total
            size += len(shares)
        sums.append(total)
        sizes.append(size)
    neither = 0
    for start in range(found, n, 1024):  # the pairs of two documents not retrieved, once each
        rows = slice(start, min(start + 1024, n))
        ordered = (counts[rows, found:] > 0) | (counts[found:, rows].T > 0)
        ordered &= np.arange(rows.start, rows.stop)[:, None] < np.arange(found, n)[None, :]
        neither += int(np.count_nonzero(ordered))
    return PairShares(sums[0], sums[1], sizes[0], sizes[1], neither)
