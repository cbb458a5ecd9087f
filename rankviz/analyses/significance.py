"""Paired significance tests and multiple-comparison control for per-query values (effect sizes and
power: :mod:`rankviz.analyses.effect`).

Modelled on ``scipy.stats``: data positional, options keyword-only (``alternative=``, ``rng=``,
``n_resamples=``), a frozen result with ``statistic``, ``pvalue`` and ``confidence_interval()``.
``a`` and ``b`` hold the same queries on their last axis; ``a`` may be a matrix (one run per row)
against one baseline ``b``, and every test is vectorised over those rows and over resamples.
Differences are ``a - b`` (run minus baseline). No global seeds: ``rng`` is a Generator or a seed.

Where scipy has the test (``ttest_rel``, ``wilcoxon``, ``binomtest``), it computes it. The
resampling tests are written here because they must run 20 runs x 10,000 resamples x 6,980
queries in seconds: one matrix product per batch of sign flips or bootstrap counts.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
from scipy import stats

from rankviz.errors import OptionError
from rankviz.significance_options import ALTERNATIVE, CORRECTION, TEST, ZERO_METHOD

#: What each test assumes, in one sentence (shown under the test in the dashboard).
ASSUMPTIONS = {
    "t": "Paired t-test: the mean of the per-query differences is approximately normal (many "
    "queries, or normal differences).",
    "wilcoxon": "Wilcoxon signed-rank: differences are symmetric about their median; it tests that "
    "median, and zero "
    "differences are dropped (zero_method='wilcox') unless another method is chosen.",
    "sign": "Sign test: only the direction of each difference counts (binomial with p = 1/2 over "
    "non-tied queries); "
    "no assumption on their size or shape.",
    "randomization": "Paired randomization: under the null hypothesis the two runs are "
    "exchangeable on every query, so "
    "each difference's sign is a coin flip; exact when 2^n <= resamples, else Monte Carlo with p = "
    "(b + 1) / (B + 1).",
    "bootstrap": "Paired bootstrap: the queries are a sample of a population of queries; resamples "
    "them with "
    "replacement and shifts the bootstrap distribution to the null (mean difference 0).",
    "tukey": "Randomised Tukey HSD: every pair of runs at once; under the null all runs are "
    "exchangeable within each "
    "query, and a pair's p is the share of permutations whose largest range of means reaches its "
    "difference.",
}


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


def _check(alternative: str) -> None:
    ALTERNATIVE.check(alternative)


def _squeeze(value):
    value = np.asarray(value)
    return value.item() if value.ndim == 0 else value


@contextmanager
def _quiet_constant_data() -> Iterator[None]:
    """scipy warns when every difference is (nearly) equal; the result (infinite t, zero-width
    interval, or NaN for all-zero differences) is the honest answer, so the warning is not shown."""
    with warnings.catch_warnings():
        warnings.filterwarnings(
            "ignore", message="Precision loss occurred", category=RuntimeWarning
        )
        yield


def t_interval(d: np.ndarray) -> Callable[[float], ConfidenceInterval]:
    """Two-sided t interval of the mean difference (scipy's
    ``ttest_rel(...).confidence_interval``)."""

    def interval(level: float) -> ConfidenceInterval:
        with _quiet_constant_data():
            ci = stats.ttest_rel(d, np.zeros_like(d), axis=-1).confidence_interval(level)
        return ConfidenceInterval(_squeeze(ci.low), _squeeze(ci.high))

    return interval


def paired_t(a, b, *, alternative: str = "two-sided") -> PairedTestResult:
    """Paired t-test of mean(a - b) = 0 (``scipy.stats.ttest_rel``)."""
    _check(alternative)
    d = differences(a, b)
    with _quiet_constant_data():
        result = stats.ttest_rel(
            *np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(b, np.float64)),
            axis=-1,
            alternative=alternative,
        )
    return PairedTestResult(
        "t",
        _squeeze(result.statistic),
        _squeeze(result.pvalue),
        _squeeze(d.mean(-1)),
        d.shape[-1],
        alternative,
        t_interval(d),
    )


def wilcoxon(
    a, b, *, alternative: str = "two-sided", zero_method: str = "wilcox"
) -> PairedTestResult:
    """Wilcoxon signed-rank test (``scipy.stats.wilcoxon``).

    ``zero_method``: ``"wilcox"`` drops zero differences (default), ``"pratt"`` ranks them and then
    drops them, ``"zsplit"`` splits their ranks between the signs. Where every difference is zero
    the p-value is 1 (nothing distinguishes the runs) instead of scipy's NaN.
    """
    _check(alternative)
    ZERO_METHOD.check(zero_method)
    d = differences(a, b)
    rows = d.reshape(-1, d.shape[-1])
    statistic, pvalue = np.full(len(rows), np.nan), np.ones(len(rows))
    for i, row in enumerate(rows):
        if np.any(row != 0):
            result = stats.wilcoxon(row, zero_method=zero_method, alternative=alternative)
            statistic[i], pvalue[i] = result.statistic, result.pvalue
    shape = d.shape[:-1]
    return PairedTestResult(
        "wilcoxon",
        _squeeze(statistic.reshape(shape)),
        _squeeze(pvalue.reshape(shape)),
        _squeeze(d.mean(-1)),
        d.shape[-1],
        alternative,
        t_interval(d),
    )


def sign_test(a, b, *, alternative: str = "two-sided") -> PairedTestResult:
    """Sign test: wins among non-tied queries against Binomial(wins + losses, 1/2)
    (``scipy.stats.binomtest``).

    The statistic is the number of wins (a > b). Exactly tied queries are left out.
    """
    _check(alternative)
    d = differences(a, b)
    rows = d.reshape(-1, d.shape[-1])
    wins, losses = (rows > 0).sum(-1), (rows < 0).sum(-1)
    pvalue = np.array(
        [
            stats.binomtest(int(w), int(w + lost), 0.5, alternative=alternative).pvalue
            if w + lost
            else 1.0
            for w, lost in zip(wins, losses)
        ]
    )
    shape = d.shape[:-1]
    return PairedTestResult(
        "sign",
        _squeeze(wins.reshape(shape)),
        _squeeze(pvalue.reshape(shape)),
        _squeeze(d.mean(-1)),
        d.shape[-1],
        alternative,
        t_interval(d),
    )


def _resampled_pvalue(
    null: np.ndarray, observed: np.ndarray, alternative: str, adjustment: int
) -> np.ndarray:
    """p from a null distribution (resamples x rows), as ``scipy.stats.permutation_test`` counts it.

    A relative tolerance of 100 eps keeps values equal in theory but not in floating point on the
    extreme side; Monte Carlo counts add one for the observed arrangement, so p is never 0.
    """
    gamma = np.abs(np.finfo(np.float64).eps * 100 * observed)
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
    _check(alternative)
    d = differences(a, b)
    rows = d.reshape(-1, d.shape[-1])
    n = rows.shape[-1]
    observed = rows.mean(-1)
    if n < 63 and 2**n <= n_resamples:
        patterns = ((np.arange(2**n)[:, None] >> np.arange(n)) & 1) * 2.0 - 1.0
        null, adjustment = patterns @ rows.T / n, 0
    else:
        generator = np.random.default_rng(rng)
        chunks = [
            (generator.integers(0, 2, size=(m, n)) * 2.0 - 1.0) @ rows.T / n
            for m in _batches(n_resamples, batch)
        ]
        null, adjustment = np.vstack(chunks), 1
    pvalue = _resampled_pvalue(null, observed, alternative, adjustment)
    shape = d.shape[:-1]
    return PairedTestResult(
        "randomization",
        _squeeze(observed.reshape(shape)),
        _squeeze(pvalue.reshape(shape)),
        _squeeze(observed.reshape(shape)),
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
    _check(alternative)
    d = differences(a, b)
    rows = d.reshape(-1, d.shape[-1])
    n = rows.shape[-1]
    observed = rows.mean(-1)
    generator = np.random.default_rng(rng)
    means = np.vstack(
        [_bootstrap_counts(generator, m, n) @ rows.T / n for m in _batches(n_resamples, batch)]
    )
    shifted = means - observed
    gamma = np.abs(np.finfo(np.float64).eps * 100 * observed)
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
        return ConfidenceInterval(_squeeze(low.reshape(shape)), _squeeze(high.reshape(shape)))

    return PairedTestResult(
        "bootstrap",
        _squeeze(observed.reshape(shape)),
        _squeeze(pvalue.reshape(shape)),
        _squeeze(observed.reshape(shape)),
        n,
        alternative,
        interval,
    )


@dataclass(frozen=True)
class TukeyResult:
    """Randomised Tukey HSD over the columns (runs) of a queries x runs matrix.

    ``statistic[i, j]`` is mean(run i) - mean(run j), as ``scipy.stats.tukey_hsd``; ``pvalue[i, j]``
    is family-wise over all pairs.
    """

    statistic: np.ndarray
    pvalue: np.ndarray
    n_resamples: int
    # the largest range of run means in each resample
    ranges: np.ndarray = field(repr=False, compare=False)

    def confidence_interval(self, confidence_level: float = 0.95) -> ConfidenceInterval:
        """Simultaneous intervals of every difference of means: ``statistic`` +- the
        ``confidence_level``
        quantile of the permutation distribution of the largest range (the randomised counterpart of
        Tukey's studentized-range interval), so all pairs are covered at once."""
        if not 0 < confidence_level < 1:
            raise OptionError("confidence_level must be between 0 and 1")
        half = float(np.quantile(self.ranges, confidence_level))
        return ConfidenceInterval(self.statistic - half, self.statistic + half)


def tukey_hsd(
    matrix,
    *,
    n_resamples: int = 10_000,
    rng: np.random.Generator | int | None = None,
    batch: int = 200,
) -> TukeyResult:
    """Randomised Tukey HSD (Carterette, TOIS 2012; Sakai 2014): one test over all pairs of runs.

    Each resample permutes the runs' values independently within every query (``Generator.permuted``
    along the runs); a pair's p is (#{resamples whose largest difference between run means >=
    |observed
    difference|} + 1) / (B + 1). Batches draw from child generators spawned from ``rng`` and run on
    two threads; the result depends on the seed only, not on the threads.
    """
    values = np.asarray(matrix, dtype=np.float64)
    if values.ndim != 2 or values.shape[1] < 2 or values.shape[0] < 2:
        raise OptionError(
            "Tukey HSD needs a queries x runs matrix with at least two runs and two queries"
        )
    means = values.mean(0)
    observed = means[:, None] - means[None, :]
    sizes = list(_batches(n_resamples, batch))
    children = np.random.default_rng(rng).spawn(len(sizes))

    def largest_ranges(child: np.random.Generator, size: int) -> np.ndarray:
        resampled = child.permuted(np.broadcast_to(values, (size, *values.shape)), axis=2).mean(1)
        return resampled.max(1) - resampled.min(1)

    with ThreadPoolExecutor(max_workers=2) as pool:
        ranges = np.concatenate(list(pool.map(largest_ranges, children, sizes)))
    gamma = np.abs(np.finfo(np.float64).eps * 100 * observed)
    count = (ranges[:, None, None] >= np.abs(observed)[None] - gamma[None]).sum(0)
    return TukeyResult(observed, (count + 1) / (len(ranges) + 1), len(ranges), ranges)


def adjust(pvalues, *, method: str) -> np.ndarray:
    """p-values corrected for multiple comparisons: ``none``, ``bonferroni``, ``holm`` (step-down)
    or
    ``bh`` (Benjamini-Hochberg, ``scipy.stats.false_discovery_control``). Same as statsmodels'
    ``multipletests`` with ``bonferroni``, ``holm``, ``fdr_bh``."""
    p = np.asarray(pvalues, dtype=np.float64)
    CORRECTION.check(method)
    if method == "none" or p.size == 0:
        return p.copy()
    if method == "bonferroni":
        return np.minimum(p * p.size, 1.0)
    if method == "bh":
        return stats.false_discovery_control(p, method="bh")
    order = np.argsort(p, kind="stable")
    stepped = np.maximum.accumulate((p.size - np.arange(p.size)) * p[order])
    adjusted = np.empty_like(p)
    adjusted[order] = np.minimum(stepped, 1.0)
    return adjusted


def run_test(
    test: str,
    a,
    b,
    *,
    alternative: str = "two-sided",
    n_resamples: int = 10_000,
    rng=None,
    zero_method: str = "wilcox",
) -> PairedTestResult:
    """Dispatch a paired test by name (``t``, ``wilcoxon``, ``sign``, ``randomization``,
    ``bootstrap``)."""
    if test == "t":
        return paired_t(a, b, alternative=alternative)
    if test == "wilcoxon":
        return wilcoxon(a, b, alternative=alternative, zero_method=zero_method)
    if test == "sign":
        return sign_test(a, b, alternative=alternative)
    if test == "randomization":
        return randomization(a, b, alternative=alternative, n_resamples=n_resamples, rng=rng)
    if test == "bootstrap":
        return bootstrap(a, b, alternative=alternative, n_resamples=n_resamples, rng=rng)
    raise OptionError(f"unknown paired test {test!r}; choose one of {', '.join(TEST.choices[:-1])}")
