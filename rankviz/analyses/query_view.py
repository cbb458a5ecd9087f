"""What an error-analysis meeting looks at: which queries to discuss, and one query's two rankings.

- :func:`rank_biased_overlap`: how much two runs' rankings of each query agree, top-weighted
  (RBO_EXT, Webber, Moffat & Zobel, TOIS 2010, eq. 32), whatever the measure says;
- :func:`discussion_queue`: the queries worth a meeting's time (largest losses, largest gains, the
  rankings that disagree most);
- :func:`aligned`: both rankings of one query, one row per document, with its rank in each, how
  it moved, its tie group and its grade;
- :func:`highlighted`: a document's text cut into the parts that match a query term and the rest.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import pyarrow as pa

from rankviz.ranking.ranking_table import RankingTable

RBO_P = 0.9  # the persistence of RBO: the top 10 carry 86% of the weight (Webber et al.)
RBO_DEPTH = 100  # ranks compared; past them p^100 < 3e-5 of the weight is left


def _top(table: RankingTable, depth: int) -> pa.Table:
    """(qid, docid, rank) of each query's top ``depth`` documents."""
    rows = np.flatnonzero(table.pos < depth)
    return pa.table(
        {
            "qid": pa.array(table.qids[table.row_query[rows]].tolist(), pa.string()),
            "docid": pa.array(table.docids(rows).tolist(), pa.string()),
            "rank": pa.array(table.pos[rows].astype(np.int64) + 1),
        }
    )


def rank_biased_overlap(
    a: RankingTable, b: RankingTable, *, p: float = RBO_P, depth: int = RBO_DEPTH
) -> pd.Series:
    """RBO_EXT of each query's two rankings (top ``depth`` of each), per judged query: 1 for the
    same ranking, 0 for no document in common; 1 where neither run ranks anything, 0 where one
    does not.

    With s and l the lengths of the shorter and longer list and X_d the documents both lists hold
    in their top d (the shorter one whole past s), RBO_EXT = (1-p)/p [sum_{d<=l} X_d/d p^d +
    sum_{s<d<=l} X_s (d-s)/(s d) p^d] + [(X_l - X_s)/l + X_s/s] p^l.
    """
    qids = sorted(set(a.qids) | set(b.qids))
    index = {q: i for i, q in enumerate(qids)}
    top_a, top_b = _top(a, depth), _top(b, depth)
    length_a, length_b = (_lengths(t, index) for t in (top_a, top_b))
    both = top_a.join(
        top_b, ["qid", "docid"], join_type="inner", left_suffix="_a", right_suffix="_b"
    )
    query = np.array([index[q] for q in both.column("qid").to_pylist()], dtype=np.int64)
    joint = np.maximum(both.column("rank_a").to_numpy(), both.column("rank_b").to_numpy())
    width = int(max(length_a.max(initial=0), length_b.max(initial=0), 1))
    counts = np.zeros((len(qids), width + 1))
    np.add.at(counts, (query, joint), 1)
    overlap = np.cumsum(counts, axis=1)  # X_d, column d (column 0: nothing)
    short, long_ = np.minimum(length_a, length_b), np.maximum(length_a, length_b)
    d = np.arange(width + 1, dtype=np.float64)
    weight = p**d
    inside = d[None, :] <= long_[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        first = np.where(inside & (d > 0), overlap / np.maximum(d, 1) * weight, 0.0).sum(axis=1)
        x_s = overlap[np.arange(len(qids)), short]
        x_l = overlap[np.arange(len(qids)), long_]
        past = inside & (d[None, :] > short[:, None])
        spread = x_s[:, None] * (d - short[:, None]) / (np.maximum(short, 1)[:, None] * d) * weight
        second = np.where(past, spread, 0.0).sum(axis=1)
        tail = (
            (x_l - x_s) / np.maximum(long_, 1) + x_s / np.maximum(short, 1)
        ) * p ** long_.astype(np.float64)
    value = (1 - p) / p * (first + second) + tail
    value = np.where(
        (short == 0) & (long_ == 0), 1.0, np.where(short == 0, 0.0, np.clip(value, 0.0, 1.0))
    )
    return pd.Series(value, index=pd.Index(qids, name="qid"), name="rbo")


def _lengths(top: pa.Table, index: dict[str, int]) -> np.ndarray:
    lengths = np.zeros(len(index), dtype=np.int64)
    queries, counts = np.unique(
        np.asarray(top.column("qid").to_pylist(), dtype=object), return_counts=True
    )
    lengths[[index[q] for q in queries]] = counts
    return lengths


def discussion_queue(
    deltas: pd.DataFrame,
    overlap: pd.Series,
    *,
    per_reason: int = 5,
    tolerance: float = 1e-12,
    drawn: Sequence[str] = (),
) -> pd.DataFrame:
    """The queries to discuss, in order: the ``drawn`` ones first (drawn at random for people to
    judge and not judged yet: a correction's interval holds when they all are), then the
    ``per_reason`` largest losses, the largest gains, then the queries whose rankings disagree
    most (lowest RBO), whether or not the measure moved.

    ``deltas`` is :func:`rankviz.analyses.deltas.deltas` (baseline, run, delta per query). Each
    query appears once, with every reason it was picked for.
    """
    frame = deltas.join(overlap.rename("rbo"), how="left")
    losses = frame[frame["delta"] < -tolerance].sort_values("delta", kind="stable").head(per_reason)
    gains = (
        frame[frame["delta"] > tolerance]
        .sort_values("delta", ascending=False, kind="stable")
        .head(per_reason)
    )
    different = frame[frame["rbo"] < 1 - 1e-9].sort_values("rbo", kind="stable").head(per_reason)
    reasons: dict[str, list[str]] = {q: ["drawn to judge"] for q in drawn if q in frame.index}
    for why, part in (("loss", losses), ("gain", gains), ("rankings differ", different)):
        for qid in part.index:
            reasons.setdefault(qid, []).append(why)
    queue = frame.loc[list(reasons)].copy()
    queue.insert(0, "why", [", ".join(reasons[q]) for q in queue.index])
    return queue


def queue_as_fixed(
    order: Mapping[str, str], deltas: pd.DataFrame, overlap: pd.Series
) -> pd.DataFrame:
    """A queue fixed earlier (qid -> why, in order) with today's values: the meeting's position in
    it does not move when a judgment changes the deltas; queries no longer evaluated are dropped."""
    frame = deltas.join(overlap.rename("rbo"), how="left")
    kept = [q for q in order if q in frame.index]
    queue = frame.loc[kept].copy()
    queue.insert(0, "why", [order[q] for q in kept])
    return queue


def aligned(baseline: RankingTable, run: RankingTable, qid: str, depth: int) -> pd.DataFrame:
    """One row per document of either top ``depth``, in the order a reader follows (by the better of
    its two ranks): its rank in each ranking (also past the depth; NaN where it is not ranked), how
    it moved from the baseline to the run, the tie group it is in in each (``"3-5"``: ranks 3 to 5
    share its score), and its grade (NaN: unjudged)."""
    sides = {"baseline": _Ranking.of(baseline, qid), "run": _Ranking.of(run, qid)}
    shown = {d for side in sides.values() for d in side.top(depth)}
    ranks = {name: {d: side.rank_of(d) for d in shown} for name, side in sides.items()}
    docids = sorted(
        shown,
        key=lambda d: (min(ranks["baseline"][d], ranks["run"][d]), ranks["baseline"][d]),
    )
    out: dict[str, object] = {"docid": docids}
    for name, side in sides.items():
        found = np.array([ranks[name][d] for d in docids], dtype=float)
        missing = np.isinf(found)
        # whole ranks, or NaN where a document is not in the ranking (floats then)
        out[f"{name} rank"] = (
            np.where(missing, np.nan, found) if missing.any() else found.astype(np.int32)
        )
        out[f"{name} tie"] = [side.tie_of(d) for d in docids]
    out["move"] = [_move(_nan(ranks["baseline"][d]), _nan(ranks["run"][d]), depth) for d in docids]
    out["grade"] = np.array([_grade(sides, d) for d in docids], dtype=float)
    columns = ["docid", "baseline rank", "baseline tie", "move", "run rank", "run tie", "grade"]
    return pd.DataFrame({c: out[c] for c in columns})


def _nan(rank: float) -> float:
    return np.nan if np.isinf(rank) else rank


def _grade(sides: dict[str, _Ranking], docid: str) -> float:
    """The document's grade as the baseline's table holds it, else the run's (NaN: unjudged)."""
    for side in sides.values():
        if docid in side.row:
            return side.grade[side.row[docid]]
    return np.nan


class _Ranking:
    """One query's whole ranking in a table: each document's row, rank, tie group and grade."""

    def __init__(self, docids, rank, group, grade) -> None:
        self.row = {d: i for i, d in enumerate(docids)}
        self.docids, self.rank, self.group, self.grade = docids, rank, group, grade
        # each tie group's first and last rank
        if len(group):
            groups, member = np.unique(group, return_inverse=True)
            self.first = np.full(len(groups), np.iinfo(np.int64).max)
            self.last = np.zeros(len(groups), dtype=np.int64)
            np.minimum.at(self.first, member, rank)
            np.maximum.at(self.last, member, rank)
            self.member = member

    @classmethod
    def of(cls, table: RankingTable, qid: str) -> _Ranking:
        if qid not in table.qids:
            empty = np.array([], dtype=np.int64)
            return cls(np.array([], dtype=object), empty, empty, np.array([], dtype=float))
        rows = table.query_rows(qid)
        picked = np.arange(rows.start, rows.stop)
        grade = np.where(table.judged[picked], table.grade[picked], np.nan)
        rank = table.pos[picked].astype(np.int64) + 1
        return cls(table.docids(picked), rank, table.tie_group[picked], grade)

    def top(self, depth: int) -> np.ndarray:
        return self.docids[self.rank <= depth]

    def rank_of(self, docid: str) -> float:
        row = self.row.get(docid)
        return np.inf if row is None else float(self.rank[row])

    def tie_of(self, docid: str) -> str:
        row = self.row.get(docid)
        if row is None:
            return ""
        first, last = self.first[self.member[row]], self.last[self.member[row]]
        return f"{first}-{last}" if last > first else ""


def _move(baseline_rank: float, run_rank: float, depth: int) -> str:
    if np.isnan(run_rank) or run_rank > depth:
        return "dropped"
    if np.isnan(baseline_rank) or baseline_rank > depth:
        return "new"
    change = int(baseline_rank - run_rank)
    return "=" if change == 0 else (f"up {change}" if change > 0 else f"down {-change}")
