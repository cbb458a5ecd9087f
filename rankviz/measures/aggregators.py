"""How a family's per-query values become the number its mean stands for (:attr:`Family.aggregator
<rankviz.measures.spec.Family.aggregator>`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Aggregator:
    """How a family's per-query values become the number its mean stands for: the mean of the
    values (under the aggregate in force, :mod:`rankviz.evaluation.aggregate`), then ``shown`` of
    it. A geometric mean is a mean of logs: its family's per-query values are the logs, which paired
    tests and intervals take, and ``shown`` is exp (trec_eval's gm_map, as ir_measures' families
    carry their ``aggregator()``)."""

    name: str
    shown: Callable[[float], float]
    description: str


#: The arithmetic mean: what nearly every family's mean is.
MEAN = Aggregator("mean", float, "the mean over queries")
#: exp of the mean of the per-query logs: the geometric mean of the values they are logs of.
GEOMETRIC = Aggregator(
    "geometric",
    lambda mean: float(np.exp(mean)),
    "exp of the mean of the per-query logs (a geometric mean)",
)
