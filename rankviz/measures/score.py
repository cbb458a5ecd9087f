"""A score read from a file, not computed here: a nugget score, an LLM judge's grade, any per-query
number of another evaluator, named as the file names it.

It stands where a measure of the catalogue stands in an evaluation (means, paired tests, ranks),
and has no kernel: nothing here can compute it from a ranking.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rankviz.errors import MeasureError
from rankviz.measures.spec import Family, Measure


def _no_kernel(*args: object, **kwargs: object) -> np.ndarray:
    raise MeasureError("a score read from a file cannot be computed from a ranking")


#: what a score's family says of it (no parameters, no closed form, no kernel)
SCORE_FAMILY = Family(
    name="score",
    aliases=(),
    params=(),
    cutoff_required=False,
    kernel=_no_kernel,
    expected=None,
    definition="a per-query value read from a file",
    convention="as the evaluator that wrote it computed it",
    cutoff_allowed=False,
    condensable=False,
)


@dataclass(frozen=True)
class Score(Measure):
    """A per-query score named ``name`` by its file; ``lower_is_better`` for a cost (latency)."""

    lower_is_better: bool = False

    @property
    def family(self) -> Family:
        return SCORE_FAMILY

    @property
    def higher_is_better(self) -> bool:
        return not self.lower_is_better

    def __str__(self) -> str:
        return self.name

    def __call__(self, table) -> np.ndarray:
        raise MeasureError(f"{self.name} is a score read from a file: no ranking computes it")
