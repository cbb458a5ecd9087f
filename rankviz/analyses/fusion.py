"""Fused runs: several runs' rankings of each query combined into one (ranx's methods, whose numbers
these equal): reciprocal rank fusion, CombSUM and CombMNZ of normalised scores, BordaFuse.

Each run's ranking of a query is trec_eval's order (score descending, then docid descending).
A document a run does not retrieve adds nothing to CombSUM and CombMNZ, its share of the unranked
points to BordaFuse (ranx's rule); a run without the query ranks none of its documents.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from rankviz.errors import OptionError

if TYPE_CHECKING:
    import pandas as pd

    from rankviz.io.model import Run

METHODS = ("rrf", "combsum", "combmnz", "borda")
NORMS = ("minmax", "zscore", "none")
#: ranx's floor of a normaliser (a query whose scores are all equal)
FLOOR = 1e-9


@dataclass(frozen=True)
class Recipe:
    """How runs are fused: the method, RRF's k, the score normalisation of CombSUM and CombMNZ."""

    method: str = "rrf"
    k: int = 60
    norm: str = "minmax"

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise OptionError(f"fusion method {self.method!r}: one of {', '.join(METHODS)}")
        if self.norm not in NORMS:
            raise OptionError(f"normalisation {self.norm!r}: one of {', '.join(NORMS)}")
        if self.k < 0:
            raise OptionError(f"RRF's k must be 0 or more, not {self.k}")

    def name(self, runs: Sequence[str]) -> str:
        """The fused run's name: its recipe and its runs (``rrf60(bm25+dense)``)."""
        how = {
            "rrf": f"rrf{self.k}",
            "borda": "borda",
        }.get(self.method, f"{self.method}-{self.norm}")
        return f"{how}({'+'.join(runs)})"


def ranked(run: Run) -> pd.DataFrame:
    """The run as qid, docid, score, rank (1-based, trec_eval's order within each query)."""
    import pandas as pd

    frame = pd.DataFrame(
        {
            "qid": run.query_ids[run.qid_codes],
            "docid": np.asarray(run.docids.to_pylist(), dtype=object),
            "score": run.score,
        }
    )
    frame = frame.sort_values(["qid", "score", "docid"], ascending=[True, False, False])
    frame["rank"] = frame.groupby("qid", sort=False).cumcount() + 1
    return frame.reset_index(drop=True)


def fuse(runs: Sequence[Run], recipe: Recipe) -> pd.DataFrame:
    """qid, docid, score of the fused run, each query's documents in its order (score, then docid
    descending), ranks 1.. in ``rank``."""
    import pandas as pd

    if len(runs) < 2:
        raise OptionError("fusion takes two or more runs")
    frames = [ranked(run).assign(source=i) for i, run in enumerate(runs)]
    every = pd.concat(frames, ignore_index=True)
    if recipe.method == "rrf":
        every["part"] = 1.0 / (recipe.k + every["rank"])
        fused = every.groupby(["qid", "docid"], sort=False)["part"].sum()
    elif recipe.method == "borda":
        fused = _borda(every, len(runs))
    else:
        every["part"] = _normalised(every, recipe.norm)
        grouped = every.groupby(["qid", "docid"], sort=False)["part"]
        fused = grouped.sum()
        if recipe.method == "combmnz":
            fused = fused * grouped.size()
    out = fused.rename("score").reset_index()
    out = out.sort_values(["qid", "score", "docid"], ascending=[True, False, False])
    out["rank"] = out.groupby("qid", sort=False).cumcount() + 1
    return out.reset_index(drop=True)[["qid", "docid", "score", "rank"]]


def _normalised(every: pd.DataFrame, norm: str) -> pd.Series:
    """Each run's scores of each query normalised (ranx's min-max and zmuv)."""
    if norm == "none":
        return every["score"]
    by = every.groupby(["source", "qid"], sort=False)["score"]
    if norm == "minmax":
        low = by.transform("min")
        return (every["score"] - low) / np.maximum(by.transform("max") - low, FLOOR)
    mean = by.transform("mean")
    spread = by.transform(lambda s: float(np.std(s.to_numpy())))
    return (every["score"] - mean) / np.maximum(spread, FLOOR)


def _borda(every: pd.DataFrame, runs: int) -> pd.Series:
    """BordaFuse: the query's candidates are every run's documents of it (C of them); a run gives
    its document at rank r C - r + 1 points, each candidate it does not rank (C - its length + 1)
    / 2."""
    import pandas as pd

    candidates = every.groupby("qid")["docid"].nunique()
    ranked_by = every.groupby(["source", "qid"]).size()
    points = candidates.reindex(every["qid"]).to_numpy() - every["rank"].to_numpy() + 1
    given = pd.Series(points, index=pd.MultiIndex.from_frame(every[["qid", "docid"]]))
    total = given.groupby(level=[0, 1], sort=False).sum()
    qids = total.index.get_level_values(0)
    docs = total.index.get_level_values(1)
    held = set(zip(every["source"], every["qid"], every["docid"], strict=True))
    unranked = []
    for qid, docid in zip(qids, docs, strict=True):
        c = candidates[qid]
        unranked.append(
            sum(
                (c - ranked_by.get((s, qid), 0) + 1) / 2
                for s in range(runs)
                if (s, qid, docid) not in held
            )
        )
    return total + np.asarray(unranked)
