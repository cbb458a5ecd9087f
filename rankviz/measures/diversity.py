"""The diversity family: ndeval 4.5's measures (alpha-nDCG@K, ERR-IA@K, NRBP, MAP-IA, P-IA@K,
subtopic recall), their names (ndeval's columns, ir_measures' spellings), their parameters (alpha,
beta) and their values per topic of a run (:func:`diversity_values`), read from diversity qrels
(``topic subtopic docno judgment``).

A document's relevance is a set of subtopics; each subtopic's gain starts at 1 and is multiplied by
1 - alpha each time a document covers it. DCG and ERR are divided by an "ideal ideal" (every
subtopic covered at every rank) and their normalised forms by a greedy ideal ranking of the qrels
(:mod:`rankviz.measures._subtopics` computes them as ndeval's C source does). ``rankviz ndeval``
prints these values; the study carries them beside the catalogue's measures.
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass, field, replace

import numpy as np

from rankviz._arrow import strings
from rankviz.errors import FormatError, MeasureError
from rankviz.io.encoding import encode
from rankviz.io.model import Qrels, Run
from rankviz.io.subtopics import SubtopicQrels
from rankviz.measures._subtopics import (
    DEPTH,
    Scores,
    Topic,
    ideal_orders,
    judged_topics,
    scores,
    topic_number,
)
from rankviz.ranking.ordering import rank

CUTOFFS = (5, 10, 20)
#: ndeval's columns, in its order, and ir_measures' name of each
COLUMNS = {
    **{f"ERR-IA@{k}": f"ERR_IA@{k}" for k in CUTOFFS},
    **{f"nERR-IA@{k}": f"nERR_IA@{k}" for k in CUTOFFS},
    **{f"alpha-DCG@{k}": f"alpha_DCG@{k}" for k in CUTOFFS},
    **{f"alpha-nDCG@{k}": f"alpha_nDCG@{k}" for k in CUTOFFS},
    "NRBP": "NRBP",
    "nNRBP": "nNRBP",
    "MAP-IA": "AP_IA",
    **{f"P-IA@{k}": f"P_IA@{k}" for k in CUTOFFS},
    **{f"strec@{k}": f"StRecall@{k}" for k in CUTOFFS},
}
#: ndeval's measures by its names, in its order
DIVERSITY_MEASURES = tuple(COLUMNS)
#: every spelling a diversity measure is asked by (ndeval's, ir_measures', any case) -> ndeval's
SPELLINGS = {
    spelled.lower(): column
    for column, irm in COLUMNS.items()
    for spelled in (column, irm, column.replace("-", "_"))
}
#: the measures alpha reaches (every measure of gains); beta reaches NRBP's
_ALPHA = ("ERR-IA", "nERR-IA", "alpha-DCG", "alpha-nDCG", "NRBP", "nNRBP")
_NAMED = re.compile(
    r"^\s*(?P<base>[A-Za-z_-]+)\s*(?:\((?P<params>[^()]*)\))?\s*(?P<at>@\s*[0-9]+)?\s*$"
)


@dataclass(frozen=True)
class DiversityMeasure:
    """One of ndeval's measures (its column) under an alpha and a beta (ndeval's ``-alpha``,
    ``-beta``); printed as ndeval names it, the parameters that are not 0.5 before its cutoff:
    ``alpha-nDCG(alpha=0.3)@20``."""

    column: str
    alpha: float = 0.5
    beta: float = 0.5

    def __str__(self) -> str:
        base, at, cutoff = self.column.partition("@")
        shown = ",".join(
            f"{k}={v:g}" for k, v in (("alpha", self.alpha), ("beta", self.beta)) if v != 0.5
        )
        return f"{base}({shown}){at}{cutoff}" if shown else self.column


def diversity_measure(name: str | object) -> DiversityMeasure | None:
    """The diversity measure ``name`` spells (``alpha_nDCG@20``, ``ERR-IA@10``,
    ``alpha_nDCG(alpha=0.3)@10``), else None; a MeasureError for a parameter the measure does not
    read or a value outside [0, 1]."""
    named = _NAMED.match(str(name))
    if named is None:
        return None
    at = (named["at"] or "").replace(" ", "")
    column = SPELLINGS.get(f"{named['base']}{at}".lower())
    if column is None:
        return None
    base = column.partition("@")[0]
    reads = [k for k, used in (("alpha", base in _ALPHA), ("beta", "NRBP" in base)) if used]
    params = {}
    for item in filter(str.strip, (named["params"] or "").split(",")):
        key, _, value = (part.strip() for part in item.partition("="))
        if key not in reads:
            raise MeasureError(
                f"{column}: no parameter {key!r} (it reads {', '.join(reads) or 'none'})"
            )
        number = _unit(value)
        if number is None:
            raise MeasureError(f"{column}: {key}={value} must be a number in [0, 1]")
        params[key] = number
    return DiversityMeasure(column, **params)


def diversity_name(name: str | object) -> str | None:
    """How the diversity measure ``name`` spells is printed (``alpha_nDCG@20``:
    ``alpha-nDCG@20``), else None (see :func:`diversity_measure`)."""
    measure = diversity_measure(name)
    return None if measure is None else str(measure)


def _unit(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if 0.0 <= value <= 1.0 else None


@dataclass(frozen=True, eq=False)
class DiversityJudgments:
    """Diversity qrels read for the measures: each topic's documents and the subtopics each covers
    (judged ``rel`` or more), and each (alpha, beta)'s ideal ranking, made once for every run."""

    source: str
    topics: dict[str, Topic]
    _ideals: dict = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def of(cls, qrels: SubtopicQrels, *, rel: int = 1) -> DiversityJudgments:
        return cls(qrels.source, judged_topics(qrels, rel))

    def ideal(self, alpha: float, beta: float) -> dict[str, Scores]:
        """Each topic's measures of its greedy ideal ranking."""
        if (alpha, beta) not in self._ideals:
            topics = list(self.topics.values())
            self._ideals[alpha, beta] = {
                qid: scores(topic.matrix[order], topic, alpha=alpha, beta=beta)
                for (qid, topic), order in zip(
                    self.topics.items(), ideal_orders(topics, alpha), strict=True
                )
            }
        return self._ideals[alpha, beta]

    @functools.cached_property
    def qrels(self) -> Qrels:
        """Every judged document as a qrels line whose grade is its row in its topic, plus one:
        the ranking table then says which row each retrieved document is."""
        qids = [qid for qid, topic in self.topics.items() for _ in topic.docids]
        docids = np.concatenate([t.docids for t in self.topics.values()] or [np.empty(0, object)])
        grades = np.concatenate(
            [np.arange(1, len(t.docids) + 1) for t in self.topics.values()] or [np.empty(0, int)]
        )
        encoded = encode(strings(qids), strings(docids))
        return Qrels(**encoded, source=self.source, grade=grades.astype(np.int64))


@dataclass(frozen=True, eq=False)
class DiversityValues:
    """A run's diversity measures per topic: ``topics`` in ndeval's order (by number; a topic the
    qrels do not judge scores 0), ``values`` (topics x :data:`COLUMNS`), and ``averaged``: how
    many topics the mean covers (the run's judged ones, or every judged one under ``complete``)."""

    topics: tuple[str, ...]
    values: np.ndarray
    averaged: int

    def column(self, name: str) -> dict[str, float]:
        """One of ndeval's columns, by topic."""
        at = list(COLUMNS).index(name)
        return {topic: float(v) for topic, v in zip(self.topics, self.values[:, at], strict=True)}


def diversity_values(
    judgments: DiversityJudgments,
    run: Run,
    *,
    alpha: float = 0.5,
    beta: float = 0.5,
    depth: int | None = None,
    by_rank: bool = True,
    complete: bool = False,
) -> DiversityValues:
    """Every measure of ``run`` per topic, as ndeval 4.5 computes them.

    Parameters
    ----------
    judgments
        The diversity qrels, read for the measures.
    run
        The run; a topic may carry a task prefix ending in ``-`` (``wt09-1``), as ndeval reads it.
    alpha, beta
        Redundancy intolerance and NRBP's patience (ndeval's ``-alpha``, ``-beta``).
    depth
        The first N documents of each topic count (ndeval's ``-M``).
    by_rank
        Order each topic by the run's rank column (ndeval's default; a rank given twice is an
        error), else by score and then docid descending (trec_eval's, ndeval's ``-traditional``).
    complete
        The mean covers every judged topic (ndeval's ``-c``).

    Returns
    -------
    DiversityValues
        A row per topic of the run, ndeval's 21 columns."""
    ideal = judgments.ideal(alpha, beta)
    ranked = _ranked(run, judgments, by_rank=by_rank, depth=depth)
    rows = np.zeros((len(ranked), len(COLUMNS)))
    for index, (qid, found) in enumerate(ranked.items()):
        topic = judgments.topics.get(qid)
        if topic is not None:
            covers = np.zeros((len(found), topic.matrix.shape[1]), dtype=bool)
            covers[found >= 0] = topic.matrix[found[found >= 0]]
            got = scores(covers, topic, alpha=alpha, beta=beta)
            rows[index] = _renormalised(got, ideal[qid])
    judged = sum(qid in judgments.topics for qid in ranked)
    return DiversityValues(tuple(ranked), rows, len(judgments.topics) if complete else judged)


def _renormalised(got: Scores, best: Scores) -> np.ndarray:
    """ndeval's renormalize and its columns: the n- measures where the run has gained anything by
    that rank, nNRBP always (0 / 0 where no subtopic is covered: its NaN)."""
    gained = got.dcg != 0
    ndcg = np.divide(got.dcg, best.dcg, out=np.zeros(DEPTH), where=gained)
    nerr = np.divide(got.err, best.err, out=np.zeros(DEPTH), where=gained)
    nnrbp = got.nrbp / best.nrbp if best.nrbp else (-math.nan if got.nrbp == 0 else math.inf)
    at = [k - 1 for k in CUTOFFS]
    return np.r_[
        got.err[at], nerr[at], got.dcg[at], ndcg[at], got.nrbp, nnrbp, got.map_ia,
        got.precision[at], got.strec[at],
    ]  # fmt: skip


def _ranked(
    run: Run, judgments: DiversityJudgments, *, by_rank: bool, depth: int | None
) -> dict[str, np.ndarray]:
    """Each run topic's documents in ndeval's order (after -M) as rows of its topic (-1: not
    judged), topics by number; a topic the qrels do not judge, empty."""
    numbers = [topic_number(str(q), run.source, prefixed=True) for q in run.query_ids]
    if len(set(numbers)) < len(numbers):
        raise FormatError(run.source, 0, None, "two topics of the run have one number")
    if by_rank:
        _refuse_repeated_ranks(run)
    run = replace(run, query_ids=np.asarray([str(n) for n in numbers], dtype=object))
    table = rank(run, judgments.qrels, ties="run" if by_rank else "trec_eval")
    ranked: dict[str, np.ndarray] = {}
    for index, qid in enumerate(table.qids):
        if table.in_run[index]:
            rows = slice(table.offsets[index], table.offsets[index + 1])
            found = np.where(table.judged[rows], table.grade[rows].astype(np.int64) - 1, -1)
            ranked[str(qid)] = found[:depth]
    for qid in table.ignored_qids:  # ndeval prints a topic it has no judgments for, all 0
        ranked[str(qid)] = np.empty(0, dtype=np.int64)
    return {q: ranked[q] for q in sorted(ranked, key=int)}


def _refuse_repeated_ranks(run: Run) -> None:
    """ndeval orders a run by its rank column, and stops on a rank given twice in a topic."""
    ranks = run.rank.astype(np.float64, copy=False)
    order = np.lexsort((ranks, run.qid_codes))  # stable: a repeat comes after its first
    repeated = (np.diff(run.qid_codes[order]) == 0) & (np.diff(ranks[order]) == 0)
    if repeated.any():
        row = int(order[1:][repeated].min())
        qid, value = run.query_ids[run.qid_codes[row]], ranks[row]
        raise FormatError(
            run.source,
            0,
            None,
            f"rank {value:g} is given twice for topic {qid} (ndeval orders by the rank column; "
            "-traditional orders by score)",
        )
