"""Resampled paired tests: randomization and bootstrap (the randomised Tukey HSD: :mod:`.tukey`)."""

from __future__ import annotations

import numpy as np

from rankviz.analyses.paired import (
    ConfidenceInterval,
    PairedTestResult,
    differences,
    squeezed,
    t_interval,
)
from rankviz.settings.numbers import seeded
from rankviz.settings.significance_settings import ALTERNATIVE


def _resampled_pvalue(
    null: np.ndarray, observed: np.ndarray, alternative: str, adjustment: int, size: np.ndarray
) -> np.ndarray:
    """p from a null distribution (resamples x rows), as ``scipy.stats.permutation_test`` counts it.

    Values within rounding of the observed one count as reaching it: 100 eps times ``size`` (each
    row's sum of absolute differences), a bound on the error of a mean summed in another order.
    scipy's tolerance, 100 eps times the observed mean, is none at a mean of zero: there one
    arrangement summed by a matrix product and by ``mean`` fell on either side of it, and the
    p-value of two runs equal to the decimal depended on the shape of the batch.
    Monte Carlo counts add one for the observed arrangement, so p is never 0.
    """
    gamma = np.finfo(np.float64).eps * 100 * np.maximum(np.abs(observed), size)
    total = len(null) + adjustment
    greater = ((null >= observed - gamma).sum(0) + adjustment) / total
    less = ((null <= observed + gamma).sum(0) + adjustment) / total
    if alternative == "greater":
        return greater
    if alternative == "less":
        return less
    return np.minimum(np.minimum(greater, less) * 2, 1.0)


def _batches(total: int, batch: int):
    for start in range(0, total, batch):
        yield min(batch, total - start)


def randomization(
    a,
    b,
    *,
    alternative: str = "two-sided",
    n_resamples: int = 10_000,
    rng: np.random.Generator | int | None = None,
    batch: int = 500,
) -> PairedTestResult:
    """Paired randomization (sign-flip permutation) test of the mean difference.

    Exact over all 2^n sign patterns when 2^n <= ``n_resamples`` (as
    ``scipy.stats.permutation_test``
    with ``permutation_type="samples"``); otherwise ``n_resamples`` random patterns drawn from
    ``rng``
    with p = (b + 1) / (B + 1). Two-sided p is twice the smaller one-sided p (scipy's convention).
    Every run shares the same patterns, so their p-values are comparable.
    """
    ALTERNATIVE.check(alternative)
    d = differences(a, b)
    rows = d.reshape(-1, d.shape[-1])
    n = rows.shape[-1]
    observed = rows.mean(-1)
    if n < 63 and 2**n <= n_resamples:
        patterns = ((np.arange(2**n)[:, None] >> np.arange(n)) & 1) * 2.0 - 1.0
        null, adjustment = patterns @ rows.T / n, 0
    else:
        generator = seeded(rng)
        chunks = [
            (generator.integers(0, 2, size=(m, n)) * 2.0 - 1.0) @ rows.T / n
            for m in _batches(n_resamples, batch)
        ]
        null, adjustment = np.vstack(chunks), 1
    pvalue = _resampled_pvalue(null, observed, alternative, adjustment, np.abs(rows).sum(-1))
    shape = d.shape[:-1]
    return PairedTestResult(
        "randomization",
        squeezed(observed.reshape(shape)),
        squeezed(pvalue.reshape(shape)),
        squeezed(observed.reshape(shape)),
        n,
        alternative,
        t_interval(d),
    )


def _bootstrap_counts(generator: np.random.Generator, resamples: int, n: int) -> np.ndarray:
    """How often each of n queries is drawn in each of ``resamples`` draws of n with replacement."""
    drawn = generator.integers(0, n, size=(resamples, n)) + (np.arange(resamples) * n)[:, None]
    return (
        np.bincount(drawn.ravel(), minlength=resamples * n).reshape(resamples, n).astype(np.float64)
    )


def bootstrap(
    a,
    b,
    *,
    alternative: str = "two-sided",
    n_resamples: int = 10_000,
    rng: np.random.Generator | int | None = None,
    batch: int = 500,
) -> PairedTestResult:
    """Paired bootstrap test of the mean difference, with a percentile bootstrap interval.

    Each resample draws n queries with replacement (the same draws for every run). The
    test shifts the bootstrap means to the null: two-sided p = (#{|m* - m| >= |m|} + 1) / (B + 1),
    one-sided with m* - m >= m (greater) or <= m (less). ``confidence_interval`` gives the
    percentiles of m*.
    """
    ALTERNATIVE.check(alternative)
    d = differences(a, b)
    rows = d.reshape(-1, d.shape[-1])
    n = rows.shape[-1]
    observed = rows.mean(-1)
    generator = seeded(rng)
    means = np.vstack(
        [_bootstrap_counts(generator, m, n) @ rows.T / n for m in _batches(n_resamples, batch)]
    )
    shifted = means - observed
    # as the randomization test's: a bound on a mean's error summed by another kernel, not zero at
    # a mean of zero
    gamma = np.finfo(np.float64).eps * 100 * np.maximum(np.abs(observed), np.abs(rows).sum(-1))
    if alternative == "greater":
        count = (shifted >= observed - gamma).sum(0)
    elif alternative == "less":
        count = (shifted <= observed + gamma).sum(0)
    else:
        count = (np.abs(shifted) >= np.abs(observed) - gamma).sum(0)
    pvalue = (count + 1) / (len(means) + 1)
    shape = d.shape[:-1]

    def interval(level: float) -> ConfidenceInterval:
        low, high = np.quantile(means, [(1 - level) / 2, (1 + level) / 2], axis=0)
        return ConfidenceInterval(squeezed(low.reshape(shape)), squeezed(high.reshape(shape)))

    return PairedTestResult(
        "bootstrap",
        squeezed(observed.reshape(shape)),
        squeezed(pvalue.reshape(shape)),
        squeezed(observed.reshape(shape)),
        n,
        alternative,
        interval,
    )
