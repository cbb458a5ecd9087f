"""What the checks need to know of a run, gathered in the same pass that evaluates it.

A :class:`RunFacts` is computed from a run (or a block of its queries, as the stream and Dask
engines read it) and its ranking table, and merged over the blocks: the checks
(:mod:`rankviz.analyses.checks`) then cost a few array passes over what the evaluation holds
anyway, never a second reading of the run.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from rankviz._arrow import booleans, from_numpy, take_sorted, to_numpy
from rankviz.io.id_forms import near_match
from rankviz.io.model import Run
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
class RunFacts:
    """One run's facts (or one block of its queries'), merged by :meth:`merged`."""

    queries: tuple[str, ...] = ()  # every query the run lists
    lines: int = 0
    depth: int = 0  # its longest ranking, before any cut
    # (query, documents named like it, of them its top score)
    identical: tuple[tuple[str, int, int], ...] = ()
    tied: tuple[str, ...] = ()  # judged queries whose retrieved scores are all equal
    disagree: tuple[str, ...] = ()  # judged queries whose rank column contradicts the scores
    # lines whose document id was compared with the judged ids (a sample of a large run)
    looked_at: int = 0
    as_written: int = 0  # of them, judged as written
    near: int = 0  # of them, judged only once normalised
    near_examples: tuple[tuple[str, str], ...] = ()
    judged_top: int = 0  # judged documents in the top K of every ranking
    could_top: int = 0  # judged documents the top K could hold
    # judged query -> relevant documents retrieved at any depth
    relevant_found: tuple[tuple[str, int], ...] = ()

    def to_dict(self) -> dict:
        """The fields by name (their tuples become JSON lists)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    @staticmethod
    def from_dict(given: dict) -> RunFacts:
        """The facts :meth:`to_dict` gave (lists back to tuples; pairs and triples are the deepest
        nesting)."""

        def tuples(value):
            if not isinstance(value, list):
                return value
            return tuple(tuple(v) if isinstance(v, list) else v for v in value)

        return RunFacts(**{f.name: tuples(given[f.name]) for f in dataclasses.fields(RunFacts)})

    @staticmethod
    def merged(parts: Sequence[RunFacts]) -> RunFacts:
        """The facts of a run from those of its blocks (disjoint queries)."""
        examples = tuple(dict.fromkeys(e for p in parts for e in p.near_examples))[:EXAMPLES]
        return RunFacts(
            queries=tuple(q for p in parts for q in p.queries),
            lines=sum(p.lines for p in parts),
            depth=max((p.depth for p in parts), default=0),
            identical=tuple(i for p in parts for i in p.identical),
            tied=tuple(q for p in parts for q in p.tied),
            disagree=tuple(q for p in parts for q in p.disagree),
            looked_at=sum(p.looked_at for p in parts),
            as_written=sum(p.as_written for p in parts),
            near=sum(p.near for p in parts),
            near_examples=examples,
            judged_top=sum(p.judged_top for p in parts),
            could_top=sum(p.could_top for p in parts),
            relevant_found=tuple(r for p in parts for r in p.relevant_found),
        )


def gather(
    run: Run, table: RankingTable, judged_ids: pa.Array, *, k: int, rel: int, stride: int = 1
) -> RunFacts:
    """The facts of ``run`` (or a block of its queries) and its table in trec_eval's order under the
    cut in force; ``judged_ids``: the qrels' document ids; ``stride``: every how many lines the
    document ids are compared (:func:`sample_stride` of the whole run)."""
    judged_queries = set(map(str, table.qids))
    counts = np.bincount(run.qid_codes, minlength=len(run.query_ids))
    tied, disagree = _scores(run, counts)
    looked_at, as_written, near, examples = _document_ids(run, judged_ids, stride)
    top = table.top(k)
    could = np.minimum(np.diff(table.ideal_offsets), np.diff(top.offsets))[table.in_run].sum()
    hits = np.bincount(
        table.row_query[np.flatnonzero(table.grade >= rel)], minlength=len(table.qids)
    )
    return RunFacts(
        queries=tuple(map(str, run.query_ids)),
        lines=len(run),
        depth=int(counts.max()) if len(run) else 0,
        identical=_identical(run),
        tied=tuple(q for q in tied if q in judged_queries),
        disagree=tuple(q for q in disagree if q in judged_queries),
        looked_at=looked_at,
        as_written=as_written,
        near=near,
        near_examples=examples,
        judged_top=int(top.judged.sum()),
        could_top=int(could),
        relevant_found=tuple((str(q), int(n)) for q, n in zip(table.qids, hits, strict=True)),
    )


def _document_ids(
    run: Run, judged_ids: pa.Array, stride: int
) -> tuple[int, int, int, tuple[tuple[str, str], ...]]:
    """(lines looked at, of them judged as written, judged only once normalised, examples)."""
    if not len(run):
        return 0, 0, 0, ()
    sampled = take_sorted(run.docids, np.arange(0, len(run), stride)) if stride > 1 else run.docids
    if isinstance(sampled, pa.ChunkedArray):
        sampled = sampled.combine_chunks()
    counted = pc.value_counts(sampled)
    ids, counts = counted.field("values"), to_numpy(counted.field("counts"))
    target = judged_ids.cast(ids.type)
    written = booleans(pc.is_in(ids, value_set=target))
    unmatched = np.flatnonzero(~written)
    match = near_match(ids.take(from_numpy(unmatched)), target)
    hit = unmatched[match >= 0]
    examples = list(
        zip(
            ids.take(from_numpy(hit[:EXAMPLES])).to_pylist(),
            target.take(from_numpy(match[match >= 0][:EXAMPLES])).to_pylist(),
            strict=True,
        )
    )
    return (
        len(sampled),
        int(counts[written].sum()),
        int(counts[hit].sum()),
        tuple((str(a), str(b)) for a, b in examples),
    )


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


def _scores(run: Run, counts: np.ndarray) -> tuple[list[str], list[str]]:
    """(queries whose scores are all tied, queries whose rank column contradicts the scores)."""
    if len(run) < 2:
        return [], []
    rows, codes, score, starts = _query_order(run, counts)
    sizes = np.diff(np.r_[starts, len(codes)])
    flat = (sizes > 1) & (np.maximum.reduceat(score, starts) == np.minimum.reduceat(score, starts))
    tied = [str(run.query_ids[codes[s]]) for s in starts[flat]]
    if rows is None and _in_rank_order_with_falling_scores(run):
        return tied, []
    ranks = np.asarray(run.rank, dtype=np.float64)
    ranks = ranks if rows is None else ranks[rows]
    # else listed by rank already
    if not bool(np.all((codes[1:] != codes[:-1]) | (ranks[1:] >= ranks[:-1]))):
        by_rank = np.lexsort((ranks, codes))  # inside each query, by the rank column
        codes, score = codes[by_rank], score[by_rank]
    # a later rank with a higher score
    rising = (codes[1:] == codes[:-1]) & (score[1:] > score[:-1])
    return tied, [str(run.query_ids[q]) for q in np.unique(codes[1:][rising])]
