"""The preference families: trec_eval 10's ``prefs_*`` measures, read from preference judgments
beside the grades (:class:`rankviz.io.preference_judgments.Preferences`, the qrels'
``beside["prefs"]``) and computed on the ranking table's own order, so every tie policy, cut and
analysis reaches them.

Each group's preferences are counted as fulfilled or not among the retrieved, by implication (one
of the two retrieved) or out of the ranking (:mod:`rankviz.measures._preferences`); the families
differ in what they count and how they average: over preferences (``prefs_simp``), over pairs of
documents (``prefs_pair``), over judgment groups (``prefs_avgjg``), with as many non-relevant
documents as relevant ones (``prefs_avgjg_Rnonrel``); ``_ret`` counts only preferences between two
retrieved documents, ``_imp`` leaves out those with neither retrieved. ``@K``: the first K
documents count (trec_eval's ``-M K``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from rankviz.measures._preferences import (
    GroupCounts,
    PairShares,
    document_ranks,
    group_counts,
    pair_ratios,
)
from rankviz.measures.spec import Family, register
from rankviz.measures.spellings import TREC_EVAL_SETS

if TYPE_CHECKING:
    from rankviz.ranking.ranking_table import RankingTable

NEEDS = (
    "prefs",
    "preference judgments (qid group subgroup docno level, trec_eval's -R prefs file): "
    "--preferences FILE, or a collection folder's prefs.txt",
)


def _ratio(part: float, whole: float) -> float:
    """``part / whole`` as C's doubles divide (0 / 0 is NaN, x / 0 infinite)."""
    if whole:
        return part / whole
    return float("nan") if part == 0 else float("inf")


def _each_group(value: Callable[[GroupCounts], tuple[float, float] | None]):
    """An average over a query's groups, as trec_eval's ``m_prefs_avgjg*.c``: each group's
    fulfilled / possible (a group ``value`` gives None for is left out of the sum, not of the
    count), summed in the groups' order; 0 unless the sum is above 0."""

    def per_query(groups: list[GroupCounts]) -> float:
        total = 0.0
        for counts in groups:
            found = value(counts)
            if found is not None:
                total += _ratio(*found)
        return total / len(groups) if total > 0 else 0.0

    return per_query


def _rnonrel(counts: GroupCounts) -> tuple[float, float]:
    relevant, nonrelevant = counts.rel, counts.nonrel
    if relevant < nonrelevant:
        return counts.recount
    added = relevant - nonrelevant
    return (
        counts.ful_ret + counts.ful_imp + counts.rel_ret * added,
        counts.poss_ret + counts.poss_imp + counts.notoccur + counts.rel * added,
    )


def _rnonrel_ret(counts: GroupCounts) -> tuple[float, float]:
    relevant, nonrelevant = counts.rel_ret, counts.nonrel_ret
    if relevant < nonrelevant:
        return counts.recount_ret
    added = relevant - nonrelevant
    return counts.ful_ret + counts.rel_ret * added, counts.poss_ret + counts.rel * added


def _full(c: GroupCounts) -> tuple[int, int]:
    return c.ful_ret + c.ful_imp, c.poss_ret + c.poss_imp + c.notoccur


def _implied(c: GroupCounts) -> tuple[int, int]:
    return c.ful_ret + c.ful_imp, c.poss_ret + c.poss_imp


def _retrieved(c: GroupCounts) -> tuple[int, int]:
    return c.ful_ret, c.poss_ret


def _simple(part: Callable[[GroupCounts], tuple[int, int]]):
    def per_query(groups: list[GroupCounts]) -> float:
        fulfilled = sum(part(c)[0] for c in groups)
        possible = sum(part(c)[1] for c in groups)
        return fulfilled / possible if possible else 0.0

    return per_query


def _counted(part: Callable[[GroupCounts], int]):
    return lambda groups: float(sum(part(c) for c in groups))


def _nonzero(part: Callable[[GroupCounts], tuple[int, int]]):
    return _each_group(lambda c: part(c) if part(c)[1] else None)


#: each family on the groups' counts: (per query, definition)
_ON_COUNTS: dict[str, tuple[Callable[[list[GroupCounts]], float], str]] = {
    "prefs_num_prefs_poss": (
        _counted(lambda c: _full(c)[1]),
        "number of preferences judged (a count: trec_eval sums it over queries)",
    ),
    "prefs_num_prefs_ful": (
        _counted(lambda c: _full(c)[0]),
        "number of preferences fulfilled, those with one document retrieved included",
    ),
    "prefs_num_prefs_ful_ret": (
        _counted(lambda c: c.ful_ret),
        "number of preferences fulfilled between two retrieved documents",
    ),
    "prefs_simp": (_simple(_full), "preferences fulfilled / preferences judged"),
    "prefs_simp_ret": (
        _simple(_retrieved),
        "preferences fulfilled / possible, between two retrieved documents only",
    ),
    "prefs_simp_imp": (
        _simple(_implied),
        "preferences fulfilled / possible, leaving out those with neither document retrieved",
    ),
    "prefs_avgjg": (_nonzero(_full), "prefs_simp within each judgment group, averaged over them"),
    "prefs_avgjg_ret": (
        _nonzero(_retrieved),
        "prefs_simp_ret within each judgment group, averaged over them",
    ),
    "prefs_avgjg_imp": (
        _nonzero(_implied),
        "prefs_simp_imp within each judgment group, averaged over them",
    ),
    "prefs_avgjg_Rnonrel": (
        _each_group(_rnonrel),
        "prefs_avgjg with each group's non-relevant documents set to as many as its relevant ones "
        "(akin to bpref)",
    ),
    "prefs_avgjg_Rnonrel_ret": (
        _each_group(_rnonrel_ret),
        "prefs_avgjg_Rnonrel between retrieved documents only",
    ),
}
#: the pair families on (shares of pairs both retrieved, of pairs one retrieved, pairs neither)
_ON_PAIRS: dict[str, tuple[Callable[[PairShares], float], str]] = {
    "prefs_pair": (
        lambda p: (
            p.both_then_one / (p.n_both + p.n_one + p.neither)
            if p.n_both + p.n_one + p.neither
            else 0.0
        ),
        "for each pair of documents the groups order, the share of their preferences fulfilled, "
        "averaged over pairs",
    ),
    "prefs_pair_ret": (
        lambda p: p.both / p.n_both if p.n_both else 0.0,
        "prefs_pair over pairs of two retrieved documents",
    ),
    "prefs_pair_imp": (
        lambda p: p.both_then_one / (p.n_both + p.n_one) if p.n_both + p.n_one else 0.0,
        "prefs_pair leaving out pairs with neither document retrieved",
    ),
}


def _per_query(table: RankingTable, cutoff: int | None, pairs: bool) -> list:
    """Each query's group counts (or pair shares), once per table and cutoff."""
    key = ("preferences", cutoff, pairs)
    if key not in table._cache:
        cut = table.top(cutoff)
        preferences = cut.beside["prefs"].queries
        docids = cut.docids()
        found: list[object] = []
        for qid, start, end in zip(cut.qids.tolist(), cut.offsets[:-1], cut.offsets[1:]):
            query = preferences.get(qid)
            if query is None:
                found.append(None)
                continue
            ranks, retrieved = document_ranks(query, docids[start:end].tolist())
            found.append(
                pair_ratios(query.groups, ranks, retrieved)
                if pairs
                else [group_counts(g, ranks, retrieved) for g in query.groups]
            )
        table._cache[key] = found
    return table._cache[key]


def _kernel(name: str) -> Callable[..., np.ndarray]:
    on_pairs = name in _ON_PAIRS

    def kernel(table: RankingTable, cutoff: int | None) -> np.ndarray:
        found = _per_query(table, cutoff, on_pairs)
        if on_pairs:
            value = _ON_PAIRS[name][0]
            return np.array([0.0 if f is None else value(f) for f in found])
        of_groups = _ON_COUNTS[name][0]
        return np.array([0.0 if f is None else of_groups(f) for f in found])

    return kernel


def undefined_in_trec_eval(name: str, table: RankingTable, cutoff: int | None = None) -> list[str]:
    """The queries where trec_eval 10's ``name`` is undefined on this table: its
    ``prefs_avgjg_Rnonrel`` recount reading past a group's lowest class
    (:meth:`~rankviz.measures._preferences.GroupCounts.reads_past`); none for the other families."""
    if name not in ("prefs_avgjg_Rnonrel", "prefs_avgjg_Rnonrel_ret"):
        return []
    retrieved_only = name.endswith("_ret")
    return [
        qid
        for qid, groups in zip(table.qids.tolist(), _per_query(table, cutoff, False), strict=True)
        if groups and any(g.reads_past(retrieved_only=retrieved_only) for g in groups)
    ]


for _name, (_, _definition) in {**_ON_COUNTS, **_ON_PAIRS}.items():
    register(
        Family(
            name=_name,
            aliases=(),
            params=(),
            cutoff_required=False,
            kernel=_kernel(_name),
            expected=None,
            definition=_definition,
            convention="trec_eval -R prefs (form_prefs_counts.c, m_prefs_*.c): a group of "
            "several subgroups takes the preferences they imply; a query the preferences do not "
            "judge scores 0",
            condensable=False,
            reads=NEEDS,
        )
    )
#: every preference measure, in trec_eval's order (its ``all_prefs``)
OFFERED = tuple(TREC_EVAL_SETS["all_prefs"])
