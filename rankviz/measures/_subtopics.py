"""ndeval 4.5's arithmetic (the C source shipped in the PyPI package ``pyndeval``): each topic's
judgments as a documents x subtopics matrix, its greedy ideal ranking, and every measure of ranked
lists: alpha-DCG and alpha-nDCG (Clarke et al., SIGIR 2008), ERR-IA and nERR-IA (Chapelle
et al., CIKM 2009), NRBP and nNRBP (Clarke et al., ICTIR 2009), MAP-IA, P-IA (Agrawal et al., WSDM
2009) and subtopic recall (Zhai et al., SIGIR 2003), at ranks 1 to 20 where they have a cutoff.

Vectorised, with every double made by the operations ndeval makes in its order: a gain worn down
by repeated multiplication (``cumprod``), sums taken left to right (``cumsum``, never a pairwise
sum), a document's gain summed subtopic by subtopic. So the values, and the ties the greedy ideal
ranking breaks, are ndeval's own on any CPU. Every topic is worked on at once, in batches of lists
padded with documents and subtopics that add an exact 0.0 to each sum: no Python work per topic
but making its :class:`Topic`.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from rankviz._arrow import from_numpy
from rankviz.errors import FormatError
from rankviz.io.subtopics import SubtopicQrels

DEPTH = 20  # ndeval's deepest cutoff
#: ndeval's discount of each 0-based rank to DEPTH: 1 at the top, log 2 / log(rank + 2) below
DISCOUNTS = np.array([1.0] + [math.log(2.0) / math.log(r + 2.0) for r in range(1, DEPTH)])
#: at most this many cells (ranked lists x documents x subtopics) in one batch of the measures: 8 MB
#: temporaries, batch after batch
BATCH_CELLS = 1 << 20
#: at most this many topics x documents x subtopics in one batch of the greedy ideal rankings (each
#: step of the walk costs the same whatever the batch's size: few batches, few steps)
GREEDY_CELLS = 1 << 22


@dataclass(frozen=True, eq=False)
class Topic:
    """A topic's judgments: ``docids`` in byte order, each with whether it covers each of the
    topic's subtopics (``matrix``, documents x subtopics in ascending order of their numbers)."""

    docids: np.ndarray
    matrix: np.ndarray  # bool

    @functools.cached_property
    def covering(self) -> np.ndarray:
        """How many documents cover each subtopic."""
        return self.matrix.sum(axis=0)

    @functools.cached_property
    def row_of(self) -> dict[str, int]:
        """Each judged document's row."""
        return {docid: row for row, docid in enumerate(self.docids.tolist())}

    @property
    def actual(self) -> int:
        """Subtopics some document covers (ndeval ignores the others)."""
        return int(np.count_nonzero(self.covering))


def topic_number(text: str, source: str, *, prefixed: bool = False) -> int:
    """A topic as ndeval reads it: a natural number (in a run, after a prefix ending in ``-``)."""
    number = text if text[:1].isdigit() or not prefixed else text.partition("-")[2]
    if not number.isdigit():
        raise FormatError(
            source, 0, None, f"topic {text!r} is not a natural number, as ndeval needs"
        )
    return int(number)


@dataclass(frozen=True, eq=False)
class Judged:
    """Diversity qrels as the measures read them: each topic's :class:`Topic` (topics in the file's
    order), and every judged (topic, document) once, topic by topic, each document's row in its
    topic: ``qids`` and ``docids`` (Arrow strings) and ``rows``."""

    topics: dict[str, Topic]
    qids: pa.Array
    docids: pa.Array
    rows: np.ndarray


def judged_topics(qrels: SubtopicQrels, rel: int) -> Judged:
    """Each topic's documents (in byte order) and the subtopics each covers (judged ``rel`` or
    more), topics in the file's order: sorted once for every topic, each topic's matrix a view of
    one array (no work per topic but making it)."""
    topics = qrels.dictionaries[0]
    ordered = qrels.ordered
    order, topic, doc = ordered.order, ordered.topic, ordered.doc
    subtopic = qrels.subtopics[order]
    names = topics.dictionary.to_pylist()
    for qid in names:
        topic_number(qid, qrels.source)
    # every (topic, document) once, and each one's row in its topic
    new_pair = np.r_[True, (np.diff(topic) != 0) | (np.diff(doc) != 0)]
    pair = np.cumsum(new_pair) - 1
    pair_topic, pair_doc = topic[new_pair], doc[new_pair]
    rows = _within(pair_topic)
    column = _columns(topic, subtopic, len(names))
    width = int(column.max()) + 1 if len(column) else 0
    matrix = np.zeros((len(pair_topic), width), dtype=bool)
    matrix[pair, column] = qrels.judgments[order] >= rel
    sorted_docs = ordered.docids
    doc_names = np.asarray(sorted_docs.to_pylist(), dtype=object)[pair_doc]
    starts = np.searchsorted(pair_topic, np.arange(len(names) + 1))
    widths = np.zeros(len(names), dtype=np.int64)
    np.maximum.at(widths, topic, column + 1)
    found = {
        qid: Topic(
            doc_names[starts[t] : starts[t + 1]], matrix[starts[t] : starts[t + 1], : widths[t]]
        )
        for t, qid in enumerate(names)
    }
    return Judged(
        found,
        topics.dictionary.take(from_numpy(pair_topic)),
        sorted_docs.take(from_numpy(pair_doc)),
        rows,
    )


def _columns(topic: np.ndarray, subtopic: np.ndarray, topics: int) -> np.ndarray:
    """Each judgment's subtopic as a column of its topic, the topic's subtopics in ascending
    order: from a table of the subtopics each topic has where their numbers are small (as they
    are), else from one more sort."""
    top = int(subtopic.max()) + 1 if len(subtopic) else 0
    if topics * top <= 1 << 24:
        present = np.zeros((topics, top), dtype=bool)
        present[topic, subtopic] = True
        return (np.cumsum(present, axis=1) - 1)[topic, subtopic]
    by_subtopic = np.lexsort((subtopic, topic))
    new_column = np.r_[
        True,
        (np.diff(topic[by_subtopic]) != 0) | (np.diff(subtopic[by_subtopic]) != 0),
    ]
    column = np.empty(len(topic), dtype=np.int64)
    column[by_subtopic] = _within(topic[by_subtopic][new_column])[np.cumsum(new_column) - 1]
    return column


def _within(groups: np.ndarray) -> np.ndarray:
    """Each item's place within its run of equal ``groups`` (0, 1, 2, ... from each run's start)."""
    at = np.arange(len(groups))
    starts = np.r_[True, np.diff(groups) != 0] if len(groups) else np.zeros(0, dtype=bool)
    return at - np.maximum.accumulate(np.where(starts, at, 0))


@dataclass(frozen=True, eq=False)
class Scores:
    """Ranked lists' values, a row per list: ``dcg``, ``err`` (ranks 1 to 20, divided by the ideal
    ideal from rank 2 on), ``nrbp``, ``precision`` (P-IA), ``strec`` and ``map_ia``."""

    dcg: np.ndarray
    err: np.ndarray
    nrbp: np.ndarray
    precision: np.ndarray
    strec: np.ndarray
    map_ia: np.ndarray

    def arrays(self) -> tuple[np.ndarray, ...]:
        """The values in the fields' order."""
        return tuple(getattr(self, f.name) for f in dataclasses.fields(self))

    @classmethod
    def concatenate(cls, parts: list[Scores]) -> Scores:
        if not parts:  # no list: per-rank fields of 0 x 20, the others of 0
            shapes = (
                0 if f.name in ("nrbp", "map_ia") else (0, DEPTH) for f in dataclasses.fields(cls)
            )
            return cls(*(np.zeros(shape) for shape in shapes))
        return cls(*(np.concatenate(arrays) for arrays in zip(*(p.arrays() for p in parts))))

    def take(self, at: np.ndarray) -> Scores:
        """The rows ``at``, in that order."""
        return Scores(*(v[at] for v in self.arrays()))


def _repeated(first: float, factor: float, n: int) -> np.ndarray:
    """first, first * factor, (first * factor) * factor, ...: n values by repeated multiplication
    (what a C loop's ``x *= factor`` gives, not a power)."""
    return np.cumprod(np.r_[first, np.full(max(n - 1, 0), factor)])[:n]


def scores(
    covers: np.ndarray, actual: np.ndarray, covering: np.ndarray, *, alpha: float, beta: float
) -> Scores:
    """Every measure of many ranked lists at once.

    ``covers`` holds each list's documents' subtopics covered (lists x documents x subtopics; a
    shorter list padded with documents that cover nothing, a topic's missing subtopics with columns
    nobody covers); ``actual`` each list's topic's subtopics some document covers, ``covering``
    how many of its judged documents cover each subtopic. A padded document or subtopic adds an
    exact 0.0 to every sum, in ndeval's order of the sums: each list's values are the ones it
    would have alone. A topic that covers nothing scores 0.
    """
    lists, n, subtopics = covers.shape
    keep = 1.0 - alpha
    earlier = np.cumsum(covers, axis=1) - covers  # the documents above that cover each subtopic
    worn = np.where(covers, _repeated(1.0, keep, n + 1)[earlier], 0.0)
    del earlier
    gained = np.zeros((lists, n))
    for j in range(subtopics):  # a document's gain, subtopic by subtopic as ndeval sums it
        gained += worn[:, :, j]
    del worn
    depth = min(n, DEPTH)
    ranks = np.arange(1.0, DEPTH + 1)
    dcg, err = np.zeros((lists, DEPTH)), np.zeros((lists, DEPTH))
    dcg[:, :depth] = gained[:, :depth] * DISCOUNTS[:depth]
    err[:, :depth] = gained[:, :depth] / ranks[:depth]
    first = np.c_[actual.astype(np.float64), np.full((lists, DEPTH - 1), keep)]
    ideal_gain = np.cumprod(first, axis=1)
    nrbp = np.cumsum(gained * _repeated(1.0, beta, n), axis=1)[:, -1] if n else np.zeros(lists)
    judged = actual > 0
    safe = np.where(judged, actual, 1)
    nrbp = nrbp * ((1 - keep * beta) / safe)
    counted = np.cumsum(covers.sum(axis=2), axis=1)
    counted = np.c_[counted[:, :DEPTH], np.repeat(counted[:, -1:], DEPTH - depth, axis=1)]
    with np.errstate(divide="ignore", invalid="ignore"):  # a topic that covers nothing: 0 below
        found = Scores(
            _cumulated(dcg, ideal_gain * DISCOUNTS),
            _cumulated(err, ideal_gain / ranks),
            nrbp,
            counted / (ranks.astype(np.int64) * safe[:, None]),
            _strec(covers, safe),
            _map_ia(covers, covering, safe),
        )
    if judged.all():
        return found
    return Scores(
        *(np.where(judged.reshape(-1, *[1] * (v.ndim - 1)), v, 0.0) for v in found.arrays())
    )


def _cumulated(values: np.ndarray, ideal: np.ndarray) -> np.ndarray:
    """Running sums of ``values`` and of the ideal ideal, the first divided by the second from
    rank 2 on (ndeval leaves rank 1 undivided)."""
    summed, ideal_summed = np.cumsum(values, axis=1), np.cumsum(ideal, axis=1)
    return np.c_[summed[:, :1], summed[:, 1:] / ideal_summed[:, 1:]]


def _strec(covers: np.ndarray, actual: np.ndarray) -> np.ndarray:
    """Subtopic recall at ranks 1 to 20: the subtopics covered by then, over those judged."""
    first = np.where(covers.any(axis=1), np.argmax(covers, axis=1), DEPTH)  # lists x subtopics
    by_then = (first[:, None, :] <= np.arange(DEPTH)[None, :, None]).sum(axis=2)
    return by_then / actual[:, None]


def _map_ia(covers: np.ndarray, covering: np.ndarray, actual: np.ndarray) -> np.ndarray:
    """Each subtopic's AP (the k-th covering document at rank r adds k / r, summed down the list),
    over the documents covering it, summed subtopic by subtopic, over the subtopics."""
    position = np.arange(1.0, covers.shape[1] + 1)
    total = np.zeros(len(covers))
    for j in range(covers.shape[2]):
        column = covers[:, :, j]
        found = np.cumsum(np.where(column, np.cumsum(column, axis=1) / position, 0.0), axis=1)
        documents = covering[:, j]
        total += np.divide(found[:, -1], documents, out=np.zeros(len(covers)), where=documents > 0)
    return total / actual


def score_lists(
    topics: list[Topic], rows: list[np.ndarray], *, alpha: float, beta: float
) -> Scores:
    """:func:`scores` of ranked lists given as their topics and their documents' rows in them (-1:
    a document the qrels do not list), a batch of lists at a time (at most
    :data:`BATCH_CELLS` cells of lists x documents x subtopics)."""
    width = max((t.matrix.shape[1] for t in topics), default=0)
    covering = np.zeros((len(topics), width), dtype=np.int64)
    for i, topic in enumerate(topics):
        covering[i, : topic.matrix.shape[1]] = topic.covering
    actual = np.count_nonzero(covering, axis=1)
    deepest = max((len(r) for r in rows), default=0)
    step = max(BATCH_CELLS // max(deepest * width, 1), 1)
    parts = []
    for start in range(0, len(topics), step):
        batch = slice(start, start + step)
        covers = _padded(topics[batch], rows[batch], width)
        parts.append(scores(covers, actual[batch], covering[batch], alpha=alpha, beta=beta))
    return Scores.concatenate(parts)


def _padded(topics: list[Topic], rows: list[np.ndarray], width: int) -> np.ndarray:
    """Lists x documents x subtopics, list ``i`` the rows ``rows[i]`` of its topic's matrix,
    padded as :func:`scores` takes them."""
    n = max((len(r) for r in rows), default=0)
    covers = np.zeros((len(topics), max(n, 1), width), dtype=bool)
    for i, (topic, at) in enumerate(zip(topics, rows, strict=True)):
        judged = at >= 0
        covers[i, np.flatnonzero(judged), : topic.matrix.shape[1]] = topic.matrix[at[judged]]
    return covers


def ideal_orders(topics: list[Topic], alpha: float) -> list[np.ndarray]:
    """ndeval's greedy ideal ranking of each topic's documents (their rows): at each rank the
    document whose covered subtopics' gains add up most, the greatest docid among equals (its C
    compares docids byte for byte; the rows are in that order).

    Below alpha = 1 a gain never reaches 0, so the documents that cover nothing come last, greatest
    docid first, as the greedy walk would place them: it runs over the others alone. Documents that
    cover the same subtopics score alike, so the walk scores each such pattern once, for many
    topics at a time.
    """
    orders: list[np.ndarray] = []
    batch: list[Topic] = []
    widest = (0, 0)
    for topic in topics:
        size = (len(topic.docids), max(topic.matrix.shape[1], 1))
        width = (max(widest[0], size[0]), max(widest[1], size[1]))
        if batch and (len(batch) + 1) * width[0] * width[1] > GREEDY_CELLS:
            orders += _greedy(batch, alpha)
            batch, width = [], size
        batch.append(topic)
        widest = width
    return orders + (_greedy(batch, alpha) if batch else [])


def _greedy(topics: list[Topic], alpha: float) -> list[np.ndarray]:
    keep = 1.0 - alpha
    counts = np.array([len(t.docids) for t in topics], dtype=np.int64)
    n_subtopics = max((t.matrix.shape[1] for t in topics), default=0)
    flat = np.zeros((int(counts.sum()), n_subtopics), dtype=bool)  # every topic's rows, padded
    ends = np.cumsum(counts)
    for topic, end in zip(topics, ends.tolist(), strict=True):
        flat[end - len(topic.docids) : end, : topic.matrix.shape[1]] = topic.matrix
    topic_of = np.repeat(np.arange(len(topics)), counts)
    row_of = _within(topic_of)
    # the walk's candidates: below alpha = 1, the documents that cover something
    taking = flat.any(axis=1) if alpha < 1.0 else np.ones(len(flat), dtype=bool)
    at = np.flatnonzero(taking)
    packed = np.packbits(flat[at], axis=1)  # each candidate's pattern of subtopics, as bytes
    order = np.lexsort((-row_of[at], *packed.T[::-1], topic_of[at]))
    at, packed = at[order], packed[order]
    group_start = np.r_[
        True, (np.diff(topic_of[at]) != 0) | np.any(np.diff(packed, axis=0), axis=1)
    ][: len(at)]  # no candidate at all: no group
    group = np.cumsum(group_start) - 1
    group_topic = topic_of[at][group_start]
    group_pattern = _within(group_topic)  # a pattern's place among its topic's
    member = _within(group)  # greatest docid first within a pattern
    n_topics = len(topics)
    n_patterns = int(group_pattern.max()) + 1 if len(group_pattern) else 0
    deepest = int(np.bincount(topic_of[at], minlength=n_topics).max()) if len(at) else 0
    covers = np.zeros((n_topics, n_patterns, n_subtopics))
    covers[group_topic, group_pattern] = flat[at[group_start]]
    docs = np.full((n_topics, n_patterns, max(int(member.max()) + 1 if len(member) else 1, 1)), -1)
    docs[topic_of[at], group_pattern[group], member] = row_of[at]
    sizes = np.zeros((n_topics, n_patterns), dtype=np.int64)
    sizes[group_topic, group_pattern] = np.bincount(group)
    gains = np.ones((n_topics, n_subtopics))
    taken = np.zeros_like(sizes)
    picked = np.full((n_topics, deepest), -1, dtype=np.int64)
    # each pattern's next document: only the chosen pattern's moves at a step (looking them all up
    # again at every step was a quarter of the walk)
    next_doc = docs[:, :, 0].copy()
    last_member = docs.shape[2] - 1
    # a subtopic's cover of every pattern in one piece of memory: the sum reads them in turn
    by_subtopic = np.ascontiguousarray(np.moveaxis(covers, 2, 0))
    gain_term = np.empty((n_topics, n_patterns))
    for step in range(deepest):
        score = np.zeros((n_topics, n_patterns))
        for j in range(n_subtopics):  # subtopic by subtopic, in ndeval's order of the sum
            np.multiply(by_subtopic[j], gains[:, j, None], out=gain_term)
            score += gain_term
        left = taken < sizes
        score[~left] = -np.inf
        tied = left & (score == score.max(axis=1, keepdims=True))
        offered = np.where(tied, next_doc, -1)
        active = np.flatnonzero(left.any(axis=1))
        chosen = np.argmax(offered[active], axis=1)
        picked[active, step] = offered[active, chosen]
        taken[active, chosen] += 1
        next_doc[active, chosen] = docs[
            active, chosen, np.minimum(taken[active, chosen], last_member)
        ]
        worn = covers[active, chosen] > 0
        gains[active] = np.where(worn, gains[active] * keep, gains[active])
    # each topic's walk, then the documents it did not take, greatest docid first
    picked_rows = picked.reshape(-1)
    walked = picked_rows >= 0
    rest = np.flatnonzero(~taking)
    topic_rank = np.r_[np.repeat(np.arange(n_topics), deepest)[walked], topic_of[rest]]
    place = np.r_[np.tile(np.arange(deepest), n_topics)[walked], deepest + len(flat) - row_of[rest]]
    rows = np.r_[picked_rows[walked], row_of[rest]].astype(np.int64)
    ordered = rows[np.lexsort((place, topic_rank))]
    return np.split(ordered, ends[:-1])
