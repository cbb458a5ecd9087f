"""ndeval 4.5's arithmetic (the C source shipped in the PyPI package ``pyndeval``): each topic's
judgments as a documents x subtopics matrix, its greedy ideal ranking, and every measure of one
ranked list: alpha-DCG and alpha-nDCG (Clarke et al., SIGIR 2008), ERR-IA and nERR-IA (Chapelle
et al., CIKM 2009), NRBP and nNRBP (Clarke et al., ICTIR 2009), MAP-IA, P-IA (Agrawal et al., WSDM
2009) and subtopic recall (Zhai et al., SIGIR 2003), at ranks 1 to 20 where they have a cutoff.

Vectorised, with every double made by the operations ndeval makes in its order: a gain worn down
by repeated multiplication (``cumprod``), sums taken left to right (``cumsum``, never a pairwise
sum), a document's gain summed subtopic by subtopic. So the values, and the ties the greedy ideal
ranking breaks, are ndeval's own on any CPU.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
import pyarrow.compute as pc

from rankviz._arrow import to_numpy
from rankviz.errors import FormatError
from rankviz.io.encoding import dictionary
from rankviz.io.subtopics import SubtopicQrels

DEPTH = 20  # ndeval's deepest cutoff
#: ndeval's discount of each 0-based rank to DEPTH: 1 at the top, log 2 / log(rank + 2) below
DISCOUNTS = np.array([1.0] + [math.log(2.0) / math.log(r + 2.0) for r in range(1, DEPTH)])
#: at most this many cells in one batch of the greedy ideal rankings (topics x patterns x subtopics)
BATCH_CELLS = 1 << 22


@dataclass(frozen=True, eq=False)
class Topic:
    """A topic's judgments: ``docids`` in byte order, each with whether it covers each of the
    topic's subtopics (``matrix``, documents x subtopics in ascending order of their numbers)."""

    docids: np.ndarray
    matrix: np.ndarray  # bool

    @property
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


def judged_topics(qrels: SubtopicQrels, rel: int) -> dict[str, Topic]:
    """Each topic's documents (in byte order) and the subtopics each covers (judged ``rel`` or
    more), topics in the file's order."""
    topics = dictionary(qrels.qids)
    docs = dictionary(qrels.docids)
    byte_rank = np.empty(len(docs.dictionary), dtype=np.int64)
    byte_rank[to_numpy(pc.sort_indices(docs.dictionary))] = np.arange(len(docs.dictionary))
    topic = to_numpy(topics.indices).astype(np.int64)
    doc = byte_rank[to_numpy(docs.indices)]
    order = np.lexsort((qrels.subtopics, doc, topic))
    starts = np.flatnonzero(np.r_[True, np.diff(topic[order]) != 0])
    names = topics.dictionary.to_pylist()
    doc_names = np.asarray(docs.dictionary.to_pylist(), dtype=object)
    by_byte = np.empty_like(doc_names)
    by_byte[byte_rank] = doc_names
    found = {}
    for rows in np.split(order, starts[1:]):
        qid = names[topic[rows[0]]]
        topic_number(qid, qrels.source)
        docids, doc_row = np.unique(doc[rows], return_inverse=True)
        subtopics, column = np.unique(qrels.subtopics[rows], return_inverse=True)
        matrix = np.zeros((len(docids), len(subtopics)), dtype=bool)
        matrix[doc_row, column] = qrels.judgments[rows] >= rel
        found[qid] = (by_byte[docids], matrix)
    return {qid: Topic(*found[qid]) for qid in names}


@dataclass(frozen=True, eq=False)
class Scores:
    """One ranked list's values: ``dcg``, ``err`` (at ranks 1 to 20, divided by the ideal ideal
    from rank 2 on), ``nrbp``, ``precision`` (P-IA), ``strec`` and ``map_ia``."""

    dcg: np.ndarray
    err: np.ndarray
    nrbp: float
    precision: np.ndarray
    strec: np.ndarray
    map_ia: float


def _repeated(first: float, factor: float, n: int) -> np.ndarray:
    """first, first * factor, (first * factor) * factor, ...: n values by repeated multiplication
    (what a C loop's ``x *= factor`` gives, not a power)."""
    return np.cumprod(np.r_[first, np.full(max(n - 1, 0), factor)])[:n]


def _padded(values: np.ndarray, fill: float) -> np.ndarray:
    return np.r_[values[:DEPTH], np.full(max(DEPTH - len(values), 0), fill)]


def scores(covers: np.ndarray, topic: Topic, *, alpha: float, beta: float) -> Scores:
    """Every measure of one ranked list, given as its documents' rows of subtopics covered
    (``covers``: documents x subtopics, a document the qrels do not list covering none)."""
    actual = topic.actual
    if actual == 0:
        zeros = np.zeros(DEPTH)
        return Scores(zeros, zeros, 0.0, zeros, zeros, 0.0)
    n, subtopics = covers.shape
    keep = 1.0 - alpha
    earlier = np.cumsum(covers, axis=0) - covers  # the documents above that cover each subtopic
    worn = np.where(covers, _repeated(1.0, keep, n + 1)[earlier], 0.0)
    gained = np.zeros(n)
    for j in range(subtopics):  # a document's gain, subtopic by subtopic as ndeval sums it
        gained += worn[:, j]
    top = gained[:DEPTH]
    ranks = np.arange(1.0, DEPTH + 1)
    dcg = _padded(top * DISCOUNTS[: len(top)], 0.0)
    err = _padded(top / ranks[: len(top)], 0.0)
    ideal_gain = _repeated(float(actual), keep, DEPTH)
    nrbp = float(np.cumsum(gained * _repeated(1.0, beta, n))[-1]) if n else 0.0
    nrbp *= (1 - keep * beta) / actual
    counted = _padded(np.cumsum(covers.sum(axis=1)), np.sum(covers))
    return Scores(
        _cumulated(dcg, ideal_gain * DISCOUNTS),
        _cumulated(err, ideal_gain / ranks),
        nrbp,
        counted / (ranks.astype(np.int64) * actual),
        _strec(covers, actual),
        _map_ia(covers, topic.covering, actual),
    )


def _cumulated(values: np.ndarray, ideal: np.ndarray) -> np.ndarray:
    """Running sums of ``values`` and of the ideal ideal, the first divided by the second from
    rank 2 on (ndeval leaves rank 1 undivided)."""
    summed, ideal_summed = np.cumsum(values), np.cumsum(ideal)
    return np.r_[summed[0], summed[1:] / ideal_summed[1:]]


def _strec(covers: np.ndarray, actual: int) -> np.ndarray:
    """Subtopic recall at ranks 1 to 20: the subtopics covered by then, over those judged."""
    first = np.where(covers.any(axis=0), np.argmax(covers, axis=0), DEPTH)
    return np.array([np.count_nonzero(first <= i) for i in range(DEPTH)]) / actual


def _map_ia(covers: np.ndarray, covering: np.ndarray, actual: int) -> float:
    total = 0.0
    for j, documents in enumerate(covering):
        if documents:
            at = np.flatnonzero(covers[:, j])
            found = np.cumsum(np.arange(1, len(at) + 1) / (at + 1.0))[-1] if len(at) else 0.0
            total += float(found) / int(documents)
    return total / actual


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
        if batch and (len(batch) + 1) * width[0] * width[1] > BATCH_CELLS:
            orders += _greedy(batch, alpha)
            batch, width = [], size
        batch.append(topic)
        widest = width
    return orders + (_greedy(batch, alpha) if batch else [])


def _greedy(topics: list[Topic], alpha: float) -> list[np.ndarray]:
    keep = 1.0 - alpha
    candidates, patterns, members = [], [], []
    for topic in topics:
        rows = np.arange(len(topic.docids))
        if alpha < 1.0:
            rows = rows[topic.matrix.any(axis=1)]
        unique, which = np.unique(topic.matrix[rows], axis=0, return_inverse=True)
        which = which.reshape(-1)
        candidates.append(rows)
        patterns.append(unique)
        members.append([rows[which == p][::-1] for p in range(len(unique))])
    n_topics = len(topics)
    n_patterns = max((len(p) for p in patterns), default=0)
    n_subtopics = max((t.matrix.shape[1] for t in topics), default=0)
    deepest = max((len(r) for r in candidates), default=0)
    covers = np.zeros((n_topics, n_patterns, n_subtopics))
    docs = np.full((n_topics, n_patterns, max(deepest, 1)), -1, dtype=np.int64)
    sizes = np.zeros((n_topics, n_patterns), dtype=np.int64)
    for t, (unique, kept) in enumerate(zip(patterns, members, strict=True)):
        covers[t, : len(unique), : unique.shape[1]] = unique
        for p, rows in enumerate(kept):
            docs[t, p, : len(rows)] = rows
            sizes[t, p] = len(rows)
    gains = np.ones((n_topics, n_subtopics))
    taken = np.zeros_like(sizes)
    picked = np.full((n_topics, deepest), -1, dtype=np.int64)
    for step in range(deepest):
        score = np.zeros((n_topics, n_patterns))
        for j in range(n_subtopics):  # subtopic by subtopic, in ndeval's order of the sum
            score += covers[:, :, j] * gains[:, j, None]
        left = taken < sizes
        score[~left] = -np.inf
        tied = left & (score == score.max(axis=1, keepdims=True))
        next_doc = np.take_along_axis(docs, np.minimum(taken, docs.shape[2] - 1)[..., None], 2)
        offered = np.where(tied, next_doc[..., 0], -1)
        active = np.flatnonzero(left.any(axis=1))
        chosen = np.argmax(offered[active], axis=1)
        picked[active, step] = offered[active, chosen]
        taken[active, chosen] += 1
        worn = covers[active, chosen] > 0
        gains[active] = np.where(worn, gains[active] * keep, gains[active])
    orders = []
    for t, topic in enumerate(topics):
        order = picked[t, : len(candidates[t])]
        rest = np.setdiff1d(np.arange(len(topic.docids)), order)[::-1]
        orders.append(np.r_[order, rest].astype(np.int64))
    return orders
