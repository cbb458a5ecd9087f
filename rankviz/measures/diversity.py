"""The diversity families: ndeval 4.5's measures (alpha-nDCG@K, ERR-IA@K, NRBP, MAP-IA, P-IA@K,
subtopic recall), read from diversity qrels (``topic subtopic docno judgment``) beside the grades
(:class:`Subtopics`, the qrels' ``beside["subtopics"]``), each computed on the ranking table's own
order (so every tie policy, cut and analysis reaches them), and for ``rankviz ndeval`` every column
of a run (:func:`diversity_values`).

A document's relevance is a set of subtopics; each subtopic's gain starts at 1 and is multiplied by
1 - alpha each time a document covers it. DCG and ERR are divided by an "ideal ideal" (every
subtopic covered at every rank) and their normalised forms by a greedy ideal ranking of the qrels
(:mod:`rankviz.measures._subtopics` computes them as ndeval's C source does).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np

from rankviz.errors import FormatError
from rankviz.io.encoding import encode
from rankviz.io.model import Qrels, Run
from rankviz.io.subtopics import SubtopicQrels
from rankviz.measures._common import REL
from rankviz.measures._subtopics import (
    DEPTH,
    Judged,
    Scores,
    Topic,
    ideal_orders,
    judged_topics,
    score_lists,
    topic_number,
)
from rankviz.measures.spec import Family, register
from rankviz.ranking.ordering import rank
from rankviz.settings.options import Option

if TYPE_CHECKING:
    from rankviz.ranking.ranking_table import RankingTable

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


@dataclass(frozen=True, eq=False)
class DiversityJudgments:
    """Diversity qrels read for the measures: each topic's documents and the subtopics each covers
    (judged ``rel`` or more), and each (alpha, beta)'s ideal ranking, made once for every run."""

    source: str
    judged: Judged
    _ideals: dict = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def of(cls, qrels: SubtopicQrels, *, rel: int = 1) -> DiversityJudgments:
        return cls(qrels.source, judged_topics(qrels, rel))

    @property
    def topics(self) -> dict[str, Topic]:
        """Each topic's judged documents and the subtopics each covers."""
        return self.judged.topics

    def ideal(self, alpha: float, beta: float) -> Scores:
        """Each topic's measures of its greedy ideal ranking, a row per topic (:attr:`place`)."""
        if (alpha, beta) not in self._ideals:
            topics = list(self.topics.values())
            orders = ideal_orders(topics, alpha)
            self._ideals[alpha, beta] = score_lists(topics, orders, alpha=alpha, beta=beta)
        return self._ideals[alpha, beta]

    @functools.cached_property
    def place(self) -> dict[str, int]:
        """Each topic's row in :meth:`ideal`."""
        return {qid: at for at, qid in enumerate(self.topics)}

    @functools.cached_property
    def qrels(self) -> Qrels:
        """Every judged document as a qrels line whose grade is its row in its topic, plus one:
        the ranking table then says which row each retrieved document is."""
        encoded = encode(self.judged.qids, self.judged.docids)
        return Qrels(**encoded, source=self.source, grade=self.judged.rows + 1)


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
    table = _ranked(run, judgments, by_rank=by_rank).top(depth)
    # ranked against the diversity qrels, whose grade is each document's row in its topic, plus 1
    judged_rows = np.where(table.judged, table.grade.astype(np.int64) - 1, -1)
    found = _values_of(table, judgments, alpha, beta, judged_rows)
    columns = np.zeros((table.n_queries, len(COLUMNS)))
    for at, (base, _, k) in enumerate(column.partition("@") for column in COLUMNS):
        if base in found:
            columns[:, at] = found[base][:, int(k) - 1] if k else found[base]
    by_topic = {str(qid): columns[i] for i, qid in enumerate(table.qids) if table.in_run[i]}
    for qid in table.ignored_qids:  # ndeval prints a topic it has no judgments for, all 0
        by_topic[str(qid)] = np.zeros(len(COLUMNS))
    topics = sorted(by_topic, key=int)
    rows = np.array([by_topic[t] for t in topics]).reshape(len(topics), len(COLUMNS))
    judged = sum(qid in judgments.topics for qid in topics)
    return DiversityValues(tuple(topics), rows, len(judgments.topics) if complete else judged)


def _by_base(got: Scores, best: Scores) -> dict[str, np.ndarray]:
    """ndeval's renormalize: each measure of each list (those at a cutoff at ranks 1 to 20), the
    n- measures where the run has gained anything by that rank, nNRBP always (0 / 0 where no
    subtopic is covered: its NaN)."""
    gained = got.dcg != 0
    with np.errstate(divide="ignore", invalid="ignore"):
        nnrbp = np.where(
            best.nrbp != 0,
            got.nrbp / np.where(best.nrbp != 0, best.nrbp, 1.0),
            np.where(got.nrbp == 0, -math.nan, math.inf),
        )
    return {
        "ERR-IA": got.err,
        "nERR-IA": np.divide(got.err, best.err, out=np.zeros(got.err.shape), where=gained),
        "alpha-DCG": got.dcg,
        "alpha-nDCG": np.divide(got.dcg, best.dcg, out=np.zeros(got.dcg.shape), where=gained),
        "NRBP": got.nrbp,
        "nNRBP": nnrbp,
        "MAP-IA": got.map_ia,
        "P-IA": got.precision,
        "strec": got.strec,
    }


def _ranked(run: Run, judgments: DiversityJudgments, *, by_rank: bool) -> RankingTable:
    """The run's table against the diversity qrels in ndeval's order: by the rank column, else by
    score and docid descending (``-traditional``), its topics by number (a task prefix ending in
    ``-`` dropped, as ndeval reads them)."""
    numbers = [topic_number(str(q), run.source, prefixed=True) for q in run.query_ids]
    if len(set(numbers)) < len(numbers):
        raise FormatError(run.source, 0, None, "two topics of the run have one number")
    if by_rank:
        _refuse_repeated_ranks(run)
    # the ids renamed: the reader's strings and index of the old ones go
    numbered = np.asarray([str(n) for n in numbers], dtype=object)
    run = replace(run, query_ids=numbered, query_id_strings=None, query_id_index=None)
    return rank(run, judgments.qrels, ties="run" if by_rank else "trec_eval")


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


@dataclass(frozen=True, eq=False)
class Subtopics:
    """Diversity qrels beside the grades (a qrels' ``beside["subtopics"]``), read for the
    measures once at each relevance threshold asked (their ideal rankings with them)."""

    qrels: SubtopicQrels
    _read: dict = field(default_factory=dict, repr=False, compare=False)

    def at(self, rel: int) -> DiversityJudgments:
        if rel not in self._read:
            self._read[rel] = DiversityJudgments.of(self.qrels, rel=rel)
        return self._read[rel]


NEEDS = (
    "subtopics",
    "diversity qrels (topic subtopic docno judgment, as ndeval reads them): --diversity FILE, or "
    "a collection folder's subtopics.txt",
)
ALPHA = Option(
    "alpha", 0.5, "redundancy: a subtopic's gain shrinks by 1 - alpha each time it is covered "
    "again (ndeval -alpha)", kind=float, low=0.0, high=1.0,
)  # fmt: skip
BETA = Option("beta", 0.5, "NRBP's patience (ndeval -beta)", kind=float, low=0.0, high=1.0)


def _topic_of(qid: str, judgments: DiversityJudgments) -> str | None:
    """The diversity qrels' topic of a query: itself, or its number after a task prefix ending in
    ``-`` (``wt09-1``), as ndeval reads a run's topics; None where they judge no such topic."""
    if qid in judgments.topics:
        return qid
    number = qid.partition("-")[2] if not qid[:1].isdigit() else qid
    return str(int(number)) if number.isdigit() and str(int(number)) in judgments.topics else None


def _table_values(table: RankingTable, rel: int, alpha: float, beta: float) -> dict:
    """Every diversity measure of each query of the table (:func:`_values_of`), made once per
    table, relevance threshold, alpha and beta."""
    key = ("diversity", rel, alpha, beta)
    if key not in table._cache:
        table._cache[key] = _values_of(table, table.beside["subtopics"].at(rel), alpha, beta)
    return table._cache[key]


def _values_of(
    table: RankingTable,
    judgments: DiversityJudgments,
    alpha: float,
    beta: float,
    judged_rows: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """Every diversity measure of each query of the table, on its order, by ndeval's column base
    (queries x ranks 1 to 20 where it has a cutoff); a query the diversity qrels do not judge, or
    that retrieves nothing, scores 0; nNRBP's 0 / 0 is NaN. ``judged_rows``: each table row's
    document as a row of its topic (-1: not judged), where the table was ranked against the
    diversity qrels themselves; else looked up by docid."""
    n = table.n_queries
    looked_up = judged_rows is None and table.n_rows
    docids = table.docids() if looked_up else np.empty(0, dtype=object)
    queries, topics, places, lists = [], [], [], []
    for index, qid in enumerate(table.qids):
        topic_key = _topic_of(str(qid), judgments)
        span = slice(table.offsets[index], table.offsets[index + 1])
        if topic_key is None or span.stop == span.start:
            continue
        topic = judgments.topics[topic_key]
        if judged_rows is not None:
            rows = judged_rows[span]
        else:
            ranked = docids[span]
            rows = np.fromiter((topic.row_of.get(d, -1) for d in ranked), np.int64, len(ranked))
        queries.append(index)
        topics.append(topic)
        places.append(judgments.place[topic_key])
        lists.append(rows)
    if not queries:
        return {}
    got = score_lists(topics, lists, alpha=alpha, beta=beta)
    best = judgments.ideal(alpha, beta).take(np.asarray(places))
    found: dict[str, np.ndarray] = {}
    for base, value in _by_base(got, best).items():
        found[base] = np.zeros((n, *value.shape[1:]))
        found[base][queries] = value
    return found


def _kernel(base: str):
    def kernel(table, cutoff, *, rel: int, alpha: float = 0.5, beta: float = 0.5) -> np.ndarray:
        values = _table_values(table, rel, alpha, beta).get(base)
        if values is None:  # no query of the table is judged
            return np.zeros(table.n_queries)
        values = values[:, cutoff - 1] if cutoff is not None else values
        return np.where(np.isnan(values), 0.0, values)  # nNRBP's 0 / 0: nothing to find

    return kernel


def _undefined(table, cutoff, *, rel: int, alpha: float = 0.5, beta: float = 0.5) -> np.ndarray:
    values = _table_values(table, rel, alpha, beta).get("nNRBP")
    return np.zeros(table.n_queries, bool) if values is None else np.isnan(values)


#: ndeval's column bases: ir_measures' name, what it is, whether it takes a cutoff
BASES = {
    "ERR-IA": ("ERR_IA", "intent-aware ERR: ERR of the alpha-worn gains, over the ideal's", True),
    "nERR-IA": ("nERR_IA", "ERR-IA over the greedy ideal ranking's ERR-IA", True),
    "alpha-DCG": ("alpha_DCG", "DCG of the alpha-worn gains, over the ideal ideal's", True),
    "alpha-nDCG": ("alpha_nDCG", "alpha-DCG over the greedy ideal ranking's alpha-DCG", True),
    "NRBP": ("NRBP", "novelty- and rank-biased precision: RBP of the alpha-worn gains", False),
    "nNRBP": ("nNRBP", "NRBP over the greedy ideal ranking's NRBP", False),
    "MAP-IA": ("AP_IA", "intent-aware AP: AP of each subtopic, averaged over the subtopics", False),
    "P-IA": ("P_IA", "intent-aware precision: P@K of each subtopic, averaged", True),
    "strec": ("StRecall", "subtopic recall: the subtopics covered in the top K, over all", True),
}  # fmt: skip
for _base, (_irm, _definition, _at) in BASES.items():
    register(
        Family(
            name=_base,
            aliases=(_irm, _base.replace("-", "_")),
            params=(
                REL,
                *((ALPHA,) if _base not in ("MAP-IA", "P-IA", "strec") else ()),
                *((BETA,) if "NRBP" in _base else ()),
            ),
            cutoff_required=_at,
            cutoff_allowed=_at,
            kernel=_kernel(_base),
            expected=None,  # a greedy ideal and worn gains: no closed form over tied orders
            definition=_definition,
            convention="ndeval 4.5 (alpha = beta = 0.5); relevant: a subtopic judged >= rel; "
            "K up to 20",
            condensable=False,
            max_cutoff=DEPTH,
            reads=NEEDS,
            undefined=_undefined if _base == "nNRBP" else None,
        )
    )
