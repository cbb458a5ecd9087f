"""The one place that orders documents and marks groups of equal scores.

A :class:`RankingTable` holds, for one run against one set of qrels under one tie policy, every
query's documents in their final order as contiguous NumPy arrays with CSR-style offsets, the
grade of each document, and the tie group it belongs to. Every measure reads this table; none
sorts. The table is built once per (run, qrels, tie policy) and reused for every measure and view.

The tie policies are the values of :data:`rankviz.settings.eval_settings.TIES` (their meaning is
written there once). How they are built here: ``trec_eval`` sorts by score, then docid bytes
descending (``comp_sim_docno``); ``run`` by the file's rank column, then file order; ``optimistic``
/ ``pessimistic`` put higher / lower grades first inside a group; ``expected`` keeps trec_eval's
order and the measures apply their closed forms (:mod:`rankviz.measures._groups`); ``random``
shuffles every group (:func:`shuffle_ties`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from rankviz._arrow import from_numpy, paired_keys, string_keys, take, to_numpy
from rankviz.io.id_keys import id_positions, sorted_unique_ids
from rankviz.ranking import sorting
from rankviz.settings.eval_settings import NO_CUT, TIES, RunCut
from rankviz.settings.tie_policy import TiePolicy

T = TypeVar("T")
TIE_POLICIES = TIES.choices


@dataclass(frozen=True, eq=False)
class RankingTable:
    """One run's rankings aligned with the qrels; rows are documents in policy order.

    Segments (one per query) cover every query of the qrels: first those the run answers, in the
    run's order, then the queries the run misses, with empty rankings (``in_run`` False).

    Parameters
    ----------
    run_name
        The run's name.
    ties
        The tie policy its order follows.
    qids
        One per segment (query), object array of str.
    in_run
        Per segment: whether the run answers the query.
    offsets
        int64, n_queries + 1: each segment's rows.
    row_query
        int32 per row: its segment.
    pos
        int32 per row: its 0-based rank within the query.
    grade
        int32 per row: its qrels grade, 0 where unjudged.
    judged
        bool per row: its qrels grade is >= 0.
    score
        float64 per row.
    run_rows
        int32 per row: the row of the run file it came from.
    run_docids
        The run's docids, one per run row.
    tie_group
        int32 per row: its (query, score) class, numbered in table order.
    ideal_offsets
        int64, n_queries + 1: each query's judgments.
    ideal_grades
        int64: each query's judged grades, descending.
    ideal_query
        int64 per judgment: its segment.
    ideal_pos
        int64 per judgment: its 0-based position in the ideal ranking.
    ignored_qids
        Queries of the run that the qrels do not judge.
    cut
        Which retrieved documents count (a depth, identical ids dropped).
    qid_rank
        Per segment, a number that sorts the segments in trec_eval's output order (qid
        ``strcmp``), when the ordering knows it (None: sort the ids).
    beside
        The qrels' judgments of other kinds, for the families that read them.
    """

    run_name: str
    ties: TiePolicy
    qids: np.ndarray  # object array of str, one per segment
    in_run: np.ndarray  # bool per segment
    offsets: np.ndarray  # int64, n_queries + 1
    row_query: np.ndarray  # int32 per row: segment index
    pos: np.ndarray  # int32 per row: 0-based rank within the query
    grade: np.ndarray  # int32 per row: qrels grade, 0 where unjudged
    # bool per row: the qrels grade it >= 0 (a negative grade: in the pool, unjudged)
    judged: np.ndarray
    score: np.ndarray  # float64 per row
    run_rows: np.ndarray  # int32 per row: the row of the run file it came from
    run_docids: pa.Array | pa.ChunkedArray  # the run's docids, one per run row
    tie_group: np.ndarray  # int32 per row: id of the (query, score) class, numbered in table order
    ideal_offsets: np.ndarray  # int64, n_queries + 1: the query's judgments in the qrels
    ideal_grades: np.ndarray  # int64: each query's judged grades, descending
    ideal_query: np.ndarray  # int64 per judgment: segment index
    ideal_pos: np.ndarray  # int64 per judgment: 0-based position in the ideal ranking
    ignored_qids: tuple[str, ...]  # queries of the run that the qrels do not judge
    # which retrieved documents count (a depth, identical ids dropped): kept when re-ranked
    cut: RunCut = NO_CUT
    #: per segment, a number sorting the segments in ``strcmp`` order of their ids (a million
    #: query ids sort in a fraction of the time by these numbers); None when not known
    qid_rank: np.ndarray | None = None
    #: the qrels' judgments of other kinds (:attr:`rankviz.io.model.Qrels.beside`), for the
    #: families that read them (diversity, judgment groups)
    beside: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)
    # truncations by cutoff, tie groups
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    def __repr__(self) -> str:
        return (
            f"RankingTable(run {self.run_name!r}, {len(self.qids)} queries, "
            f"{len(self.row_query)} rows, ties={self.ties})"
        )

    def of_queries(self, qids) -> RankingTable:
        """The table of these queries only: their rows, tie groups and judgments, in table order.
        Every kernel computes a query from its own rows, so a query's values here are its values in
        the whole table (what re-evaluating a few re-judged queries relies on)."""
        segments = np.flatnonzero(id_positions(self.qids, sorted_unique_ids(qids)) >= 0)
        rows, offsets, row_query = sorting.segment_rows(self.offsets, segments)
        judged, ideal_offsets, ideal_query = sorting.segment_rows(self.ideal_offsets, segments)
        # groups keep their order
        tie_group = np.unique(self.tie_group[rows], return_inverse=True)[1].astype(np.int32)
        return RankingTable(
            run_name=self.run_name,
            ties=self.ties,
            qids=self.qids[segments],
            in_run=self.in_run[segments],
            offsets=offsets,
            row_query=row_query.astype(np.int32),
            pos=self.pos[rows],
            grade=self.grade[rows],
            judged=self.judged[rows],
            score=self.score[rows],
            run_rows=self.run_rows[rows],
            run_docids=self.run_docids,
            tie_group=tie_group,
            ideal_offsets=ideal_offsets,
            ideal_grades=self.ideal_grades[judged],
            ideal_query=ideal_query,
            ideal_pos=self.ideal_pos[judged],
            ignored_qids=(),
            qid_rank=None if self.qid_rank is None else self.qid_rank[segments],
            beside=self.beside,
        )

    def derived(self, key: tuple, make: Callable[[RankingTable], T]) -> T:
        """What ``make`` derives from this table, made once per ``key`` (the measures of a family,
        at each of its parameters, share one walk of the table): the table's arrays never change,
        and every copy of it starts without them."""
        key = ("derived", *key)
        if key not in self._cache:
            self._cache[key] = make(self)
        return self._cache[key]

    def top(self, cutoff: int | None) -> RankingTable:
        """The same table keeping only each query's first ``cutoff`` documents (judgments intact);
        itself when there is no cutoff.

        Measures at a cutoff read only these rows, so RR@10 on a 1,000-deep run touches 1% of it.
        """
        if cutoff is None:
            return self
        if cutoff not in self._cache:
            lengths = np.diff(self.offsets)
            if len(lengths) == 0 or int(lengths.max()) <= cutoff:  # nothing to cut: no copy
                return self
            counts = np.minimum(lengths, cutoff)
            offsets = np.r_[0, np.cumsum(counts)].astype(np.int64)
            # each query's first rows, found from the offsets without a pass over the whole table
            keep = np.arange(offsets[-1]) + np.repeat(self.offsets[:-1] - offsets[:-1], counts)
            self._cache[cutoff] = replace(
                self,
                offsets=offsets,
                row_query=self.row_query[keep],
                pos=self.pos[keep],
                grade=self.grade[keep],
                judged=self.judged[keep],
                score=self.score[keep],
                run_rows=self.run_rows[keep],
                tie_group=self.tie_group[keep],
                _cache={},
            )
        return self._cache[cutoff]

    def capped(self, cut: RunCut) -> RankingTable:
        """Each query's first ``cut.depth`` documents (of a trec_eval table), tie groups renumbered
        from 0."""
        top = self.top(cut.depth)
        return replace(
            top, tie_group=sorting.renumber(top.tie_group).astype(np.int32), cut=cut, _cache={}
        )

    def condensed(self) -> RankingTable:
        """The table without the documents the qrels do not judge (nor those judged below 0, which
        trec_eval reads as "in the pool, unjudged"): Sakai's condensed list, trec_eval ``-J``. The
        kept documents keep their order and move up; tie groups keep their members that remain."""
        if "condensed" not in self._cache:
            keep = np.flatnonzero(self.judged & (self.grade >= 0))
            counts = np.bincount(self.row_query[keep], minlength=self.n_queries)
            offsets = np.r_[0, np.cumsum(counts)].astype(np.int64)
            row_query = self.row_query[keep]
            pos = (np.arange(len(keep)) - offsets[:-1][row_query]).astype(np.int32)
            tie_group = self.tie_group[keep]
            renumbered = (
                np.cumsum(np.r_[True, tie_group[1:] != tie_group[:-1]]) - 1
                if len(keep)
                else tie_group
            )
            self._cache["condensed"] = replace(
                self,
                offsets=offsets,
                row_query=row_query,
                pos=pos,
                grade=self.grade[keep],
                judged=self.judged[keep],
                score=self.score[keep],
                run_rows=self.run_rows[keep],
                tie_group=renumbered.astype(np.int32),
                _cache={},
            )
        return self._cache["condensed"]

    def filled(self, grade: int, cutoff: int | None) -> RankingTable:
        """The table as if every unjudged document of each query's top ``cutoff`` (all of it without
        one) had been judged ``grade``: those rows get the grade, and the ideal ranking gains them,
        exactly as evaluating against qrels with those judgments added.

        Which documents are filled is decided once, on trec_eval's order (score, then docid),
        whatever the tie policy: it is a set of judgments, and the policy then orders the filled
        table as it orders any other (optimistic and pessimistic again by the new grades). So every
        policy reads the same qrels, and pessimistic / optimistic remain the worst and best of every
        order."""
        key = ("filled", grade, cutoff)
        if key not in self._cache:
            depth = cutoff if cutoff is not None else np.iinfo(np.int32).max
            holes = np.flatnonzero(~self.judged & (self.trec_eval_positions() < depth))
            grades, judged = self.grade.copy(), self.judged.copy()
            grades[holes] = grade
            judged[holes] = True
            added = np.bincount(self.row_query[holes], minlength=self.n_queries)
            offsets, grades_out, query_out, pos_out = sorting.ideal_with_added(
                self.ideal_offsets,
                self.ideal_grades,
                self.ideal_query,
                self.ideal_pos,
                grade,
                added,
            )
            table = replace(
                self,
                grade=grades,
                judged=judged,
                ideal_offsets=offsets,
                ideal_grades=grades_out,
                ideal_query=query_out,
                ideal_pos=pos_out,
                _cache={},
            )
            self._cache[key] = table.reordered_by_grade() if self.ties.by_grade else table
        return self._cache[key]

    def trec_eval_positions(self) -> np.ndarray:
        """Each row's position in its ranking under trec_eval's order (score descending, then docid
        bytes descending), whatever order the table is in."""
        if self.ties.in_trec_eval_order:
            return self.pos
        docids = take(self.run_docids, self.run_rows).cast(pa.binary())
        columns = pa.table(
            {"query": from_numpy(self.row_query), "score": from_numpy(self.score), "docid": docids}
        )
        order = to_numpy(
            pc.sort_indices(
                columns,
                sort_keys=[
                    ("query", "ascending"),
                    ("score", "descending"),
                    ("docid", "descending"),
                ],
            )
        )
        positions = np.empty(self.n_rows, dtype=np.int64)
        positions[order] = np.arange(self.n_rows) - self.offsets[:-1][self.row_query[order]]
        return positions

    def reordered_by_grade(self) -> RankingTable:
        """An optimistic or pessimistic table ordered again inside each tie group by its grades
        (after they changed): rows move, positions and groups stay."""
        key = from_numpy(sorting.best_first_key(self.grade, self.judged))
        docids = take(self.run_docids, self.run_rows).cast(pa.binary())
        columns = pa.table({"group": from_numpy(self.tie_group), "key": key, "docid": docids})
        direction = "descending" if self.ties.by_grade == "best" else "ascending"
        order = to_numpy(
            pc.sort_indices(
                columns,
                sort_keys=[("group", "ascending"), ("key", direction), ("docid", "descending")],
            )
        )
        return replace(
            self,
            grade=self.grade[order],
            judged=self.judged[order],
            score=self.score[order],
            run_rows=self.run_rows[order],
            _cache={},
        )

    def tied_keys(self) -> tuple[np.ndarray, np.ndarray]:
        """The rows that share their score with another row of their query, and a 64-bit key of
        each one's query id and docid (what :func:`shuffle_ties` draws from)."""
        if "tied" not in self._cache:
            sizes = np.bincount(self.tie_group) if self.n_rows else np.zeros(0, np.int64)
            tied = np.flatnonzero(sizes[self.tie_group] > 1)
            query_keys = string_keys(pa.array(self.qids.tolist(), pa.string()))
            docid_keys = string_keys(take(self.run_docids, self.run_rows[tied]))
            self._cache["tied"] = tied, paired_keys(query_keys[self.row_query[tied]], docid_keys)
        return self._cache["tied"]

    @property
    def n_queries(self) -> int:
        return len(self.qids)

    @property
    def n_rows(self) -> int:
        return len(self.pos)

    def docids(self, rows: np.ndarray | slice | None = None) -> np.ndarray:
        """Docid strings of the given rows (all rows when None)."""
        source = self.run_rows if rows is None else self.run_rows[rows]
        return take(self.run_docids, source).to_numpy(zero_copy_only=False)

    def query_rows(self, qid: str) -> slice:
        """The rows of one query's ranking."""
        (where,) = np.flatnonzero(self.qids == qid)
        return slice(int(self.offsets[where]), int(self.offsets[where + 1]))
