"""The interpolated precision-recall curve: each run's precision at recall 0, 0.1, ..., 1, averaged
over queries (the eleven-point curve of TREC's overviews; trec_eval's ``iprec_at_recall``)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from rankviz.measures.iprec import interpolated_precision
from rankviz.ranking.ranking_table import RankingTable

RECALL_LEVELS = tuple(i / 10 for i in range(11))


@dataclass(frozen=True)
class PrecisionRecall:
    """Each run's mean interpolated precision at each recall level.

    ``precision``: runs x levels; ``queries``: how many queries each mean covers; ``order``: the tie
    order the curves are drawn on (the policy in force when it is one order, else trec_eval's);
    ``rel``: the relevance threshold; ``filled``: the grade unjudged documents were given, if any.
    """

    precision: pd.DataFrame
    queries: int
    order: str
    rel: int
    filled: int | None = None

    @property
    def levels(self) -> tuple[float, ...]:
        return tuple(self.precision.columns)

    def to_frames(self) -> dict[str, pd.DataFrame]:
        """``curve``: one row per run and recall level (run, recall, precision)."""
        curve = self.precision.rename_axis(index="run", columns="recall").stack()
        return {"curve": curve.rename("precision").reset_index()}

    def to_dict(self) -> dict:
        return {
            "queries": self.queries,
            "order": self.order,
            "rel": self.rel,
            "filled": self.filled,
            "curve": {
                run: dict(zip(map(float, self.levels), map(float, row), strict=True))
                for run, row in self.precision.iterrows()
            },
        }

    def describe(self) -> str:
        fill = "" if self.filled is None else f", unjudged documents at grade {self.filled}"
        return (
            f"interpolated precision (the highest precision at that recall or beyond) averaged "
            f"over {self.queries} queries; relevant from grade {self.rel}{fill}; ties in "
            f"{self.order}'s order"
        )


def precision_recall(
    tables: Iterable[tuple[str, RankingTable]],
    *,
    rel: int,
    missing: str,
    order: str,
    filled: int | None = None,
    levels: tuple[float, ...] = RECALL_LEVELS,
) -> PrecisionRecall:
    """The curve of each (name, table): per query as trec_eval's ``iprec_at_recall`` (a query the
    run misses counts 0 under ``missing="zero"`` and is left out under ``"skip"``), then the mean.

    Parameters
    ----------
    tables
        (run name, ranking table) pairs, consumed one at a time.
    rel
        The relevance threshold.
    missing
        ``"zero"`` or ``"skip"``, as the evaluation's.
    order, filled
        What the curve is drawn on, for :meth:`PrecisionRecall.describe`.
    """
    rows, queries = {}, 0
    for name, table in tables:
        table = table if filled is None else table.filled(filled, None)
        grid = interpolated_precision(table, levels, rel=rel)
        kept = grid if missing == "zero" else grid[table.in_run]
        queries = len(kept)
        rows[name] = kept.mean(axis=0) if len(kept) else np.zeros(len(levels))
    frame = pd.DataFrame.from_dict(rows, orient="index", columns=list(levels))
    return PrecisionRecall(frame, queries, order, rel, filled)
