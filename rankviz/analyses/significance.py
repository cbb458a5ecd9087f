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

import numpy as np
from scipy import stats

from rankviz.analyses.paired import (
    PairedTestResult,
    differences,
    quiet_constant_data,
    squeezed,
    t_interval,
)
from rankviz.analyses.resampling import bootstrap, randomization
from rankviz.errors import OptionError
from rankviz.settings.significance_settings import ALTERNATIVE, CORRECTION, TEST, ZERO_METHOD

#: What each test assumes, in one sentence (shown under the test in the dashboard).
ASSUMPTIONS = {
    "t": "Paired t-test: the mean of the per-query differences is approximately normal (many "
    "queries, or normal differences).",
    "wilcoxon": "Wilcoxon signed-rank: differences are symmetric about their median; it tests that "
    "median, and zero "
    "differences are dropped (zero_method='wilcox') unless another method is chosen.",
    "sign": "Sign test: only the direction of each difference counts (binomial with p = 1/2 over "
    "non-tied queries); no assumption on their size or shape.",
    "randomization": "Paired randomization: under the null hypothesis the two runs are "
    "exchangeable on every query, so each difference's sign is a coin flip; exact when 2^n <= "
    "resamples, else Monte Carlo with p = (b + 1) / (B + 1).",
    "bootstrap": "Paired bootstrap: the queries are a sample of a population of queries; resamples "
    "them with replacement and shifts the bootstrap distribution to the null (mean difference 0).",
    "tukey": "Randomised Tukey HSD: every pair of runs at once; under the null all runs are "
    "exchangeable within each query, and a pair's p is the share of permutations whose largest "
    "range of means reaches its difference.",
}


def paired_t(a, b, *, alternative: str = "two-sided") -> PairedTestResult:
    """Paired t-test of mean(a - b) = 0 (``scipy.stats.ttest_rel``)."""
    ALTERNATIVE.check(alternative)
    d = differences(a, b)
    with quiet_constant_data():
        result = stats.ttest_rel(
            *np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(b, np.float64)),
            axis=-1,
            alternative=alternative,
        )
    return PairedTestResult(
        "t",
        squeezed(result.statistic),
        squeezed(result.pvalue),
        squeezed(d.mean(-1)),
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
    ALTERNATIVE.check(alternative)
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
        squeezed(statistic.reshape(shape)),
        squeezed(pvalue.reshape(shape)),
        squeezed(d.mean(-1)),
        d.shape[-1],
        alternative,
        t_interval(d),
    )


def sign_test(a, b, *, alternative: str = "two-sided") -> PairedTestResult:
    """Sign test: wins among non-tied queries against Binomial(wins + losses, 1/2)
    (``scipy.stats.binomtest``).

    The statistic is the number of wins (a > b). Exactly tied queries are left out.
    """
    ALTERNATIVE.check(alternative)
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
        squeezed(wins.reshape(shape)),
        squeezed(pvalue.reshape(shape)),
        squeezed(d.mean(-1)),
        d.shape[-1],
        alternative,
        t_interval(d),
    )


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
