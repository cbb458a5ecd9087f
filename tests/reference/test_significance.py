"""Significance tests against scipy, statsmodels and brute-force enumeration."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.power import TTestPower

from rankviz.analyses import effect, pair_tests, resampling, tukey, verdicts
from rankviz.analyses import significance as sg
from rankviz.errors import OptionError
from rankviz.settings import significance_settings as rv_settings

# per-query values, with exact ties
VALUES = st.floats(0, 1, allow_nan=False).map(lambda v: round(v, 3))
ALTERNATIVE = st.sampled_from(rv_settings.ALTERNATIVE.choices)


@st.composite
def paired(draw, min_n: int = 3, max_n: int = 30, runs: int = 1):
    n = draw(st.integers(min_n, max_n))
    b = np.array(draw(st.lists(VALUES, min_size=n, max_size=n)))
    a = np.array([draw(st.lists(VALUES, min_size=n, max_size=n)) for _ in range(runs)])
    return (a[0] if runs == 1 else a), b


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(paired(runs=3), ALTERNATIVE)
def test_paired_t_equals_scipy_row_by_row(data, alternative) -> None:
    a, b = data
    result = sg.paired_t(a, b, alternative=alternative)
    ci = result.confidence_interval(0.9)
    for i, row in enumerate(a):
        reference = stats.ttest_rel(row, b, alternative=alternative)
        np.testing.assert_allclose(
            result.statistic[i], reference.statistic, rtol=1e-12, atol=1e-12, equal_nan=True
        )
        np.testing.assert_allclose(
            result.pvalue[i], reference.pvalue, rtol=1e-12, atol=1e-12, equal_nan=True
        )
        two_sided = stats.ttest_rel(row, b).confidence_interval(0.9)
        np.testing.assert_allclose(
            [ci.low[i], ci.high[i]], [two_sided.low, two_sided.high], rtol=1e-12, equal_nan=True
        )
        assert result.mean_difference[i] == pytest.approx(np.mean(row - b), abs=1e-15)


def _exact_signed_rank_p(d: np.ndarray, alternative: str) -> tuple[float, float]:
    """(statistic, p) of the signed-rank test by listing every sign pattern (no zero, no tied |d|):
    W+ is the sum of the ranks of the positive differences; scipy reports min(W+, W-) two-sided."""
    ranks = np.argsort(np.argsort(np.abs(d))) + 1
    observed = int(ranks[d > 0].sum())
    null = [
        sum(r for r, positive in zip(ranks, signs) if positive)
        for signs in itertools.product((False, True), repeat=len(d))
    ]
    at_most = sum(w <= observed for w in null) / len(null)
    at_least = sum(w >= observed for w in null) / len(null)
    total = int(ranks.sum())
    if alternative == "two-sided":
        return min(observed, total - observed), min(1.0, 2 * min(at_most, at_least))
    return observed, at_least if alternative == "greater" else at_most


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(1, 10**6), min_size=2, max_size=11, unique=True), st.data(), ALTERNATIVE
)
def test_wilcoxon_equals_enumeration_of_every_sign_pattern(sizes, data, alternative) -> None:
    signs = np.array(
        data.draw(st.lists(st.sampled_from([-1, 1]), min_size=len(sizes), max_size=len(sizes)))
    )
    d = signs * np.array(sizes) / 2**20
    b = np.linspace(0.2, 0.4, len(d))
    result = sg.wilcoxon(b + d, b, alternative=alternative)
    statistic, pvalue = _exact_signed_rank_p((b + d) - b, alternative)
    assert result.statistic == statistic
    assert result.pvalue == pytest.approx(pvalue, rel=1e-12)


def test_wilcoxon_zero_methods_drop_rank_or_split_the_zero_differences() -> None:
    b = np.full(8, 0.5)
    d = np.array([0.0, 0.0, 0.1, -0.2, 0.3, 0.4, 0.5, 0.6])
    wilcox = sg.wilcoxon(b + d, b, zero_method="wilcox")
    assert wilcox.pvalue == sg.wilcoxon(b[2:] + d[2:], b[2:]).pvalue  # zeros dropped before ranking
    assert wilcox.statistic == 2  # ranks 1..6 of the six non-zero: W- = 2
    pratt = sg.wilcoxon(b + d, b, zero_method="pratt")
    assert pratt.statistic == 4  # ranked with the zeros (ranks 3..8), then dropped: W- = 4
    zsplit = sg.wilcoxon(b + d, b, zero_method="zsplit")
    # the zeros' ranks 1 and 2 split between the signs: W- = 4 + 1.5
    assert zsplit.statistic == 4 + 1.5
    assert sg.wilcoxon(b, b).pvalue == 1.0  # every difference zero: nothing tells the runs apart


def _sign_p(wins: int, n: int, alternative: str) -> float:
    """The binomial(n, 1/2) tail(s) with exact integer arithmetic."""
    at_most = sum(math.comb(n, k) for k in range(wins + 1)) / 2**n
    at_least = sum(math.comb(n, k) for k in range(wins, n + 1)) / 2**n
    return {
        "greater": at_least,
        "less": at_most,
        "two-sided": min(1.0, 2 * min(at_most, at_least)),
    }[alternative]


@settings(max_examples=60, deadline=None)
@given(paired(runs=2), ALTERNATIVE)
def test_sign_test_equals_the_binomial_tails(data, alternative) -> None:
    a, b = data
    result = sg.sign_test(a, b, alternative=alternative)
    for i, row in enumerate(a):
        wins, losses = int((row > b).sum()), int((row < b).sum())
        assert result.statistic[i] == wins
        expected = _sign_p(wins, wins + losses, alternative) if wins + losses else 1.0
        assert result.pvalue[i] == pytest.approx(expected, rel=1e-12, abs=1e-15)


def _decimal_differences(a: np.ndarray, b: np.ndarray) -> list[Fraction]:
    """a - b exactly, on the decimals drawn (as written, not their binary approximations)."""
    return [Fraction(repr(float(x))) - Fraction(repr(float(y))) for x, y in zip(a, b, strict=True)]


def _enumerated_pvalue(a: np.ndarray, b: np.ndarray, alternative: str) -> float:
    """Exact sign-flip p by listing every pattern in rational arithmetic on the decimals drawn (no
    rounding: an arrangement reaches the observed mean or it does not)."""
    d = _decimal_differences(a, b)
    observed = sum(d)
    null = [
        sum(s * v for s, v in zip(signs, d)) for signs in itertools.product((-1, 1), repeat=len(d))
    ]
    greater = Fraction(sum(v >= observed for v in null), len(null))
    less = Fraction(sum(v <= observed for v in null), len(null))
    return float(
        {"greater": greater, "less": less, "two-sided": min(2 * min(greater, less), Fraction(1))}[
            alternative
        ]
    )


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(paired(min_n=2, max_n=10, runs=2), ALTERNATIVE)
def test_exact_randomization_equals_enumeration_and_scipy(data, alternative) -> None:
    a, b = data
    result = resampling.randomization(a, b, alternative=alternative, n_resamples=2**10)
    for i, row in enumerate(a):
        assert result.pvalue[i] == _enumerated_pvalue(row, b, alternative)
        reference = stats.permutation_test(
            (row, b),
            lambda x, y, axis: np.mean(x - y, axis=axis),
            permutation_type="samples",
            alternative=alternative,
            n_resamples=2**10,
            vectorized=True,
        )
        assert result.statistic[i] == pytest.approx(reference.statistic, abs=1e-12)
        # scipy's tolerance (100 eps times the observed mean) is none where the mean difference
        # is zero to the decimal: there its count depends on rounding, and the exact one decides
        if sum(_decimal_differences(row, b)) != 0:
            assert result.pvalue[i] == pytest.approx(reference.pvalue, abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.lists(VALUES, min_size=2, max_size=9), st.lists(VALUES, min_size=1, max_size=4))
def test_differences_that_cancel_to_the_decimal_get_p_one_alone_or_with_other_runs(
    baseline, shifts
) -> None:
    """A run whose gains and losses against the baseline cancel to the decimal (mean difference
    zero) gets p = 1 two-sided, tested alone or beside other runs (one matrix product sums the
    patterns of every run tested together, in another order than its mean)."""
    b = np.array(baseline)
    shifts = shifts[: len(b) // 2]
    d = np.zeros(len(b))
    d[: len(shifts)] = shifts
    d[len(shifts) : 2 * len(shifts)] = [-x for x in shifts]
    a = np.round(b + d, 3)  # b's decimals plus d's: exact to the decimal
    assert sum(_decimal_differences(a, b)) == 0
    others = np.vstack([np.round(b[::-1], 3), a, np.zeros(len(b))])
    for rows in (a, others):
        result = resampling.randomization(rows, b, n_resamples=2**10)
        assert np.atleast_1d(result.pvalue)[0 if rows is a else 1] == 1.0


def test_monte_carlo_randomization_is_reproducible_never_zero_and_near_exact() -> None:
    rng = np.random.default_rng(4)
    b = rng.random(14)
    # the second run always wins by far
    a = np.vstack([b + 0.05 + 0.1 * rng.standard_normal(14), b + 2.0])
    first = resampling.randomization(a, b, n_resamples=5000, rng=11)
    again = resampling.randomization(a, b, n_resamples=5000, rng=np.random.default_rng(11))
    np.testing.assert_array_equal(first.pvalue, again.pvalue)
    # only the observed arrangement (and its mirror) reach it
    assert first.pvalue[1] == pytest.approx(2 / 5001)
    exact = resampling.randomization(a, b, n_resamples=2**14).pvalue[0]
    standard_error = math.sqrt(exact * (1 - exact) / 5000)
    assert abs(first.pvalue[0] - exact) < 4 * standard_error + 1 / 5001
    assert np.all(
        resampling.randomization(a, b, n_resamples=100, rng=1, alternative="greater").pvalue
        >= 1 / 101
    )


def test_bootstrap_is_reproducible_and_its_interval_covers_the_mean() -> None:
    rng = np.random.default_rng(5)
    b = rng.random(300)
    a = np.vstack([b + 0.02 + 0.2 * rng.standard_normal(300), b + 1.0, b])
    result = resampling.bootstrap(a, b, n_resamples=4000, rng=3)
    again = resampling.bootstrap(a, b, n_resamples=4000, rng=3)
    np.testing.assert_array_equal(result.pvalue, again.pvalue)
    low, high = result.confidence_interval()
    assert np.all(low <= result.mean_difference) and np.all(result.mean_difference <= high)
    assert result.pvalue[1] == pytest.approx(1 / 4001)  # p is never 0
    assert result.pvalue[2] == 1.0  # identical runs
    # the percentile interval is close to the t interval when the mean is near normal
    t_low, t_high = sg.paired_t(a[0], b).confidence_interval()
    assert low[0] == pytest.approx(t_low, abs=0.006) and high[0] == pytest.approx(t_high, abs=0.006)


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.floats(0, 1), min_size=1, max_size=25),
    st.sampled_from([("bonferroni", "bonferroni"), ("holm", "holm"), ("bh", "fdr_bh")]),
)
@pytest.mark.slow
def test_corrections_equal_statsmodels(pvalues, methods) -> None:
    ours, theirs = methods
    np.testing.assert_allclose(
        sg.adjust(pvalues, method=ours),
        multipletests(pvalues, method=theirs)[1],
        rtol=1e-12,
        atol=1e-15,
    )
    assert np.array_equal(sg.adjust(pvalues, method="none"), np.asarray(pvalues))


def test_tukey_hsd_two_runs_is_the_two_sided_randomization_test() -> None:
    rng = np.random.default_rng(8)
    base = rng.random(9)
    matrix = np.c_[base, base + 0.1 * rng.standard_normal(9), base]
    result = tukey.tukey_hsd(matrix[:, :2], n_resamples=20000, rng=2)
    d = matrix[:, 1] - matrix[:, 0]
    null = np.array([abs(np.mean(d * np.array(s))) for s in itertools.product((-1, 1), repeat=9)])
    exact = np.mean(null >= abs(d.mean()) - 1e-12)
    assert result.pvalue[0, 1] == pytest.approx(
        exact, abs=4 * math.sqrt(exact * (1 - exact) / 20000) + 1e-4
    )
    three = tukey.tukey_hsd(matrix, n_resamples=2000, rng=2)
    np.testing.assert_array_equal(three.pvalue, three.pvalue.T)
    assert (
        three.pvalue[0, 2] == 1.0
        and np.all(np.diag(three.pvalue) == 1.0)
        and three.pvalue.min() >= 1 / 2001
    )
    scipy_tukey = stats.tukey_hsd(*matrix.T)  # statistic[i, j] = mean(i) - mean(j), as scipy
    np.testing.assert_allclose(three.statistic, scipy_tukey.statistic, rtol=0, atol=1e-15)
    np.testing.assert_array_equal(
        three.pvalue, tukey.tukey_hsd(matrix, n_resamples=2000, rng=2).pvalue
    )


def _every_permutation_range(values: np.ndarray) -> np.ndarray:
    """The largest range of run means under every assignment of each query's values to the runs
    (R!^Q of them, all equally likely under the null): the exact permutation distribution."""
    runs = values.shape[1]
    orders = list(itertools.permutations(range(runs)))
    ranges = []
    for chosen in itertools.product(orders, repeat=len(values)):
        means = np.mean([row[list(order)] for row, order in zip(values, chosen)], axis=0)
        ranges.append(means.max() - means.min())
    return np.array(ranges)


@settings(max_examples=12, deadline=None)
@given(
    rows=st.lists(
        st.lists(st.sampled_from([0.0, 0.25, 0.5, 1.0]), min_size=3, max_size=3),
        min_size=2,
        max_size=4,
    ),
    seed=st.integers(0, 2**32 - 1),
)
def test_tukey_hsd_p_values_are_the_exact_permutation_test_within_monte_carlo_error(
    rows, seed
) -> None:
    """Three runs, up to 4 queries with ties and constant rows: each pair's p against the exact
    share of the 6^Q assignments whose largest range reaches the pair's difference, within 5
    Monte Carlo standard errors (+ the 1 / (B + 1) of the observed arrangement)."""
    values = np.array(rows)
    every = _every_permutation_range(values)
    result = tukey.tukey_hsd(values, n_resamples=20_000, rng=seed)
    means = values.mean(axis=0)
    for i, j in itertools.combinations(range(3), 2):
        exact = float(np.mean(every >= abs(means[i] - means[j]) - 1e-12))
        error = 5 * math.sqrt(exact * (1 - exact) / 20_000) + 1 / 20_001
        assert result.pvalue[i, j] == pytest.approx(exact, abs=error), (i, j)


def test_tukey_hsd_stops_once_every_verdict_is_settled_and_says_so() -> None:
    """Runs far apart or together: the verdicts at alpha are settled at the first look (1,000
    resamples), the same as after 10,000; a pair sitting on alpha keeps it resampling to the end."""
    rng = np.random.default_rng(4)
    base = rng.random((300, 1))
    clear = base + np.array([0.0, 0.0, 0.3, 0.3]) + 0.05 * rng.standard_normal((300, 4))
    told: list[int] = []
    early = tukey.tukey_hsd(clear, n_resamples=10_000, rng=1, alpha=0.05, progress=told.append)
    full = tukey.tukey_hsd(clear, n_resamples=10_000, rng=1)
    assert early.stopped_early and early.n_resamples < 2_000 and sum(told) == early.n_resamples
    assert full.n_resamples == 10_000 and not full.stopped_early
    np.testing.assert_array_equal(early.pvalue < 0.05, full.pvalue < 0.05)
    assert (early.standard_error <= np.sqrt(0.25 / early.n_resamples)).all()
    # a pair whose p is about alpha: no look can settle it
    small = np.c_[base[:40, 0], base[:40, 0] + 0.03 + 0.15 * rng.standard_normal(40)]
    near = tukey.tukey_hsd(small, n_resamples=10_000, rng=1)
    assert 0.01 < near.pvalue[0, 1] < 0.2, near.pvalue  # the case is what it says
    at_alpha = float(near.pvalue[0, 1])
    undecided = tukey.tukey_hsd(small, n_resamples=4_000, rng=1, alpha=at_alpha)
    assert undecided.n_resamples == 4_000 and not undecided.stopped_early


def test_effect_size_and_its_interval() -> None:
    rng = np.random.default_rng(9)
    b = rng.random(400)
    a = b + 0.05 + 0.2 * rng.standard_normal(400)
    d = a - b
    size = effect.effect_size(a, b)
    assert size.value == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-12)
    approx_half = 1.96 * math.sqrt(1 / 400 + size.value**2 / 800)
    assert size.low == pytest.approx(size.value - approx_half, abs=0.01)
    assert size.high == pytest.approx(size.value + approx_half, abs=0.01)
    # the exact interval inverts the noncentral t at the observed t
    t = size.value * math.sqrt(400)
    assert stats.nct.cdf(t, 399, size.low * math.sqrt(400)) == pytest.approx(0.975, abs=1e-9)
    assert math.isnan(effect.effect_size(b + 0.1, b).value)


@pytest.mark.parametrize(("difference", "sd"), [(0.02, 0.1), (0.05, 0.2), (0.1, 0.15), (0.01, 0.3)])
def test_topic_set_size_matches_statsmodels_power(difference, sd) -> None:
    needed = effect.topic_set_size(difference, sd)
    assert needed == math.ceil(
        TTestPower().solve_power(difference / sd, alpha=0.05, power=0.8, alternative="two-sided")
    )
    assert (
        effect.t_test_power(needed, difference / sd)
        >= 0.8
        > effect.t_test_power(needed - 1, difference / sd)
    )


def test_compare_runs_table() -> None:
    rng = np.random.default_rng(10)
    base = rng.random(50)
    matrix = pd.DataFrame(
        {
            "base": base,
            "better": base + 0.2,
            "same": base,
            "noisy": base + 0.05 * rng.standard_normal(50),
        }
    )
    table = pair_tests.compare_runs(matrix, measure="AP", test="t", correction="holm")
    assert list(table.columns) == list(pair_tests.COLUMNS)
    assert list(table.run) == ["better", "same", "noisy"] and set(table.baseline) == {"base"}
    better = table.set_index("run").loc["better"]
    assert better.delta == pytest.approx(0.2) and better.wins == 50 and better.losses == 0
    np.testing.assert_allclose(table.p_adjusted, sg.adjust(table.p_value.to_numpy(), method="holm"))
    noisy = stats.ttest_rel(matrix.noisy, matrix.base)
    assert table.set_index("run").loc["noisy", "p_value"] == pytest.approx(noisy.pvalue, rel=1e-12)
    every = pair_tests.compare_runs(
        matrix, measure="AP", test="tukey", pairs="all", n_resamples=500, rng=1
    )
    assert len(every) == 6 and (every.p_value == every.p_adjusted).all()
    # run - baseline, as every test
    np.testing.assert_allclose(every.statistic, every.delta, rtol=0, atol=1e-15)
    with pytest.raises(ValueError, match="baseline"):
        pair_tests.compare_runs(matrix, measure="AP", baseline="nope")


@pytest.mark.parametrize("zero_method", ["wilcox", "pratt", "zsplit"])
def test_per_group_wilcoxon_keeps_the_zero_method(zero_method) -> None:
    rng = np.random.default_rng(12)
    base = rng.integers(0, 4, 60) / 4  # coarse values: many zero differences
    run = np.where(rng.random(60) < 0.5, base, rng.integers(0, 4, 60) / 4)
    matrix = pd.DataFrame({"base": base, "run": run}, index=[f"q{i}" for i in range(60)])
    groups = pd.Series(["a", "b", "c"] * 20, index=matrix.index)
    table = verdicts.compare_by_group(
        matrix,
        groups,
        measure="AP",
        baseline="base",
        test="wilcoxon",
        correction="none",
        zero_method=zero_method,
    )
    for group, p in zip(table.group, table.p_value):
        members = groups[groups == group].index
        expected = stats.wilcoxon(
            matrix.loc[members, "run"], matrix.loc[members, "base"], zero_method=zero_method
        ).pvalue
        assert p == pytest.approx(expected, rel=1e-12)


def test_tukey_intervals_cover_zero_exactly_where_the_pair_is_not_significant() -> None:
    """The simultaneous interval and the family-wise p read the same permutation distribution: an
    interval excludes 0 where the pair's p is below alpha (away from the quantile itself)."""
    rng = np.random.default_rng(11)
    base = rng.random((60, 1))
    matrix = base + np.array([0.0, 0.005, 0.08, 0.2]) + 0.1 * rng.standard_normal((60, 4))
    result = tukey.tukey_hsd(matrix, n_resamples=4000, rng=3)
    low, high = result.confidence_interval(0.95)
    np.testing.assert_allclose(high - result.statistic, result.statistic - low)
    excludes = (low > 0) | (high < 0)
    half = high[0, 1] - result.statistic[0, 1]
    clear = np.abs(np.abs(result.statistic) - half) > 0.01  # pairs not sitting on the quantile
    assert clear.sum() >= 8 and excludes.any() and not excludes.all()
    np.testing.assert_array_equal(excludes[clear], (result.pvalue < 0.05)[clear])
    assert (result.confidence_interval(0.99).high >= high).all()
    with pytest.raises(OptionError):
        result.confidence_interval(1.0)


def test_effect_size_interval_is_its_confidence_interval() -> None:
    rng = np.random.default_rng(12)
    b = rng.random(50)
    size = effect.effect_size(b + 0.03 + 0.1 * rng.standard_normal(50), b, confidence_level=0.9)
    assert size.confidence_interval() == (size.low, size.high) and size.confidence_level == 0.9
    assert size.low < size.value < size.high
