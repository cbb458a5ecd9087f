"""The running sums trec_eval's gain measures (``G``, ``ndcg_rel``, ``Rndcg``) walk down a run and
its ideal ranking side by side, as arrays: each gained row's DCG so far, the ideal DCG or gain up to
a position. Sums run in rank order within each query, as trec_eval adds them, so the values are its
own to the last digit. A grade is its gain (trec_eval's default gain table) unless a gain table
says otherwise; negative grades and unjudged documents gain 0."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from rankviz.measures._gains import ideal_gains, row_gains
from rankviz.measures._segments import segment_prefix_sum

if TYPE_CHECKING:
    from rankviz.ranking.ranking_table import RankingTable


@dataclass(frozen=True)
class GainWalk:
    """A run's gained rows and its ideal ranking's positive gains, with their running sums."""

    rows: np.ndarray  # the run's rows with a gain (a cost: below 0), in table order
    query: np.ndarray  # each gained row's query
    gain: np.ndarray  # each gained row's gain
    dcg: np.ndarray  # the run's DCG up to and with each gained row
    ideal_start: np.ndarray  # per query: its first ideal row
    ideal_count: np.ndarray  # per query: its positive ideal gains (R_g)
    ideal_gain: np.ndarray  # per ideal row: its gain, highest first (0 past the positive ones)
    ideal_dcg: np.ndarray  # per ideal row: the ideal DCG up to and with it

    @classmethod
    def of(cls, table: RankingTable, gains: str | None = None, ideal: str = "gain") -> GainWalk:
        """The walk under trec_eval's gains: a grade's own value, or the gain table's; the ideal
        ranking in ``ideal``'s order (:data:`rankviz.measures._gains.IDEAL`). Walked once per
        table: ``G``, ``ndcg_rel`` and ``Rndcg`` read the same walk."""
        return table.derived(("gain walk", gains, ideal), lambda t: cls._walked(t, gains, ideal))

    @classmethod
    def _walked(cls, table: RankingTable, gains: str | None, ideal: str) -> GainWalk:
        rows, gain = row_gains(table, "linear", gains)
        query = table.row_query[rows]
        discounted = gain / np.log2(table.pos[rows] + 2.0)
        dcg = segment_prefix_sum(query, discounted) + discounted
        ideal_gain = ideal_gains(table, "linear", gains, ideal)
        ideal_discounted = ideal_gain / np.log2(table.ideal_pos + 2.0)
        ideal_dcg = segment_prefix_sum(table.ideal_query, ideal_discounted) + ideal_discounted
        count = np.bincount(
            table.ideal_query, weights=ideal_gain > 0, minlength=table.n_queries
        ).astype(np.int64)
        return cls(
            rows,
            query,
            gain,
            dcg,
            table.ideal_offsets[:-1].astype(np.int64),
            count,
            ideal_gain,
            ideal_dcg,
        )

    def ideal_dcg_at(self, query: np.ndarray, position: np.ndarray) -> np.ndarray:
        """The ideal DCG of ``query`` through 0-based ``position`` (its whole DCG past its last
        positive gain); 0 where the query has none."""
        last = np.minimum(position, self.ideal_count[query] - 1)
        out = np.zeros(len(query))
        held = last >= 0
        out[held] = self.ideal_dcg[self.ideal_start[query[held]] + last[held]]
        return out

    def whole_ideal_dcg(self, query: np.ndarray) -> np.ndarray:
        """The ideal DCG of ``query`` over all its positive gains (R_g of them, however few the
        run retrieves); 0 where the query has none."""
        return self.ideal_dcg_at(query, self.ideal_count[query] - 1)

    def run_dcg_before(
        self, table: RankingTable, query: np.ndarray, rank: np.ndarray
    ) -> np.ndarray:
        """The run's DCG of ``query`` over its first ``rank`` documents (a rank past the run's
        end, as an ideal ranking longer than a cut run asks: its whole DCG)."""
        # one query's keys apart from the next's by more than any rank asked or held
        span = max(table.n_rows, int(np.max(rank, initial=0))) + 1
        keys = self.query.astype(np.int64) * span + table.pos[self.rows]
        wanted = query.astype(np.int64) * span + rank
        last = np.searchsorted(keys, wanted, side="left") - 1
        out = np.zeros(len(query))
        held = last >= 0
        held[held] = self.query[last[held]] == query[held]
        out[held] = self.dcg[last[held]]
        return out
