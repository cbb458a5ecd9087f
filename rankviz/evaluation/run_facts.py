"""What the checks need to know of a run, gathered in the same pass that evaluates it.

A :class:`RunFacts` is computed from a run (or a block of its queries, as the stream and Dask
engines read it) and its ranking table, and merged over the blocks: the checks
(:mod:`rankviz.analyses.checks`) then cost a few array passes over what the evaluation holds
anyway, never a second reading of the run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from rankviz._arrow import booleans, from_numpy, strings, take_sorted, to_numpy
from rankviz.io.id_forms import IdForms, near_match
from rankviz.io.id_keys import id_positions
from rankviz.io.model import Run
from rankviz.io.packed_ids import ids_as_arrays, ids_from_arrays
from rankviz.ranking.ranking_table import RankingTable

EXAMPLES = 5
#: Lines of a run whose document ids are compared with the judged ids: a larger run is sampled
#: evenly (every n-th line), since a systematic difference shows in any sample and normalising
#: millions of ids costs seconds.
SAMPLE = 20_000


def sample_stride(lines: int) -> int:
    """Every how many lines a run of ``lines`` is sampled for its document ids."""
    return max(1, -(-lines // SAMPLE))


@dataclass(frozen=True)
class DocumentMatch:
    """How a run's sampled document ids meet the judged ids (:meth:`RunFacts.documents`)."""

    looked_at: int  # lines whose document id was compared (a sample of a large run)
    as_written: int  # of them, judged as written
    near: int  # of them, judged only once normalised
    examples: tuple[tuple[str, str], ...]  # (as written, the judged id it matches)


def _same(first, second) -> bool:
    if isinstance(first, pa.Array):
        return isinstance(second, pa.Array) and first.equals(second)
    if isinstance(first, np.ndarray):
        return isinstance(second, np.ndarray) and np.array_equal(first, second)
    return bool(first == second)


def _no_ids() -> np.ndarray:
    return np.zeros(0, dtype=object)


@dataclass(frozen=True, eq=False)
class RunFacts:
    """One run's facts (or one block of its queries'), merged by :meth:`merged`.

    What is known per query is held in arrays (a run may list millions of queries): the checks
    compare them with the qrels' in a few array passes.
    """

    queries: int = 0  # the queries the run lists
    # the run's queries the qrels do not judge, and the judged queries it has no ranking for
    unjudged: np.ndarray = field(default_factory=_no_ids)
    missing: np.ndarray = field(default_factory=_no_ids)
    lines: int = 0
    depth: int = 0  # its longest ranking, before any cut
    # (query, documents named like it, of them its top score)
    identical: tuple[tuple[str, int, int], ...] = ()
    tied: tuple[str, ...] = ()  # judged queries whose retrieved scores are all equal
    disagree: tuple[str, ...] = ()  # judged queries whose rank column contradicts the scores
    # the document ids of an even sample of its lines (every n-th line of a large run): each id
    # once, with the lines that name it; matched with the judged ids by :meth:`documents`
    sampled_docids: pa.Array = field(default_factory=lambda: strings([]))
    sampled_lines: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    judged_top: int = 0  # judged documents in the top K of every ranking
    could_top: int = 0  # judged documents the top K could hold
    # the judged queries with a relevant document of which the run retrieves none at any depth
    # (object; few, where a run is any good: the check intersects those of the runs, never looks
    # up a million judged queries), and the relevant documents it retrieves in all
    unfound: np.ndarray = field(default_factory=_no_ids)
    relevant_retrieved: int = 0

    #: the fields held in arrays
    ARRAYS = (
        "unjudged",
        "missing",
        "unfound",
        "sampled_docids",
        "sampled_lines",
    )

    __hash__ = None  # type: ignore[assignment]

    def __eq__(self, other: object) -> bool:
        """Field by field, arrays by their values (the same facts gathered, stored and read
        back, or gathered by another engine, are equal)."""
        if not isinstance(other, RunFacts):
            return NotImplemented
        return all(_same(getattr(self, f.name), getattr(other, f.name)) for f in fields(RunFacts))

    def documents(self, judged: IdForms) -> DocumentMatch:
        """How the sampled lines' document ids meet the judged ones (the qrels'
        :attr:`~rankviz.io.model.Qrels.docid_forms`): matched once per run, however many blocks
        sampled it."""
        ids, counts = self.sampled_docids, self.sampled_lines
        if not len(ids):
            return DocumentMatch(0, 0, 0, ())
        target = judged.ids
        ids = ids.cast(target.type)  # the sample takes the judged ids' type: it is the small one
        # the sample's ids hashed, not the judged ones (a million in a large qrels)
        sampled = target.filter(pc.is_in(target, value_set=ids))
        written = booleans(pc.is_in(ids, value_set=sampled))
        unmatched = np.flatnonzero(~written)
        match = near_match(ids.take(from_numpy(unmatched)), judged)
        hit = unmatched[match >= 0]
        examples = zip(
            ids.take(from_numpy(hit)).to_pylist(),
            target.take(from_numpy(match[match >= 0])).to_pylist(),
            strict=True,
        )
        return DocumentMatch(
            int(counts.sum()),
            int(counts[written].sum()),
            int(counts[hit].sum()),
            tuple(dict.fromkeys((str(a), str(b)) for a, b in examples))[:EXAMPLES],
        )

    def to_parts(self) -> tuple[dict, dict[str, np.ndarray]]:
        """(the fields JSON can hold, the per-query fields as plain NumPy arrays, so loading them
        needs no pickle: the lists of query ids packed (:func:`ids_as_arrays`), the sample of
        document ids as fixed-width text)."""
        plain = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in self.ARRAYS}
        arrays = {
            **ids_as_arrays("unjudged", self.unjudged),
            **ids_as_arrays("missing", self.missing),
            **ids_as_arrays("unfound", self.unfound),
            "sampled_docids": np.asarray(self.sampled_docids.to_pylist(), dtype=object).astype(str),
        }
        return plain, arrays | {"sampled_lines": self.sampled_lines}

    @staticmethod
    def from_parts(plain: dict, arrays: Mapping[str, np.ndarray]) -> RunFacts:
        """The facts :meth:`to_parts` gave (JSON's lists back to tuples; pairs and triples are the
        deepest nesting)."""

        def tuples(value):
            if not isinstance(value, list):
                return value
            return tuple(tuple(v) if isinstance(v, list) else v for v in value)

        return RunFacts(
            **{name: tuples(value) for name, value in plain.items()},
            unjudged=ids_from_arrays("unjudged", arrays),
            missing=ids_from_arrays("missing", arrays),
            unfound=ids_from_arrays("unfound", arrays),
            sampled_docids=strings(np.asarray(arrays["sampled_docids"]).tolist()),
            sampled_lines=np.asarray(arrays["sampled_lines"], dtype=np.int64),
        )

    @staticmethod
    def merged(parts: Sequence[RunFacts]) -> RunFacts:
        """The facts of a run from those of its blocks (disjoint queries)."""
        return RunFacts(
            queries=sum(p.queries for p in parts),
            unjudged=np.concatenate([_no_ids(), *(p.unjudged for p in parts)]),
            missing=np.concatenate([_no_ids(), *(p.missing for p in parts)]),
            lines=sum(p.lines for p in parts),
            depth=max((p.depth for p in parts), default=0),
            identical=tuple(i for p in parts for i in p.identical),
            tied=tuple(q for p in parts for q in p.tied),
            disagree=tuple(q for p in parts for q in p.disagree),
            sampled_docids=pa.concat_arrays([strings([]), *(p.sampled_docids for p in parts)]),
            sampled_lines=np.concatenate(
                [np.zeros(0, dtype=np.int64), *(p.sampled_lines for p in parts)]
            ),
            judged_top=sum(p.judged_top for p in parts),
            could_top=sum(p.could_top for p in parts),
            unfound=np.concatenate([_no_ids(), *(p.unfound for p in parts)]),
            relevant_retrieved=sum(p.relevant_retrieved for p in parts),
        )


def gather(run: Run, table: RankingTable, *, k: int, rel: int, stride: int = 1) -> RunFacts:
    """The facts of ``run`` (or a block of its queries) and its table in trec_eval's order under the
    cut in force; ``stride``: every how many lines' document ids are sampled (:func:`sample_stride`
    of the whole run)."""
    counts = np.bincount(run.qid_codes, minlength=len(run.query_ids))
    tied, disagree = _scores(run, counts)
    sampled_docids, sampled_lines = _sampled_docids(run, stride)
    top = table.top(k)
    could = np.minimum(np.diff(table.ideal_offsets), np.diff(top.offsets))[table.in_run].sum()
    hits = np.bincount(
        table.row_query[np.flatnonzero(table.grade >= rel)], minlength=len(table.qids)
    )
    relevant = np.bincount(
        table.ideal_query[np.flatnonzero(table.ideal_grades >= rel)], minlength=len(table.qids)
    )
    return RunFacts(
        queries=len(run.query_ids),
        unjudged=np.asarray(table.ignored_qids, dtype=object),
        missing=table.qids[~table.in_run],
        lines=len(run),
        depth=int(counts.max()) if len(run) else 0,
        identical=_identical(run),
        tied=_judged(tied, table.ignored_qids),
        disagree=_judged(disagree, table.ignored_qids),
        sampled_docids=sampled_docids,
        sampled_lines=sampled_lines,
        judged_top=int(top.judged.sum()),
        could_top=int(could),
        unfound=table.qids[(relevant > 0) & (hits == 0)],
        relevant_retrieved=int(hits.sum()),
    )


def _judged(queries: np.ndarray, ignored: tuple[str, ...]) -> tuple[str, ...]:
    """Those of ``queries`` (the run's) that are judged, in their order: all but the ones its table
    ignores (a few ids looked up among a few, not among a million judged ones)."""
    if not len(queries) or not ignored:
        return tuple(map(str, queries))
    return tuple(map(str, queries[id_positions(queries, ignored) < 0]))


def _sampled_docids(run: Run, stride: int) -> tuple[pa.Array, np.ndarray]:
    """The document ids of every ``stride``-th line, each once, and the lines naming it."""
    if not len(run):
        return strings([]), np.zeros(0, dtype=np.int64)
    sampled = take_sorted(run.docids, np.arange(0, len(run), stride)) if stride > 1 else run.docids
    if isinstance(sampled, pa.ChunkedArray):
        sampled = sampled.combine_chunks()
    counted = pc.value_counts(sampled.cast(pa.string()))
    return counted.field("values"), to_numpy(counted.field("counts")).astype(np.int64)


def _query_order(
    run: Run, counts: np.ndarray
) -> tuple[np.ndarray | None, np.ndarray, np.ndarray, np.ndarray]:
    """The run's rows grouped by query, file order inside one (None: the file is grouped already, no
    copy), with the query codes and scores in that order and each group's first position
    (``counts``: the lines of each query)."""
    codes = run.qid_codes
    if bool(np.all(codes[1:] >= codes[:-1])):
        present = counts[counts > 0]
        return None, codes, run.score, np.r_[0, np.cumsum(present)[:-1]].astype(np.int64)
    rows = np.argsort(codes, kind="stable")
    grouped = codes[rows]
    return rows, grouped, run.score[rows], np.flatnonzero(np.r_[True, grouped[1:] != grouped[:-1]])


def _rank_chunks(run: Run):
    """(first line, the rank column's values there) chunk by chunk, as NumPy views (no copy of the
    column)."""
    column = run.rank_column
    if isinstance(column, np.ndarray):
        yield 0, np.asarray(column, dtype=np.float64)
        return
    start = 0
    for chunk in column.chunks if isinstance(column, pa.ChunkedArray) else [column]:
        yield start, to_numpy(chunk, fill=np.nan).astype(np.float64, copy=False)
        start += len(chunk)


def _in_rank_order_with_falling_scores(run: Run) -> bool:
    """The file lists each query by rank with falling scores (as most files do): no rank contradicts
    a score then, and nothing needs sorting."""
    codes, score = run.qid_codes, run.score
    last = None  # the previous chunk's last line: (query, rank, score)
    for start, ranks in _rank_chunks(run):
        if not len(ranks):
            continue
        c, s = codes[start : start + len(ranks)], score[start : start + len(ranks)]
        same = c[1:] == c[:-1]
        if not bool(np.all(~same | ((ranks[1:] >= ranks[:-1]) & (s[1:] <= s[:-1])))):
            return False
        if last is not None and last[0] == c[0] and not (ranks[0] >= last[1] and s[0] <= last[2]):
            return False
        last = (c[-1], ranks[-1], s[-1])
    return True


def _identical(run: Run) -> tuple[tuple[str, int, int], ...]:
    rows = np.flatnonzero(run.identical_ids())
    if not len(rows):
        return ()
    codes = run.qid_codes[rows]
    best = np.full(len(run.query_ids), -np.inf)
    inside = np.isin(run.qid_codes, codes)
    np.maximum.at(best, run.qid_codes[inside], run.score[inside])
    first = run.score[rows] >= best[codes]
    named = np.bincount(codes, minlength=len(run.query_ids))
    on_top = np.bincount(codes[first], minlength=len(run.query_ids))
    return tuple(
        (str(run.query_ids[q]), int(named[q]), int(on_top[q])) for q in np.flatnonzero(named)
    )


def _scores(run: Run, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(queries whose scores are all tied, queries whose rank column contradicts the scores)."""
    if len(run) < 2:
        return _no_ids(), _no_ids()
    rows, codes, score, starts = _query_order(run, counts)
    sizes = np.diff(np.r_[starts, len(codes)])
    flat = (sizes > 1) & (np.maximum.reduceat(score, starts) == np.minimum.reduceat(score, starts))
    tied = run.query_ids[codes[starts[flat]]]
    if rows is None and _in_rank_order_with_falling_scores(run):
        return tied, _no_ids()
    ranks = np.asarray(run.rank, dtype=np.float64)
    ranks = ranks if rows is None else ranks[rows]
    # else listed by rank already
    if not bool(np.all((codes[1:] != codes[:-1]) | (ranks[1:] >= ranks[:-1]))):
        by_rank = np.lexsort((ranks, codes))  # inside each query, by the rank column
        codes, score = codes[by_rank], score[by_rank]
    # a later rank with a higher score
    rising = (codes[1:] == codes[:-1]) & (score[1:] > score[:-1])
    return tied, run.query_ids[np.unique(codes[1:][rising])]
