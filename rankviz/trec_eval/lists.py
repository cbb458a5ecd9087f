"""Each query as trec_eval 10's measures see it (its ``te_form_res_rels``), and C's arithmetic
where Python's differs (``atof``, a division by zero, ``log2`` of 0), so that the measures of
:mod:`rankviz.trec_eval.measures` and :mod:`rankviz.trec_eval.gains` compute trec_eval's doubles."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rankviz.io.model import Qrels

NONPOOL, UNJUDGED = -1, -2  # trec_eval: not in the qrels; listed below 0 (in the pool, unjudged)


@dataclass(frozen=True)
class QueryList:
    """One query as trec_eval's measures see it: the relevance value of each document retrieved,
    in its order (a grade, :data:`UNJUDGED` or :data:`NONPOOL`; an array, or a list), how many
    judgments the qrels hold at each grade from 0 up, how many are relevant, and how many of those
    are retrieved.

    A judged query the run misses (``missed``, under -c) is, as trec_eval 10 evaluates it, a
    ranking of one document out of the pool (none under -J)."""

    rels: Sequence[int] | np.ndarray
    levels: list[int]
    num_rel: int
    num_rel_ret: int
    missed: bool = False


def query_lists(table, qrels: Qrels, rel: int, *, judged_only: bool) -> dict[str, QueryList]:
    """Each query of ``table`` (ordered and cut as trec_eval orders and cuts, condensed under
    ``judged_only``) as trec_eval's ``te_form_res_rels`` forms it: a document the qrels list below
    0 is in the pool, unjudged; one they do not list is out of it.

    A query judged only below 0 has no grades here; trec_eval 10 keeps the previous query's counts
    of each grade for it (its ``rel_levels`` is not cleared), which only a gain table that gives
    grade 0 a gain can show."""
    rels = np.where(table.judged, table.grade, NONPOOL).astype(np.int64)
    if np.any(qrels.grade < 0):
        holes = np.flatnonzero(~table.judged)
        below = qrels.to_frame().query("rel < 0")
        pooled = set(zip(below.qid, below.docid, strict=True))
        queries = table.qids[table.row_query[holes]]
        listed = [pair in pooled for pair in zip(queries, table.docids(holes), strict=True)]
        rels[holes[np.asarray(listed, dtype=bool)]] = UNJUDGED
    lists = {}
    for index, qid in enumerate(table.qids):
        grades = table.ideal_grades[table.ideal_offsets[index] : table.ideal_offsets[index + 1]]
        ranked = rels[table.offsets[index] : table.offsets[index + 1]]
        missed = not table.in_run[index]
        if missed:
            ranked = np.array([] if judged_only else [NONPOOL], dtype=np.int64)
        lists[str(qid)] = QueryList(
            ranked,
            np.bincount(grades[grades >= 0]).tolist(),
            int(np.count_nonzero(grades >= rel)),
            int(np.count_nonzero(ranked >= rel)),
            missed,
        )
    return lists


#: The NaN an x86-64 CPU makes of an invalid operation (0 / 0, the log of a negative number): its
#: sign bit set, so C's printf, and trec_eval 10 built there, prints it ``-nan``.
C_NAN = -math.nan


def cdiv(a: float, b: float) -> float:
    """a / b as C divides doubles: inf or nan where b is 0."""
    if b:
        return a / b
    if math.isnan(a):
        return a
    return C_NAN if a == 0 else math.copysign(math.inf, a)


def log2(x: float) -> float:
    """C's log2, -inf at 0 and nan below."""
    return math.log2(x) if x > 0 else -math.inf if x == 0 else C_NAN


_FLOAT = re.compile(r"\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
_INT = re.compile(r"\s*[+-]?\d+")


def atof(text: str) -> float:
    """C's atof: the longest number the text starts with, 0 without one."""
    found = _FLOAT.match(text)
    return float(found.group(0)) if found else 0.0


def atol(text: str) -> int:
    found = _INT.match(text)
    return int(found.group(0)) if found else 0


def valid_int(text: str) -> bool:
    return re.fullmatch(r"[+-]?\d+", text) is not None
