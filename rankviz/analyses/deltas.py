"""Per-query deltas between runs, and the rankings behind them: first relevant ranks, hits curves
(one query's two rankings side by side: :mod:`rankviz.analyses.query_view`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from rankviz.measures._segments import first_hit_rank, rows_with_grade_at_least
from rankviz.ranking.ranking_table import RankingTable


def best_per_measure(means: pd.DataFrame) -> dict[str, list[str]]:
    """The run(s) with the highest mean of each measure (all tied best runs)."""
    return {
        col: means.index[np.isclose(means[col], means[col].max(), rtol=0, atol=1e-12)].tolist()
        for col in means
    }


def deltas(matrix: pd.DataFrame, baseline: str, run: str) -> pd.DataFrame:
    """Per-query baseline value, run value and delta (run - baseline), sorted by delta
    descending."""
    frame = pd.DataFrame({"baseline": matrix[baseline], "run": matrix[run]})
    frame["delta"] = frame["run"] - frame["baseline"]
    return frame.sort_values("delta", ascending=False, kind="stable")


def wins_ties_losses(delta: pd.Series, *, tolerance: float = 1e-12) -> tuple[int, int, int]:
    """Queries where the run is better, equal (within tolerance), worse than the baseline."""
    return (
        int((delta > tolerance).sum()),
        int((delta.abs() <= tolerance).sum()),
        int((delta < -tolerance).sum()),
    )


def first_relevant_rank(table: RankingTable, rel: int) -> pd.Series:
    """1-based rank of the first relevant document per query; NaN where the run finds none."""
    ranks = first_hit_rank(table, rows_with_grade_at_least(table, rel))
    return pd.Series(
        np.where(ranks > 0, ranks, np.nan), index=pd.Index(table.qids, name="qid")
    ).sort_index()


def relevant_ranks(table: RankingTable, rel: int) -> pd.DataFrame:
    """Every retrieved relevant document: its query, rank and grade."""
    rows = rows_with_grade_at_least(table, rel)
    return pd.DataFrame(
        {
            "qid": table.qids[table.row_query[rows]],
            "rank": table.pos[rows] + 1,
            "grade": table.grade[rows],
        }
    )


def hits_curve(table: RankingTable, rel: int, depth: int) -> pd.Series:
    """Hits@K for K = 1..depth: share of queries with a relevant document in the top K."""
    first = first_relevant_rank(table, rel)
    counts = np.bincount(first.dropna().astype(int).clip(upper=depth + 1), minlength=depth + 2)[
        1 : depth + 1
    ]
    return pd.Series(np.cumsum(counts) / len(first), index=pd.RangeIndex(1, depth + 1, name="K"))


@dataclass(frozen=True, eq=False)
class RankReport:
    """Where each run puts the relevant documents (grade >= ``rel``), down to ``depth``, the deepest
    ranking: the first relevant rank per query, every relevant document's rank, and Hits@K for every
    K."""

    first: dict[str, pd.Series]  # per run: qid -> first relevant rank (NaN: none found)
    ranks: dict[str, pd.DataFrame]  # per run: qid, rank, grade of every retrieved relevant document
    # per run: K -> share of queries with a relevant document in the top K
    hits: dict[str, pd.Series]
    depth: int
    rel: int

    def to_frames(self) -> dict[str, pd.DataFrame]:
        """``first_relevant_rank`` (queries x runs), ``relevant_ranks`` (run, qid, rank, grade),
        ``hits`` (K x runs)."""
        ranks = [
            frame.assign(run=name)[["run", "qid", "rank", "grade"]]
            for name, frame in self.ranks.items()
        ]
        return {
            "first_relevant_rank": pd.DataFrame(self.first),
            "relevant_ranks": pd.concat(ranks, ignore_index=True)
            if ranks
            else pd.DataFrame(columns=["run", "qid", "rank", "grade"]),
            "hits": pd.DataFrame(self.hits),
        }


def rank_report(tables: Mapping[str, RankingTable], rel: int) -> RankReport:
    """The :class:`RankReport` of the runs' ranking tables."""
    depth = max((int(t.pos.max()) + 1 if t.n_rows else 1 for t in tables.values()), default=1)
    return RankReport(
        first={name: first_relevant_rank(t, rel) for name, t in tables.items()},
        ranks={name: relevant_ranks(t, rel) for name, t in tables.items()},
        hits={name: hits_curve(t, rel, depth) for name, t in tables.items()},
        depth=depth,
        rel=rel,
    )


def wins_ties_losses_by_group(
    delta: pd.Series, groups: pd.Series, *, tolerance: float = 1e-12
) -> pd.DataFrame:
    """Per group: number of queries, wins, ties and losses of the run against the baseline, mean
    delta."""
    rows = {
        group: dict(
            zip(("wins", "ties", "losses"), wins_ties_losses(part, tolerance=tolerance)),
            queries=len(part),
            mean_delta=part.mean(),
        )
        for group, part in delta.groupby(groups.reindex(delta.index), sort=True)
    }
    return pd.DataFrame.from_dict(rows, orient="index")[
        ["queries", "wins", "ties", "losses", "mean_delta"]
    ].rename_axis("group")


@dataclass(frozen=True, eq=False)
class PairDeltas:
    """Two runs on one measure, query by query (:func:`deltas`): the meeting's table, and the
    questions it answers about them."""

    frame: pd.DataFrame  # per query: baseline, run, delta (run - baseline), by delta descending
    baseline: str
    run: str

    def wins_ties_losses(self) -> tuple[int, int, int]:
        return wins_ties_losses(self.frame["delta"])

    def by_group(self, groups: pd.Series) -> pd.DataFrame:
        """Wins, ties and losses and the mean delta within each group."""
        return wins_ties_losses_by_group(self.frame["delta"], groups)

    def queue(
        self, overlap: pd.Series, *, per_reason: int, drawn: Sequence[str] = ()
    ) -> pd.DataFrame:
        """The queries to discuss, ``drawn`` ones first
        (:func:`rankviz.analyses.query_view.discussion_queue`)."""
        from rankviz.analyses.query_view import discussion_queue

        return discussion_queue(self.frame, overlap, per_reason=per_reason, drawn=drawn)

    def fixed_queue(self, order: Mapping[str, str], overlap: pd.Series) -> pd.DataFrame:
        """A queue fixed earlier, with today's values
        (:func:`~rankviz.analyses.query_view.queue_as_fixed`)."""
        from rankviz.analyses.query_view import queue_as_fixed

        return queue_as_fixed(order, self.frame, overlap)
