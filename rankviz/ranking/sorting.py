"""The sorts behind :func:`rankviz.ranking.ordering.rank`: rows in score order, ties broken as
a policy says, grades looked up, and the ideal order of the judged documents.

Each sort is one stable NumPy (or Arrow) pass over whole arrays; the ranking module decides which
to apply and assembles the table.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from rankviz._arrow import booleans, from_numpy, paired_keys, take, to_numpy
from rankviz.io.model import Qrels, Run
from rankviz.settings.tie_policy import TiePolicy


def segment_rows(
    offsets: np.ndarray, segments: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The rows of some CSR segments: their indices, the new offsets, each row's new segment."""
    counts = np.diff(offsets)[segments]
    new_offsets = np.r_[0, np.cumsum(counts)].astype(np.int64)
    rows = np.arange(new_offsets[-1], dtype=np.int64) + np.repeat(
        offsets[segments] - new_offsets[:-1], counts
    )
    return rows, new_offsets, np.repeat(np.arange(len(segments), dtype=np.int64), counts)


@dataclass(frozen=True)
class Order:
    """A reordering of rows: ``full`` indices, or none at all, or only ``moved`` positions taking
    ``source`` rows.

    Runs mostly arrive in score order, so most rankings need no gather of their millions of rows.
    """

    full: np.ndarray | None = None
    moved: np.ndarray | None = None
    source: np.ndarray | None = None

    @property
    def kept(self) -> bool:
        """Whether the rows stay as they are."""
        return self.full is None and self.moved is None

    def apply_tied(self, values: np.ndarray) -> np.ndarray:
        """``apply`` for values equal across each group of tied rows (query, score): ``moved``
        only reorders rows inside those groups, so it leaves such values as they are."""
        return values if self.full is None else values[self.full]

    def apply(self, values: np.ndarray) -> np.ndarray:
        if self.full is not None:
            return values[self.full]
        if self.moved is None:
            return values
        out = values.copy()
        out[self.moved] = values[self.source]
        return out

    def apply_in_place(self, values: np.ndarray) -> np.ndarray:
        """``apply`` to an array made for this ranking and read no more: where only some rows move
        (a few ties), they are written in place instead of copying millions of rows."""
        if self.full is not None or self.moved is None:
            return self.apply(values)
        values[self.moved] = values[self.source]
        return values


def lookup_grades(
    run: Run, qrels: Qrels, run_query_to_judged, rows, qrels_query_to_judged
) -> tuple[np.ndarray, np.ndarray]:
    """Grade of each run row from the qrels (0 and judged=False where the qrels do not list the
    pair). A pair listed with a negative grade keeps it but is not judged: trec_eval's "in the pool,
    unjudged", the one rule every measure and analysis reads through ``judged``.

    Each (query, docid) pair becomes one 64-bit key, of the query's code in the run and the docid's
    integer key: the judged pairs are sorted once, a bitmap of their hashes narrows the run's
    millions of rows to the few that can be judged, a sorted search finds their judgment and the
    strings decide ("01" and "1" share a number; keys may collide). A run grouped by query gives
    probes that climb with its codes, each search starting near the last: no sort of the probes.
    What it costs follows the lines, however many queries or judged documents there are: no hash
    table of the judged ids.
    """
    grade = np.zeros(len(rows), dtype=np.int32)
    judged = np.zeros(len(rows), dtype=bool)
    if not len(rows) or not len(qrels.grade):
        return grade, judged
    # each judgment's docid as a key of the run's kind (numbers or strings' keys)
    doc_keys, comparable = run.keys.aligned(qrels.docids)
    # each judgment's query as the run codes it (-1: a query the run does not list)
    listed = np.flatnonzero(run_query_to_judged >= 0)
    code_of_judged = np.full(len(qrels_query_to_judged), -1, dtype=np.int64)
    code_of_judged[run_query_to_judged[listed]] = listed
    judgment_code = code_of_judged[qrels_query_to_judged][qrels.qid_codes]
    # judgments that may name a row: a query the run lists, a docid its keys can hold
    usable = np.flatnonzero(comparable & (judgment_code >= 0))
    wide = run.keys.values.dtype.itemsize > 4
    pair_keys = _pair_keys(judgment_code[usable], doc_keys[usable], wide=wide)
    if not len(pair_keys):  # no judgment could name a row of the run
        return grade, judged
    order = np.argsort(pair_keys)
    pair_keys, judgment = pair_keys[order], usable[order]
    # rows whose (query, docid key) pair may be judged (a bitmap of the pairs' hashes), then
    # those whose pair is
    judged_doc_keys = doc_keys[usable].astype(run.keys.values.dtype)
    candidates = run.keys.rows_among(
        judged_doc_keys,
        judgment_code[usable],
        run.qid_codes,
        None if len(rows) == len(run) else rows,
    )
    candidate_rows = rows[candidates]
    row_code = run.qid_codes[candidate_rows].astype(np.int64)
    probes = _pair_keys(row_code, run.keys.values[candidate_rows], wide=wide)
    if wide or not bool(np.all(row_code[1:] >= row_code[:-1])):
        # sorted probes find their places in one sweep (random ones miss the cache at every probe)
        by_key = np.argsort(probes)
        at = np.empty(len(probes), dtype=np.int64)
        at[by_key] = np.searchsorted(pair_keys, probes[by_key])
    else:  # sorted by their query already: in the order they come
        at = np.searchsorted(pair_keys, probes)
    np.minimum(at, len(pair_keys) - 1, out=at)
    found = pair_keys[at] == probes
    candidates, at, row_code = candidates[found], at[found], row_code[found]
    which = judgment[at]
    same = (judgment_code[which] == row_code) & booleans(
        pc.equal(
            take(run.docids, rows[candidates]).cast(pa.string()),
            qrels.docids.take(from_numpy(which)).cast(pa.string()),
        )
    )
    # a key two judgments share (two docids of one query with one key): each one is compared
    after = pair_keys[np.minimum(at + 1, len(pair_keys) - 1)] == pair_keys[at]
    for k in np.flatnonzero(~same & after):
        other = _among_shared(
            pair_keys,
            judgment,
            int(at[k]),
            lambda j, k=k: (
                bool(judgment_code[j] == row_code[k])
                and qrels.docids[int(j)].as_py() == _docid(run, int(rows[candidates[k]]))
            ),
        )
        if other is not None:
            which[k], same[k] = other, True
    matched = candidates[same]
    grade[matched] = qrels.grade[which[same]]
    judged[matched] = grade[matched] >= 0
    return grade, judged


def _among_shared(pair_keys: np.ndarray, judgment: np.ndarray, first: int, names) -> int | None:
    """The judgment after ``first`` with the same key that ``names`` the row, if any."""
    place = first + 1
    while place < len(pair_keys) and pair_keys[place] == pair_keys[first]:
        if names(judgment[place]):
            return int(judgment[place])
        place += 1
    return None


def _docid(run: Run, row: int) -> str:
    return take(run.docids, np.array([row])).cast(pa.string())[0].as_py()


def _pair_keys(query: np.ndarray, doc_key: np.ndarray, *, wide: bool) -> np.ndarray:
    """One 64-bit key per (query place, docid key) pair: the two side by side where the docid
    keys take 32 bits (string keys, numbers of int32), else mixed (``wide``: int64 numbers)."""
    if wide:
        return paired_keys(
            np.asarray(query, dtype=np.int64).view(np.uint64),
            np.asarray(doc_key, dtype=np.int64).view(np.uint64),
        )
    packed = np.asarray(query, dtype=np.int64) << np.int64(32)
    packed |= np.asarray(doc_key, dtype=np.int64) & np.int64(0xFFFFFFFF)
    return packed


def primary_order(qcode: np.ndarray, score: np.ndarray) -> Order:
    """Rows grouped by query (run order of queries), score descending; stable."""
    n = len(qcode)
    if n == 0:
        return Order()
    same_query = qcode[1:] == qcode[:-1]
    grouped = bool(np.all(qcode[1:] >= qcode[:-1]))
    if grouped and bool(np.all(~same_query | (score[1:] <= score[:-1]))):
        return Order()
    if grouped:
        within = sorted_within_queries(qcode, -score)
        if within is not None:
            return Order(full=within)
    return Order(full=np.lexsort((-score, qcode)))


def rank_column_order(qcode: np.ndarray, rank: np.ndarray) -> Order:
    """Rows grouped by query (run order of queries), the rank column ascending, then file order
    (``ties="run"``): none at all for a run listed by rank, as runs are written."""
    n = len(qcode)
    if n == 0:
        return Order()
    if bool(np.all(qcode[1:] >= qcode[:-1])):
        if bool(np.all((qcode[1:] != qcode[:-1]) | (rank[1:] >= rank[:-1]))):
            return Order()
        within = sorted_within_queries(qcode, rank)
        if within is not None:
            return Order(full=within)
    return Order(full=np.lexsort((rank, qcode)))


def sorted_within_queries(qcode: np.ndarray, key: np.ndarray) -> np.ndarray | None:
    """Stable ascending order of ``key`` inside each query of a run grouped by query: one short sort
    per query, as rows of a padded matrix (three times faster than one long lexsort); None when
    the padding would more than double the rows."""
    n = len(qcode)
    starts = np.flatnonzero(np.r_[True, qcode[1:] != qcode[:-1]])
    lengths = np.diff(np.r_[starts, n])
    width = int(lengths.max())
    if len(starts) * width > 2 * n:
        return None
    if len(starts) * width == n:  # every query equally deep: a reshape
        order = np.argsort(key.reshape(len(starts), width), axis=1, kind="stable")
        order += starts[:, None]  # column -> row of the run
        return order.ravel()
    # row-major place in the matrix
    slots = np.arange(n) + np.repeat(np.arange(len(starts)) * width - starts, lengths)
    matrix = np.full(len(starts) * width, np.inf)  # pads sort last
    matrix[slots] = key
    order = np.argsort(matrix.reshape(len(starts), width), axis=1, kind="stable") + starts[:, None]
    # the pads, last in each query, out
    return order.ravel()[(np.arange(width) < lengths[:, None]).ravel()]


def group_starts(qcode_sorted: np.ndarray, score_sorted: np.ndarray) -> np.ndarray:
    """True where a new (query, score) group begins in an ordering."""
    if len(qcode_sorted) == 0:
        return np.zeros(0, bool)
    same = (qcode_sorted[1:] == qcode_sorted[:-1]) & (score_sorted[1:] == score_sorted[:-1])
    return np.r_[True, ~same]


def best_first_key(grade: np.ndarray, judged: np.ndarray) -> np.ndarray:
    """The key optimistic sorts tied documents by, descending (pessimistic ascending): the gain
    (grades below 0 gain nothing), then judged before unjudged. Every measure is monotone in it: a
    gain measure is highest with the higher gains first, Judged@K with the judged documents first,
    RBP's residual lowest with them first; so the two orders bound every order's value."""
    return np.maximum(grade, 0).astype(np.int64) * 2 + judged


def break_ties(
    order: Order,
    starts: np.ndarray,
    group: np.ndarray,
    docids: pa.Array,
    rows: np.ndarray,
    grade: np.ndarray | None,
    rule: TiePolicy,
) -> Order:
    """Reorder rows inside each group of equal scores by the policy's secondary keys.

    One multi-key Arrow sort over the tied rows, taken in the run's order: group, then
    (optimistic / pessimistic) the :func:`best_first_key` (``grade``), then the docid descending
    by raw bytes (``strcmp``), trec_eval's last key. ``grade`` is needed only by optimistic and
    pessimistic. The groups follow the order's places, so the sorted rows fill the tied places
    group by group.
    """
    continues = ~starts  # the row's score equals the previous row's: both are tied
    tied = np.flatnonzero(continues | np.r_[continues[1:], False])
    if len(tied) == 0:
        return order
    if order.full is None:
        tied_rows, tied_group = tied, group[tied]
    else:  # the tied rows in the run's order, each with its group: the docids taken going forward
        group_of_row = np.empty(len(group), dtype=group.dtype)
        group_of_row[order.full] = group
        is_tied = np.zeros(len(group), dtype=bool)
        is_tied[order.full[tied]] = True
        tied_rows = np.flatnonzero(is_tied)
        tied_group = group_of_row[tied_rows]
    columns = {"group": from_numpy(tied_group)}
    keys = [("group", "ascending")]
    if rule.by_grade and grade is not None:
        columns["grade"] = from_numpy(grade[tied_rows])
        keys.append(("grade", "descending" if rule.by_grade == "best" else "ascending"))
    columns["docid"] = take(docids, rows[tied_rows]).cast(pa.binary())
    keys.append(("docid", "descending"))
    within = to_numpy(pc.sort_indices(pa.table(columns), sort_keys=keys))
    if order.full is None:
        return Order(moved=tied, source=tied_rows[within])
    full = order.full.copy()
    full[tied] = tied_rows[within]
    return Order(full=full)


def renumber(ids: np.ndarray) -> np.ndarray:
    """Renumber ids 0.. in order of first appearance."""
    if len(ids) == 0:
        return np.zeros(0, dtype=np.int64)
    if bool((ids[1:] >= ids[:-1]).all()):  # non-decreasing: count the changes
        return np.cumsum(np.r_[True, ids[1:] != ids[:-1]]) - 1
    _, first, inverse = np.unique(ids, return_index=True, return_inverse=True)
    rank_of_first = np.empty(len(first), dtype=np.int64)
    rank_of_first[np.argsort(first)] = np.arange(len(first))
    return rank_of_first[inverse]


def numbered_by_first_place(
    table_order: np.ndarray, score_order: np.ndarray, score_starts: np.ndarray
) -> np.ndarray:
    """Each table place's tie group, the groups numbered by their first place in the table.

    ``table_order`` and ``score_order``: the rows in the table's order and in (query, score)
    order, where each group of equal scores is contiguous and begins where ``score_starts`` is
    True. Linear passes, no sort: a group's first place is the least place of its rows."""
    n = len(table_order)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    place = np.empty(n, dtype=np.int64)
    place[table_order] = np.arange(n)
    first = np.minimum.reduceat(place[score_order], np.flatnonzero(score_starts))
    opens = np.zeros(n, dtype=bool)
    opens[first] = True
    number = (np.cumsum(opens) - 1)[first]
    group_of_row = np.empty(n, dtype=np.int64)
    group_of_row[score_order] = np.cumsum(score_starts) - 1
    return number[group_of_row[table_order]]


def ideal(qrels: Qrels, qrels_query_to_judged: np.ndarray, seg_order: np.ndarray):
    """Each segment's judged grades in descending order (the ideal ranking), CSR style;
    ``qrels_query_to_judged``: where each of the qrels' queries is among those the segments'
    numbers (``seg_order``) index."""
    judged_index = qrels_query_to_judged[qrels.qid_codes]
    segment_of_judged = np.empty(len(seg_order), dtype=np.int64)
    segment_of_judged[seg_order] = np.arange(len(seg_order))
    grades, ideal_query = _best_first_by_segment(segment_of_judged[judged_index], qrels.grade)
    counts = np.bincount(ideal_query, minlength=len(seg_order))
    offsets = np.r_[0, np.cumsum(counts)].astype(np.int64)
    ideal_pos = np.arange(len(grades)) - np.repeat(offsets[:-1], counts)
    return offsets, grades, ideal_query, ideal_pos


def _best_first_by_segment(segment: np.ndarray, grade: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(grades, segments) of the judgments ordered by segment, then grade descending.

    Only the values are wanted, not which judgment went where: where (segment, grade) fit one
    int64 key, the keys themselves are sorted (several times cheaper than any argsort of a million
    judgments) and read back; otherwise a lexsort."""
    if not len(grade):
        return grade.copy(), segment.astype(np.int64)
    top, span = int(grade.max()), int(grade.max()) - int(grade.min()) + 1
    if (int(segment.max()) + 1) * span < 1 << 62:
        key = segment.astype(np.int64) * span + (top - grade)
        key.sort()
        ordered_segment, below = np.divmod(key, span)
        return (top - below).astype(grade.dtype, copy=False), ordered_segment
    order = np.lexsort((-grade, segment))
    return grade[order], segment[order].astype(np.int64)


def ideal_with_added(
    ideal_offsets: np.ndarray,
    ideal_grades: np.ndarray,
    ideal_query: np.ndarray,
    ideal_pos: np.ndarray,
    grade: int,
    added: np.ndarray,
):
    """The ideal rankings with ``added[q]`` more judgments of ``grade`` in query q, still
    descending: each query's grades >= ``grade``, then the added ones, then the rest (no sort: one
    pass)."""
    counts = np.diff(ideal_offsets)
    new_counts = counts + added
    offsets = np.r_[0, np.cumsum(new_counts)].astype(np.int64)
    grades = np.empty(offsets[-1], dtype=ideal_grades.dtype)
    query = np.repeat(np.arange(len(counts), dtype=np.int64), new_counts)
    grades.fill(grade)  # the added judgments, and then the existing ones in their places
    moved = ideal_pos + np.where(ideal_grades >= grade, 0, added[ideal_query])
    grades[offsets[:-1][ideal_query] + moved] = ideal_grades
    return offsets, grades, query, np.arange(offsets[-1]) - np.repeat(offsets[:-1], new_counts)
