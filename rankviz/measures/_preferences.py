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
    ranks = np.empty(len(query.docs), dtype=np.int64)
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
    ranking) of a group of classes, from each pair of classes' ranks."""
    ranked = [np.sort(ranks[c]) for c in classes]
    ful_ret = not_ret = ful_imp = not_imp = notoccur = 0
    for i, high in enumerate(ranked):
        high_in, high_out = high[high < found], np.count_nonzero(high >= found)
        for low in ranked[i + 1 :]:
            low_in, low_out = low[low < found], np.count_nonzero(low >= found)
            fulfilled = _later(high_in, low_in)
            ful_ret += fulfilled
            not_ret += len(high_in) * len(low_in) - fulfilled
            ful_imp += len(high_in) * int(low_out)
            not_imp += int(high_out) * len(low_in)
            notoccur += int(high_out * low_out)
    return ful_ret, not_ret, ful_imp, not_imp, notoccur


def _recount(
    group: GroupPreferences, ranks: np.ndarray, found: int, kept: int, *, retrieved_only: bool
) -> tuple[int, int]:
    """(fulfilled, possible) of a group keeping ``kept`` non-relevant documents (the first in the
    ranking), as trec_eval's ``recalculate`` of ``m_prefs_avgjg_Rnonrel.c`` (``retrieved_only``:
    of ``m_prefs_avgjg_Rnonrel_ret.c``) counts them: the classes' pairs but those with the last
    class, then every class (the last one too) against the last class's first ``kept``."""
    ful = poss = 0
    if group.classes is not None:
        ranked = [np.sort(ranks[c]) for c in group.classes]
        if retrieved_only:
            ranked = [r[r < found] for r in ranked]
        kept_ones = ranked[-1][:kept]
        pairs = [(a, b) for i, a in enumerate(ranked) for b in ranked[i + 1 : len(ranked) - 1]]
        for first, second in [*pairs, *((a, kept_ones) for a in ranked)]:
            counted = first if retrieved_only else first[first < found]
            fulfilled = _later(counted, second)
            ful += fulfilled
            poss += len(first) * len(second) - fulfilled
        return ful, poss + ful
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


def pair_ratios(
    groups: tuple[GroupPreferences, ...], ranks: np.ndarray, found: int
) -> tuple[np.ndarray, np.ndarray, int]:
    """trec_eval's ``prefs_pair``: for each pair of documents some group orders, the share of the
    groups' preferences on it the ranking fulfils; (the shares of pairs of two retrieved documents,
    of one retrieved and one not, in trec_eval's order; how many pairs have neither retrieved)."""
    n = len(ranks)
    counts = np.zeros((n, n), dtype=np.int32)  # by document number: preferred, other
    for group in groups:
        if group.classes is not None:
            ranked = [ranks[c] for c in group.classes]
            for i, high in enumerate(ranked):
                for low in ranked[i + 1 :]:
                    counts[np.ix_(high, low)] += 1
        else:
            counts[ranks[group.preferred], ranks[group.other]] += 1
    either = counts + counts.T
    upper = np.triu(either > 0, k=1)

    def shares(rows: slice, columns: slice) -> np.ndarray:
        at = np.nonzero(upper[rows, columns])  # row by row, as trec_eval sums them
        return counts[rows, columns][at] / either[rows, columns][at]

    both, one = shares(slice(0, found), slice(0, found)), shares(slice(0, found), slice(found, n))
    return both, one, int(np.count_nonzero(upper[found:, found:]))
