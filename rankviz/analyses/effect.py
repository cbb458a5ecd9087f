"""How large a difference is, and how many queries a study needs to see one: the standardised
effect d_z with its exact interval, the power of the paired t-test, and Sakai's topic set size."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
from scipy import optimize, stats

from rankviz.analyses.paired import ConfidenceInterval, differences
from rankviz.errors import OptionError


@dataclass(frozen=True)
class EffectSize:
    """Standardised mean difference d_z = mean(a - b) / sd(a - b) with its exact interval.

    The interval (two root findings on the noncentral t) is computed when first asked: a table of
    paired tests shows the value alone, and a meeting's rerun should not pay for what it hides.
    """

    value: float
    n: int
    confidence_level: float = 0.95

    @cached_property
    def _bounds(self) -> tuple[float, float]:
        if np.isnan(self.value):
            return np.nan, np.nan
        n, t = self.n, self.value * np.sqrt(self.n)
        df = n - 1

        def noncentrality(probability: float) -> float:
            # the interval of the noncentrality is about t +- z sqrt(1 + t^2 / 2df); bracket well
            # outside it
            span = 1 + 6 * np.sqrt(1 + t * t / (2 * df))
            try:
                return optimize.brentq(
                    lambda nc: stats.nct.cdf(t, df, nc) - probability, t - span, t + span
                )
            except ValueError:
                return np.nan

        tail = (1 - self.confidence_level) / 2
        return noncentrality(1 - tail) / np.sqrt(n), noncentrality(tail) / np.sqrt(n)

    @property
    def low(self) -> float:
        return self._bounds[0]

    @property
    def high(self) -> float:
        return self._bounds[1]

    def confidence_interval(self) -> ConfidenceInterval:
        """The interval of d_z at :attr:`confidence_level`."""
        return ConfidenceInterval(self.low, self.high)


def effect_size(a, b, *, confidence_level: float = 0.95) -> EffectSize:
    """d_z with an interval from the noncentral t distribution (inverted at the observed t).

    NaN when every difference is the same up to rounding (no spread to standardise by); NaN bounds
    where the noncentral t cannot be inverted in double precision (|t| in the thousands).
    """
    d = differences(a, b).ravel()
    n = len(d)
    sd = d.std(ddof=1)
    if sd <= 1e-12 * max(np.abs(d).max(), 1.0):
        return EffectSize(np.nan, n, confidence_level)
    return EffectSize(float(d.mean() / sd), n, confidence_level)


def t_test_power(n: int, effect: float, *, alpha: float = 0.05) -> float:
    """Power of the two-sided paired t-test on n queries for a true d_z of ``effect``."""
    df = n - 1
    critical = stats.t.ppf(1 - alpha / 2, df)
    shift = effect * np.sqrt(n)
    return float(stats.nct.sf(critical, df, shift) + stats.nct.cdf(-critical, df, shift))


def topic_set_size(difference: float, sd: float, *, alpha: float = 0.05, power: float = 0.8) -> int:
    """Queries a study needs for the two-sided paired t-test to detect a mean difference of
    ``difference`` with the given power, when per-query differences have standard deviation ``sd``
    (Sakai's topic set size design, from the observed variance)."""
    if difference <= 0 or sd <= 0:
        raise OptionError("difference and sd must be positive")
    effect = difference / sd
    high = 2
    while t_test_power(high, effect, alpha=alpha) < power:
        high *= 2
    low = max(high // 2, 2)
    while low < high:
        middle = (low + high) // 2
        if t_test_power(middle, effect, alpha=alpha) >= power:
            high = middle
        else:
            low = middle + 1
    return low
