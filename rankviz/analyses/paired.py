"""What every paired test returns and checks: the differences, the result, its interval."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
from scipy import stats

from rankviz.errors import OptionError


class ConfidenceInterval(NamedTuple):
    low: np.ndarray | float
    high: np.ndarray | float


@dataclass(frozen=True)
class PairedTestResult:
    """One paired test of ``a`` against ``b`` (arrays when ``a`` has several rows).

    ``confidence_interval()`` bounds the mean difference: t-based for the t, Wilcoxon, sign and
    randomization tests (their own statistics have no interval on the mean), percentile bootstrap
    for the bootstrap test.
    """

    test: str
    statistic: np.ndarray | float
    pvalue: np.ndarray | float
    mean_difference: np.ndarray | float
    n: int
    alternative: str
    _interval: Callable[[float], ConfidenceInterval] = field(repr=False, compare=False)

    def confidence_interval(self, confidence_level: float = 0.95) -> ConfidenceInterval:
        if not 0 < confidence_level < 1:
            raise OptionError("confidence_level must be between 0 and 1")
        return self._interval(confidence_level)


def differences(a, b) -> np.ndarray:
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.shape[-1] != b.shape[-1]:
        raise OptionError(
            f"a and b must hold the same queries on their last axis ({a.shape[-1]} "
            f"vs {b.shape[-1]})"
        )
    if a.shape[-1] < 2:
        raise OptionError("a paired test needs at least two queries")
    return a - b


def squeezed(value):
    value = np.asarray(value)
    return value.item() if value.ndim == 0 else value


def t_interval(d: np.ndarray) -> Callable[[float], ConfidenceInterval]:
    """Two-sided t interval of the mean difference (scipy's
    ``ttest_rel(...).confidence_interval``)."""

    def interval(level: float) -> ConfidenceInterval:
        with quiet_constant_data():
            ci = stats.ttest_rel(d, np.zeros_like(d), axis=-1).confidence_interval(level)
        return ConfidenceInterval(squeezed(ci.low), squeezed(ci.high))

    return interval


@contextmanager
def quiet_constant_data() -> Iterator[None]:
    """scipy warns when every difference is (nearly) equal; the result (infinite t, zero-width
    interval, or NaN for all-zero differences) is the honest answer, so the warning is not shown."""
    with warnings.catch_warnings():
        warnings.filterwarnings(
            "ignore", message="Precision loss occurred", category=RuntimeWarning
        )
        yield
