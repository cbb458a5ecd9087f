"""ndeval's measures of one topic, step for step as its C source (version 4.5, shipped in the PyPI
package ``pyndeval``) computes them: alpha-DCG and alpha-nDCG (Clarke et al., SIGIR 2008),
ERR-IA and nERR-IA (Chapelle et al., CIKM 2009), NRBP and nNRBP (Clarke et al., ICTIR 2009),
MAP-IA, P-IA (Agrawal et al., WSDM 2009) and subtopic recall (Zhai et al., SIGIR 2003), at ranks 1
to 20 where they have a cutoff.

A document's relevance is a set of subtopics; each subtopic's gain starts at 1 and is multiplied by
1 - alpha each time a document covers it. DCG and ERR are divided by an "ideal ideal" (every
subtopic covered at every rank) and their normalised forms by a greedy ideal ranking of the qrels.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

DEPTH = 20  # ndeval's deepest cutoff
Relevance = tuple[int, ...] | None  # per subtopic 0 or 1; None: a document the qrels do not list


@dataclass(frozen=True)
class Topic:
    """A topic's judgments: ``docids`` in byte order, each with its 0/1 per subtopic (``matrix``,
    documents x subtopics; subtopic ids 0 to the largest, gaps included), and how many documents
    cover each subtopic."""

    docids: tuple[str, ...]
    matrix: np.ndarray

    @property
    def subtopics(self) -> int:
        return self.matrix.shape[1]

    @property
    def covering(self) -> list[int]:
        return [int(n) for n in self.matrix.sum(axis=0)]

    @property
    def actual(self) -> int:
        """Subtopics some document covers (ndeval ignores the others)."""
        return sum(1 for n in self.covering if n)

    def relevance(self) -> dict[str, Relevance]:
        return {d: tuple(int(x) for x in row) for d, row in zip(self.docids, self.matrix)}


@dataclass(frozen=True)
class Scores:
    """One ranked list's values: ``dcg``, ``err`` (at ranks 1 to 20, divided by the ideal ideal
    from rank 2 on), ``nrbp``, ``precision`` (P-IA), ``strec`` and ``map_ia``."""

    dcg: list[float]
    err: list[float]
    nrbp: float
    precision: list[float]
    strec: list[float]
    map_ia: float


def discount(rank: int) -> float:
    """ndeval's discount of the 0-based ``rank``: 1 at the top, log 2 / log(rank + 2) below."""
    return 1.0 if rank <= 0 else math.log(2.0) / math.log(rank + 2.0)


def _gained(rows: Iterable[Relevance], subtopics: int, alpha: float) -> Iterable[float]:
    """Each rank's gain: the gains of the subtopics its document covers, each then worn down."""
    gain = [1.0] * subtopics
    for row in rows:
        score = 0.0
        if row is not None:
            for j in range(subtopics):
                if row[j]:
                    score += gain[j]
                    gain[j] *= 1.0 - alpha
        yield score


def _cumulated(values: list[float], ideal: list[float]) -> list[float]:
    """Running sums of ``values`` and of the ideal ideal, the first divided by the second from
    rank 2 on (ndeval leaves rank 1 undivided)."""
    for i in range(1, DEPTH):
        values[i] += values[i - 1]
        ideal[i] += ideal[i - 1]
    return [values[0]] + [values[i] / ideal[i] for i in range(1, DEPTH)]


def scores(rows: Sequence[Relevance], topic: Topic, *, alpha: float, beta: float) -> Scores:
    """Every measure of one ranked list (a run's, or the ideal ranking of the qrels)."""
    actual, subtopics = topic.actual, topic.subtopics
    if actual == 0:
        zeros = [0.0] * DEPTH
        return Scores(zeros, zeros, 0.0, zeros, zeros, 0.0)
    top = list(_gained(rows[:DEPTH], subtopics, alpha))
    dcg = [s * discount(i) for i, s in enumerate(top)] + [0.0] * (DEPTH - len(top))
    err = [s / (i + 1.0) for i, s in enumerate(top)] + [0.0] * (DEPTH - len(top))
    ideal_dcg, ideal_err, gain = [], [], float(actual)
    for i in range(DEPTH):
        ideal_dcg.append(gain * discount(i))
        ideal_err.append(gain / (i + 1.0))
        gain *= 1.0 - alpha
    nrbp, decay = 0.0, 1.0
    for score in _gained(rows, subtopics, alpha):
        nrbp += score * decay
        decay *= beta
    nrbp *= (1 - (1 - alpha) * beta) / actual
    return Scores(
        _cumulated(dcg, ideal_dcg),
        _cumulated(err, ideal_err),
        nrbp,
        _precision(rows, actual),
        _subtopic_recall(rows, subtopics, actual),
        _map_ia(rows, topic.covering, actual),
    )


def _precision(rows: Sequence[Relevance], actual: int) -> list[float]:
    count, values = 0, []
    for i in range(DEPTH):
        row = rows[i] if i < len(rows) else None
        if row is not None:
            count += sum(row)
        values.append(count / ((i + 1) * actual))
    return values


def _subtopic_recall(rows: Sequence[Relevance], subtopics: int, actual: int) -> list[float]:
    seen, values = [0] * subtopics, []
    for i in range(DEPTH):
        row = rows[i] if i < len(rows) else None
        if row is not None:
            for j in range(subtopics):
                if row[j]:
                    seen[j] = 1
        values.append(sum(seen) / actual)
    return values


def _map_ia(rows: Sequence[Relevance], covering: list[int], actual: int) -> float:
    counts, totals = [0] * len(covering), [0.0] * len(covering)
    for i, row in enumerate(rows):
        if row is not None:
            for j, covered in enumerate(row):
                if covered:
                    counts[j] += 1
                    totals[j] += counts[j] / (i + 1.0)
    total = 0.0
    for j, n in enumerate(covering):
        if n:
            total += totals[j] / n
    return total / actual


def ideal_order(topic: Topic, alpha: float) -> list[int]:
    """ndeval's greedy ideal ranking of the topic's documents: at each rank the document whose
    covered subtopics' gains add up most, the greatest docid among equals (its C compares docids
    byte for byte; here they are in that order already).

    Below alpha = 1 a gain never reaches 0, so the documents that cover nothing come last, greatest
    docid first, as the greedy walk would place them: it runs over the others alone.
    """
    covering = np.flatnonzero(topic.matrix.any(axis=1))
    if alpha >= 1.0:
        covering = np.arange(len(topic.docids))
    matrix = topic.matrix[covering].astype(np.float64)
    gains = np.ones(topic.subtopics)
    ranked = np.zeros(len(covering), dtype=bool)
    order = []
    for _ in range(len(covering)):
        score = np.zeros(len(covering))
        for j in range(topic.subtopics):  # subtopic by subtopic, in ndeval's order of the sum
            score += matrix[:, j] * gains[j]
        best = score[~ranked].max()
        where = int(np.flatnonzero(~ranked & (score == best))[-1])
        ranked[where] = True
        order.append(int(covering[where]))
        gains[matrix[where] > 0] *= 1.0 - alpha
    placed = set(order)
    return order + [i for i in reversed(range(len(topic.docids))) if i not in placed]
