"""Which queries people should judge, drawn at random so that a correction's interval holds.

``uniform``: ``n`` queries drawn without replacement, each with probability ``n / M``. By
``uncertainty``: each query drawn on its own (Poisson sampling) with a probability that grows with
how much the runs' values under the LLM's judgments disagree on it (their spread), half of it spread
evenly so that no query is left out, the probabilities summing to ``n``: the queries where the LLM's
numbers decide most are judged more often, and the estimate weights each by the inverse of its
probability so it stays unbiased (Zrnic and Candès, "Active statistical inference", ICML 2024).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from rankviz.errors import OptionError

WAYS = ("uniform", "uncertainty")


@dataclass(frozen=True)
class QueryDraw:
    """A draw: ``probabilities`` of the drawn queries (their chance to be drawn), of
    ``population`` queries, drawn ``by`` a way of :data:`WAYS` with ``seed``."""

    by: str
    seed: int
    population: int
    probabilities: Mapping[str, float]

    def to_json(self) -> str:
        return json.dumps(
            {
                "by": self.by,
                "seed": self.seed,
                "population": self.population,
                "queries": [[q, p] for q, p in self.probabilities.items()],
            }
        )

    @classmethod
    def from_json(cls, text: str) -> QueryDraw:
        held = json.loads(text)
        return cls(
            str(held["by"]),
            int(held["seed"]),
            int(held["population"]),
            {str(q): float(p) for q, p in held["queries"]},
        )

    def said(self) -> str:
        return (
            f"{len(self.probabilities):,} of {self.population:,} queries drawn at random by "
            f"rankviz ({self.by}, seed {self.seed})"
        )


def inclusion_probabilities(spread: np.ndarray, n: int) -> np.ndarray:
    """Each query's chance to be drawn by uncertainty: half even, half in proportion to
    ``spread``, summing to ``n``, none above 1 (the excess of a capped query shared among the
    others in the same proportions)."""
    size = len(spread)
    total = float(spread.sum())
    share = np.full(size, 1 / size) if total <= 0 else 0.5 / size + 0.5 * spread / total
    chance = np.zeros(size)
    capped = np.zeros(size, dtype=bool)
    for _ in range(size):
        left = n - capped.sum()
        free = share * ~capped
        chance = np.where(capped, 1.0, left * free / free.sum())
        over = ~capped & (chance >= 1)
        if not over.any():
            break
        capped |= over
    return np.minimum(chance, 1.0)


def draw_queries(
    qids: Sequence[str],
    n: int,
    *,
    seed: int = 0,
    by: str = "uniform",
    spread: Sequence[float] | None = None,
) -> QueryDraw:
    """Draw ``n`` of ``qids`` (by uncertainty: ``n`` expected) for people to judge.

    Parameters
    ----------
    qids
        The queries to draw from, in a fixed order.
    n
        How many (by uncertainty, how many on average).
    seed
        The random generator's seed: the same draw every time.
    by
        ``uniform`` or ``uncertainty`` (then ``spread``: each query's spread of the runs' values).

    Returns
    -------
    The :class:`QueryDraw`.
    """
    size = len(qids)
    if by not in WAYS:
        raise OptionError(f"--by {by!r}: draw by {' or '.join(WAYS)}")
    if not 2 <= n <= size:
        raise OptionError(f"--queries {n}: between 2 and the {size:,} queries to draw from")
    rng = np.random.default_rng(seed)
    if by == "uniform":
        picked = np.sort(rng.choice(size, n, replace=False))
        chance = np.full(size, n / size)
    else:
        if spread is None or len(spread) != size:
            raise ValueError("a draw by uncertainty needs each query's spread")
        chance = inclusion_probabilities(np.asarray(spread, dtype=np.float64), n)
        picked = np.flatnonzero(rng.random(size) < chance)
    return QueryDraw(by, seed, size, {str(qids[i]): float(chance[i]) for i in picked})
