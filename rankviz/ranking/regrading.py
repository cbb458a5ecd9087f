"""The meeting's judgments change grades, not orders: a ranking table re-graded under other qrels of
the same queries, in full or, when only a few queries were judged since, for those queries alone."""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection, Set
from dataclasses import replace

import numpy as np

from rankviz.io.id_keys import id_positions
from rankviz.io.model import Qrels, Run
from rankviz.ranking.ordering import judged_order, judged_positions, rank
from rankviz.ranking.ranking_table import RankingTable, sorting
from rankviz.settings.eval_settings import NO_CUT, RunCut
from rankviz.settings.tie_policy import TiePolicy

#: How a run's ranking table under a tie policy and a cut is built: ``(name, run, qrels, ties, cut)
#: -> table`` (a study's ``orderer``), ``run`` opening the run named when called: an orderer that
#: keeps its tables opens no run for a table it has.
Orderer = Callable[[str, Callable[[], Run], Qrels, TiePolicy, RunCut], RankingTable]


def regrade(
    table: RankingTable, run: Run, qrels: Qrels, *, queries: Collection[str] | None = None
) -> RankingTable:
    """``table`` (ranked from ``run``) with the grades of other ``qrels``, without ordering again.

    The meeting's judgments change grades, not the order of ``trec_eval``, ``run`` or ``expected``
    tables (their ties are broken by docid or file order): only the grade lookup and the ideal
    rankings are redone, and with ``queries`` (the only queries whose judgments differ between the
    table's qrels and these) only those queries' rows are looked up again: a judgment costs its
    query, not the run's millions of lines. Tables whose order depends on the grades
    (``optimistic``,
    ``pessimistic``, a drawn ``random`` one) and qrels that judge other queries are ranked afresh.
    """
    output_order, qrels_query_to_judged = judged_order(qrels)
    judged_qids = qrels.query_ids[output_order]
    if not table.ties.regradable or not _same_ids(judged_qids, table.qids):
        return rank(run, qrels, ties=table.ties, cut=table.cut)
    run_query_to_judged = judged_positions(run, qrels, qrels_query_to_judged)
    if queries is None:
        rows = np.flatnonzero(run_query_to_judged[run.qid_codes] >= 0).astype(np.int32)
        if len(rows) == len(run):
            rows = np.arange(len(run), dtype=np.int32)
        row_grade, row_judged = sorting.lookup_grades(
            run, qrels, run_query_to_judged, rows, qrels_query_to_judged
        )
        grade, judged = np.zeros(len(run), dtype=np.int32), np.zeros(len(run), dtype=bool)
        grade[rows], judged[rows] = row_grade, row_judged
        grade, judged = grade[table.run_rows], judged[table.run_rows]
    else:
        wanted = set(queries)
        segments = np.flatnonzero(
            np.fromiter((q in wanted for q in table.qids), dtype=bool, count=len(table.qids))
        )
        # the table's rows of those queries
        positions, _, _ = sorting.segment_rows(table.offsets, segments)
        grade, judged = table.grade.copy(), table.judged.copy()
        # the lookup reads rows in the run's order: the table's order (tie groups by docid
        # descending) is restored after it
        positions = positions[np.argsort(table.run_rows[positions], kind="stable")]
        grade[positions], judged[positions] = sorting.lookup_grades(
            run, qrels, run_query_to_judged, table.run_rows[positions], qrels_query_to_judged
        )
    seg_order = id_positions(table.qids, judged_qids)
    ideal_offsets, ideal_grades, ideal_query, ideal_pos = sorting.ideal(
        qrels, qrels_query_to_judged, seg_order
    )
    return replace(
        table,
        grade=grade,
        judged=judged,
        ideal_offsets=ideal_offsets,
        ideal_grades=ideal_grades,
        ideal_query=ideal_query,
        ideal_pos=ideal_pos,
        beside=qrels.beside,
        _cache={},
    )


def ordered(
    run: Run,
    qrels: Qrels,
    ties: TiePolicy,
    cut: RunCut = NO_CUT,
    *,
    like: RankingTable | None = None,
    changed: Set[str] | None = None,
) -> RankingTable:
    """A run's ranking table under a policy that builds its own order (see :meth:`Study.table` for
    the others).

    ``like``: the same run's table under qrels these only re-grade (same queries): its order is kept
    and only the grades of all queries (or of the ``changed`` ones alone) are looked up again."""
    if like is not None and ties.regradable and like.ties == ties and like.cut == cut:
        return regrade(like, run, qrels, queries=changed)
    return rank(run, qrels, ties=ties, cut=cut)


def fresh(
    name: str, run: Callable[[], Run], qrels: Qrels, ties: TiePolicy, cut: RunCut
) -> RankingTable:
    """The orderer that keeps nothing: a study given other qrels must use it (a cache keys on its
    qrels)."""
    return rank(run(), qrels, ties=ties, cut=cut)


class Keeping:
    """An orderer for two studies of the same runs whose qrels differ on the ``changed`` queries
    alone: the table of each run ``kept`` is built once (by ``base``, the first study's orderer),
    re-graded for the other qrels instead of ordered again, and handed out again when asked twice;
    every other table is ``base``'s."""

    def __init__(self, base: Orderer, kept: Collection[str], *, changed: Set[str]) -> None:
        self.base, self.names, self.changed = base, set(kept), changed
        self.tables: dict[tuple[str, TiePolicy, RunCut], list[tuple[Qrels, RankingTable]]] = {}

    def __call__(
        self, name: str, run: Callable[[], Run], qrels: Qrels, ties: TiePolicy, cut: RunCut
    ) -> RankingTable:
        if name not in self.names:
            return self.base(name, run, qrels, ties, cut)
        built = self.tables.setdefault((name, ties, cut), [])
        for judged, table in built:
            if judged is qrels:
                return table
        table = (
            ordered(run(), qrels, ties, cut, like=built[0][1], changed=self.changed)
            if built
            else self.base(name, run, qrels, ties, cut)
        )
        built.append((qrels, table))
        return table


class LastRunKept:
    """An orderer that keeps the tables of the run asked for last in each thread (one per policy
    and cut) and forgets them when that thread asks for another run: a report that asks for each
    run's tables under several policies, run after run, builds trec_eval's once per run (the
    policies derived from it ask for it again) and holds one run's tables per thread at a time."""

    def __init__(self, base: Orderer) -> None:
        self.base = base
        self.kept = threading.local()  # .name, .tables: this thread's run and its tables

    def __call__(
        self, name: str, run: Callable[[], Run], qrels: Qrels, ties: TiePolicy, cut: RunCut
    ) -> RankingTable:
        if getattr(self.kept, "name", None) != name:
            self.kept.name, self.kept.tables = name, []
        tables: list[tuple[Qrels, TiePolicy, RunCut, RankingTable]] = self.kept.tables
        for judged, rule, kept_cut, table in tables:
            if judged is qrels and rule == ties and kept_cut == cut:
                return table
        table = self.base(name, run, qrels, ties, cut)
        tables.append((qrels, ties, cut, table))
        return table


def differing_queries(a: Qrels, b: Qrels) -> set[str]:
    """The queries whose judgments differ between two qrels (a grade, or a pair judged in one)."""
    import pandas as pd

    columns = ["qid", "docid", "rel"]
    left, right = a.to_frame()[columns], b.to_frame()[columns]
    both = pd.merge(left, right, on=["qid", "docid"], how="outer", suffixes=("_a", "_b"))
    return set(both.loc[both["rel_a"].ne(both["rel_b"]), "qid"].astype(str))


def _same_ids(first: np.ndarray, second: np.ndarray) -> bool:
    """Whether two arrays of distinct ids hold the same ids, in any order."""
    return len(first) == len(second) and bool(np.all(id_positions(second, first) >= 0))
