"""The corrected means are ppi_py's (PPI++ on the same per-query values, to 1e-9), and their
intervals hold: over many random draws of the human-judged queries, the 95% interval holds the
mean people would give every query in about 95% of draws, narrower on average than the interval
of the human sample alone."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from rankviz.analyses.prediction_powered import corrected_mean

values = st.lists(st.floats(0, 1, allow_nan=False), min_size=3, max_size=40)


@given(values, values, st.data(), st.sampled_from([0.9, 0.95, 0.99]))
def test_the_estimate_interval_and_p_value_are_ppi_pys(human, unlabeled, data, confidence):
    # numba and scikit-learn: 2 s to import, so only where a test asks
    from ppi_py import ppi_mean_ci, ppi_mean_pointestimate, ppi_mean_pval

    llm = data.draw(st.lists(st.floats(0, 1), min_size=len(human), max_size=len(human)))
    y, yhat, rest = np.array(human), np.array(llm), np.array(unlabeled)
    ours = corrected_mean(y, yhat, rest, confidence=confidence)
    with np.errstate(divide="ignore", invalid="ignore"):  # nan where ppi_py divides by zero
        expected = ppi_mean_pointestimate(y, yhat, rest).item()
    # LLM values that do not vary once centred (exactly, or by less than a float can tell from the
    # estimate they are centred on: 1e-74 beside 1/3): ppi_py divides by zero, rankviz keeps the
    # human sample alone
    if np.isnan(expected):
        assert ours.power_tuning == 0 and ours.statistic == pytest.approx(y.mean())
        return
    assert ours.statistic == pytest.approx(expected, abs=1e-9)
    low, high = ppi_mean_ci(y, yhat, rest, alpha=1 - confidence)
    assert ours.confidence_interval() == pytest.approx((low.item(), high.item()), abs=1e-9)
    # ppi_py's p-value does not clip the parameter: given rankviz's, it is the same test
    pvalue = ppi_mean_pval(y, yhat, rest, lam=ours.power_tuning)
    assert ours.pvalue == pytest.approx(np.asarray(pvalue).item(), abs=1e-9)
    assert 0 <= ours.power_tuning <= 1


def test_llm_values_that_vary_less_than_a_float_can_tell_are_constant() -> None:
    """Found by the test above: LLM values 0, 0, 1e-74 (a spread of 2e-150) centred on 1/3 vary
    not at all; ppi_py divides by that zero (nan), rankviz keeps the human sample alone."""
    from ppi_py import ppi_mean_pointestimate

    y, yhat, rest = np.array([0.0, 0.0, 1.0]), np.array([0.0, 0.0, 1.2367e-74]), np.zeros(3)
    with np.errstate(divide="ignore", invalid="ignore"):
        assert np.isnan(ppi_mean_pointestimate(y, yhat, rest).item())
    ours = corrected_mean(y, yhat, rest)
    assert ours.power_tuning == 0 and ours.statistic == pytest.approx(1 / 3)


def test_an_llm_that_knows_nothing_leaves_the_human_sample_alone() -> None:
    """With LLM values unrelated to people's, PPI++ tunes the LLM's part (nearly) away: the
    estimate is about the human sample's mean, the interval about its own."""
    rng = np.random.default_rng(0)
    y = rng.random(200)
    ours = corrected_mean(y, rng.random(200), rng.random(2000))
    assert ours.power_tuning < 0.15
    assert ours.statistic == pytest.approx(y.mean(), abs=0.02)


def test_a_constant_llm_is_the_human_sample_alone() -> None:
    y = np.array([0.2, 0.4, 0.9, 0.1])
    ours = corrected_mean(y, np.full(4, 0.5), np.full(10, 0.5))
    assert ours.power_tuning == 0 and ours.statistic == pytest.approx(y.mean())
    assert ours.correction == pytest.approx(y.mean() - 0.5)


def _judged_twice(rng: np.random.Generator, size: int) -> tuple[np.ndarray, np.ndarray]:
    """People's values of two runs on ``size`` queries (the second a little better) and an LLM's:
    correlated, lenient (about 0.1 higher, as UMBRELA is against NIST's assessors) and noisy,
    clipped to [0, 1]; shaped (2, size) each."""
    first = rng.beta(2, 3, size)
    human = np.stack([first, np.clip(first + rng.normal(0.03, 0.1, size), 0, 1)])
    llm = np.clip(0.8 * human + 0.18 + rng.normal(0, 0.12, human.shape), 0, 1)
    return human, llm


@pytest.mark.slow
@pytest.mark.parametrize("paired", [False, True])
def test_the_95_percent_interval_holds_the_human_mean_in_95_percent_of_draws(paired) -> None:
    """2,000 draws of 40 human-judged queries among 400: the interval holds the mean of people's
    values over all 400 queries in about 95% of draws (asked: 93% to 98%; the binomial sd is
    0.5%, and the mean of a finite set of queries is a little easier to hold than a population's)
    and is narrower on average than the normal interval of the 40 alone; the same for the paired
    delta of two runs."""
    rng = np.random.default_rng(20261206)
    size, judged, draws = 400, 40, 2000
    held = widths = classical = 0.0
    for _ in range(draws):
        both_human, both_llm = _judged_twice(rng, size)
        human, llm = (
            (both_human[1] - both_human[0], both_llm[1] - both_llm[0])
            if paired
            else (both_human[0], both_llm[0])
        )
        truth = human.mean()
        sample = rng.choice(size, judged, replace=False)
        rest = np.setdiff1d(np.arange(size), sample)
        ours = corrected_mean(human[sample], llm[sample], llm[rest])
        low, high = ours.confidence_interval()
        held += low <= truth <= high
        widths += high - low
        classical += 2 * 1.96 * human[sample].std(ddof=1) / np.sqrt(judged)
    print(f"held {held / draws:.3f}, mean width {widths / draws:.4f} vs {classical / draws:.4f}")
    assert 0.93 <= held / draws <= 0.98
    assert widths < classical


def test_the_queries_for_a_margin_are_the_ones_that_give_it() -> None:
    """Asked for the half width the interval has now, the human-judged queries needed are the
    ones judged now (one more where the last bit rounds up); a margin the LLM's part alone
    exceeds is never reached; and a smaller margin asks for more."""
    rng = np.random.default_rng(1)
    human = rng.random(50)
    ours = corrected_mean(human, np.clip(human + rng.normal(0, 0.2, 50), 0, 1), rng.random(400))
    low, high = ours.confidence_interval()
    assert ours.queries_for((high - low) / 2) in (50, 51)
    assert ours.queries_for((high - low) / 4) > 150
    assert ours.queries_for(1e-6) == float("inf")
