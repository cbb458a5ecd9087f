"""Two judges' grades side by side: Cohen's kappa, its words, the pairs both judge."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

    from rankviz.io.model import Qrels


#: Landis & Koch's (1977) words for a kappa, from its lower bound up.
KAPPA_WORDS = (
    (0.8, "almost perfect"),
    (0.6, "substantial"),
    (0.4, "moderate"),
    (0.2, "fair"),
    (0.0, "slight"),
)


def kappa(a, b, *, labels: Sequence[int], weights: str | None = None) -> float:
    """Cohen's kappa of two raters' labels ``a`` and ``b`` over ``labels`` (in order; ``weights``
    ``None`` or ``"linear"``: disagreement |i - j| between the i-th and j-th label). NaN when chance
    agreement is already perfect (one label only)."""
    index = {label: i for i, label in enumerate(labels)}
    size = len(labels)
    observed = np.zeros((size, size))
    np.add.at(
        observed,
        (np.array([index[x] for x in a], dtype=int), np.array([index[y] for y in b], dtype=int)),
        1,
    )
    n = observed.sum()
    if n == 0:
        return float("nan")
    expected = np.outer(observed.sum(1), observed.sum(0)) / n
    distance = np.abs(np.subtract.outer(np.arange(size), np.arange(size)))
    cost = distance.astype(float) if weights == "linear" else (distance > 0).astype(float)
    chance = float((cost * expected).sum())
    return float("nan") if chance == 0 else 1 - float((cost * observed).sum()) / chance


def kappa_words(value: float) -> str:
    if not np.isfinite(value):
        return "undefined"
    return next((word for low, word in KAPPA_WORDS if value >= low), "poor")


def judged_pairs(a: Qrels, b: Qrels) -> pd.DataFrame:
    """Every pair either judges: qid, docid, grade_a, grade_b (missing where that source is
    silent)."""
    left = a.to_frame().rename(columns={"rel": "grade_a"})
    right = b.to_frame().rename(columns={"rel": "grade_b"})
    for frame in (left, right):
        frame["qid"], frame["docid"] = frame["qid"].astype(str), frame["docid"].astype(str)
    return left.merge(right, on=["qid", "docid"], how="outer").astype(
        {"grade_a": "Int64", "grade_b": "Int64"}
    )
