"""Rank-biased precision (RBP, RBP@K; Moffat & Zobel, TOIS 2008), and its residual."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from rankviz.measures._common import REL
from rankviz.measures._gains import GAINS, grade_gains, read_table
from rankviz.measures._groups import expected_positional_sum
from rankviz.measures._segments import per_query_sum, rows_with_grade_at_least
from rankviz.measures.spec import Family, register
from rankviz.settings.options import Option

if TYPE_CHECKING:
    from rankviz.ranking.ranking_table import RankingTable

P = Option(
    "p",
    0.8,
    "persistence: the chance a user goes on to the next document",
    kind=float,
    low=0.01,
    high=0.99,
)
GRADED = Option(
    "graded",
    False,
    "graded gains instead of binary at rel: a grade over the query's highest judged grade when "
    "that is above 1 (trec_eval rbp's default gains; negative grades gain 0)",
    kind=bool,
    choices=(False, True),
)
RESIDUAL = Option(
    "residual",
    False,
    "the residual instead of the value: what RBP could still gain were every unjudged document, "
    "and every rank past the list (or K), relevant",
    kind=bool,
    choices=(False, True),
)


def _depth(table: RankingTable, cutoff: int | None) -> np.ndarray:
    return np.diff(table.top(cutoff).offsets).astype(np.float64)


def _highest(table: RankingTable) -> np.ndarray:
    """Each query's highest judged grade (-1 for a query judged nothing)."""
    starts = table.ideal_offsets[:-1]
    has = np.diff(table.ideal_offsets) > 0
    highest = np.full(table.n_queries, -1, np.int64)
    highest[has] = table.ideal_grades[starts[has]]
    return highest


def _graded(table: RankingTable, rows: np.ndarray) -> np.ndarray:
    """Each row's gain as trec_eval's rbp scales it: its grade, over the query's highest judged
    grade when that is above 1."""
    top = _highest(table)[table.row_query[rows]].astype(np.float64)
    grade = table.grade[rows].astype(np.float64)
    return np.where(top > 1, grade / np.where(top > 1, top, 1.0), grade)


def _gained_rows(table: RankingTable, gains: str | None) -> tuple[np.ndarray, np.ndarray]:
    """The rows with a graded gain and their gains: the grade over the query's highest, or under
    a gain table, as trec_eval's rbp scales the table: where a query's gains (the table's and its
    grades' 0 .. highest) leave [0, 1], each is (gain - low) / (high - low), low and high the least
    and most of them and 0; unjudged documents gain 0."""
    if gains is None:
        rows = rows_with_grade_at_least(table, 1)
        return rows, _graded(table, rows)
    listed = read_table(gains)
    low = min(0.0, *(v for _, v in listed))
    unlisted = _highest(table)  # each query's highest grade the table does not list
    for grade, _ in reversed(listed):
        unlisted = np.where(unlisted == grade, unlisted - 1, unlisted)
    high = np.maximum(max(0.0, *(v for _, v in listed)), unlisted.astype(np.float64))
    levels = np.flatnonzero(table.judged & (table.grade >= 0))
    gain = grade_gains(table.grade[levels], None, "linear", gains)
    query_high = high[table.row_query[levels]]
    scaled = (low < 0) | (query_high > 1)
    gain = np.where(scaled, (gain - low) / np.where(scaled, query_high - low, 1.0), gain)
    keep = gain != 0
    return levels[keep], gain[keep]


def _weights(p: float, pos: np.ndarray) -> np.ndarray:
    """p^pos as trec_eval makes it: one multiplication a rank (a power would differ in its last
    bits)."""
    if len(pos) == 0:
        return np.zeros(0)
    return np.cumprod(np.r_[1.0, np.full(int(pos.max()), p)])[pos]


def rbp(
    table: RankingTable,
    cutoff: int | None,
    *,
    rel: int,
    p: float,
    residual: bool,
    graded: bool,
    gains: str | None,
) -> np.ndarray:
    """RBP@K = (1 - p) sum over ranks i <= K of r_i p^(i-1), r_i = 1 for grade >= rel (binary).

    Residual: (1 - p) sum over the unjudged documents at ranks i <= K of p^(i-1), plus p^d for the
    ranks past the d documents evaluated (d = min(K, retrieved)); the value plus its residual is the
    most RBP could be.
    """
    top = table.top(cutoff)
    if residual:
        holes = np.flatnonzero(~top.judged)
        return (1 - p) * per_query_sum(
            top, holes, p ** top.pos[holes].astype(np.float64)
        ) + p ** _depth(table, cutoff)
    if graded:
        hits, gained = _gained_rows(top, gains)
        return (1 - p) * per_query_sum(top, hits, gained * _weights(p, top.pos[hits]))
    hits = rows_with_grade_at_least(top, rel)
    return (1 - p) * per_query_sum(top, hits, p ** top.pos[hits].astype(np.float64))


def expected_rbp(
    table: RankingTable,
    cutoff: int | None,
    *,
    rel: int,
    p: float,
    residual: bool,
    graded: bool,
    gains: str | None,
) -> np.ndarray:
    """E[RBP@K] (or of its residual) over random orders inside tie groups: each position of a group
    holds the group's mean gain (or share of unjudged documents)."""
    if residual:
        rows = np.flatnonzero(~table.judged)
        gained = np.ones(len(rows))
    elif graded:
        rows, gained = _gained_rows(table, gains)
    else:
        rows = rows_with_grade_at_least(table, rel)
        gained = np.ones(len(rows))
    found = expected_positional_sum(table, cutoff, rows, gained, lambda rank: p ** (rank - 1.0))
    return (1 - p) * found + (p ** _depth(table, cutoff) if residual else 0.0)


FAMILY = register(
    Family(
        name="RBP",
        aliases=(),
        params=(REL, P, RESIDUAL, GRADED, GAINS),
        cutoff_required=False,
        kernel=rbp,
        expected=expected_rbp,
        definition="(1 - p) sum over ranks i <= K of r_i p^(i-1); graded=True: r_i a grade over "
        "the query's highest; residual=True: what unjudged and unretrieved ranks could add",
        convention="Moffat & Zobel 2008, binary at grade >= rel, always printed as RBP(rel=...): "
        "ir_measures reads a bare RBP as graded; p = 0.8; trec_eval's rbp is "
        "RBP(p=0.9,graded=True), rbp.p=0.5,2=3 is RBP(p=0.5,graded=True,gains={2:3}) (a table's "
        "gains scaled into [0, 1] as trec_eval does)",
        always_named=("rel",),
        lower_is_better_with=("residual",),
        needs=(("gains", "graded"),),
    )
)
