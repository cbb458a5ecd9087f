"""Prediction-powered inference (PPI++) of a mean from many LLM-judged queries and a few
human-judged ones.

Every query has a value under the LLM's judgments; a sample of them also has a value under
people's. The LLM's mean over the queries people did not judge, corrected by the mean difference
between people and the LLM where both judged, estimates the mean people would give every query,
whatever the LLM's errors, with an interval that holds when the human-judged queries were drawn at
random (Angelopoulos et al., "Prediction-powered inference", Science 2023). PPI++ (Angelopoulos,
Duchi and Zrnic, arXiv 2311.01453) weighs the LLM's part by a power-tuning parameter estimated
from the data, so the interval is never wider than the human sample's own (up to its
estimation). The arithmetic is ``ppi_py``'s (``ppi_mean_pointestimate``, ``ppi_mean_ci``: the
parameter clipped to [0, 1], the normal interval); ``tests/reference/test_prediction_powered.py``
holds it to ``ppi_py`` on the same values. Oosterhuis et al. (KDD 2024) apply it to IR measures.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from rankviz.errors import OptionError


@dataclass(frozen=True)
class CorrectedMean:
    """A mean corrected by the human-judged queries (scipy's result style).

    ``statistic``: the corrected mean; ``standard_error``: its standard error; ``pvalue``: of the
    two-sided test that the mean is 0 (a paired delta's: that the runs do not differ);
    ``power_tuning``: PPI++'s parameter (0: the human sample alone, 1: plain PPI);
    ``llm_mean``: the LLM's mean over every query, uncorrected; ``correction``: the human-judged
    queries' mean of human minus LLM values (what the LLM gets wrong, on average) and
    ``correction_error`` its standard error; ``human_judged`` and ``llm_only``: the queries with
    both values and those with the LLM's alone; ``confidence``: the interval's level;
    ``degrees_of_freedom``: of the Student t the interval and p-value take (None: the normal, as
    ``ppi_py``); ``spread_judged`` and ``spread_llm_only``: the variances of the human-judged part
    and of the LLM's part per query, whose sum over their counts is the squared standard error
    (NaN where the estimate is not PPI++'s)."""

    statistic: float
    standard_error: float
    pvalue: float
    power_tuning: float
    llm_mean: float
    correction: float
    correction_error: float
    human_judged: int
    llm_only: int
    confidence: float
    degrees_of_freedom: float | None = None
    spread_judged: float = math.nan
    spread_llm_only: float = math.nan

    def queries_for(self, margin: float) -> float:
        """How many human-judged queries would bring the interval's half width down to
        ``margin``, the variances measured so far kept and the LLM's queries as many as now (the
        PPI analogue of a topic set size): infinite when the LLM's part alone is wider, NaN when
        the estimate is not PPI++'s."""
        if not math.isfinite(self.spread_judged):
            return math.nan
        room = (margin / _quantile(self.confidence, self.degrees_of_freedom)) ** 2
        room -= self.spread_llm_only / self.llm_only if self.llm_only else 0.0
        if room <= 0:
            return math.inf
        return float(math.ceil(self.spread_judged / room))

    def confidence_interval(self) -> tuple[float, float]:
        """The interval of the corrected mean at :attr:`confidence` (normal, as ``ppi_py``, or
        Student's t with :attr:`degrees_of_freedom`)."""
        half = _quantile(self.confidence, self.degrees_of_freedom) * self.standard_error
        return self.statistic - half, self.statistic + half

    def correction_interval(self) -> tuple[float, float]:
        """The interval of :attr:`correction` at :attr:`confidence`."""
        half = _quantile(self.confidence, self.degrees_of_freedom) * self.correction_error
        return self.correction - half, self.correction + half


def corrected_mean(
    human: np.ndarray,
    llm_judged: np.ndarray,
    llm_only: np.ndarray,
    *,
    confidence: float = 0.95,
) -> CorrectedMean:
    """The PPI++ estimate of the human mean over every query.

    Parameters
    ----------
    human
        The human-judged queries' values under people's judgments.
    llm_judged
        The same queries' values under the LLM's judgments, in the same order.
    llm_only
        The values under the LLM's judgments of the queries people did not judge.
    confidence
        The interval's level, in (0, 1).

    Returns
    -------
    The :class:`CorrectedMean`.
    """
    y, yhat, unlabeled = (np.asarray(a, dtype=np.float64) for a in (human, llm_judged, llm_only))
    if y.shape != yhat.shape:
        raise ValueError("human and llm_judged hold the values of the same queries")
    if not 0 < confidence < 1:
        raise OptionError(f"--confidence is a level between 0 and 1, not {confidence}")
    n, big_n = len(y), len(unlabeled)
    if n < 2:
        raise OptionError(
            f"a correction needs at least 2 human-judged queries among the LLM's; {n} found"
        )
    everything = np.concatenate([yhat, unlabeled])
    difference = y - yhat
    lam = _power_tuning(y, yhat, unlabeled) if big_n else 0.0
    rectifier = y - lam * yhat
    imputed = lam * unlabeled
    estimate = (imputed.mean() if big_n else 0.0) + rectifier.mean()
    spread_judged, spread_llm_only = float(rectifier.var()), float(imputed.var()) if big_n else 0.0
    variance = spread_judged / n + (spread_llm_only / big_n if big_n else 0.0)
    error = float(np.sqrt(variance))
    # 2 * the normal's tail; an error below 1e-16 counts as 1e-16, as in ppi_py (a difference
    # of the last bits of the values is no evidence)
    pvalue = math.erfc(abs(estimate) / max(error, 1e-16) / math.sqrt(2))
    return CorrectedMean(
        statistic=float(estimate),
        standard_error=error,
        pvalue=pvalue,
        power_tuning=float(lam),
        llm_mean=float(everything.mean()),
        correction=float(difference.mean()),
        correction_error=float(difference.std(ddof=1) / np.sqrt(n)),
        human_judged=n,
        llm_only=big_n,
        confidence=confidence,
        spread_judged=spread_judged,
        spread_llm_only=spread_llm_only,
    )


def _power_tuning(y: np.ndarray, yhat: np.ndarray, unlabeled: np.ndarray) -> float:
    """PPI++'s parameter as ``ppi_py`` estimates it for a mean (``_calc_lam_glm`` with an identity
    Hessian, clipped to [0, 1]); 0 (the human sample alone) where the LLM's values do not vary."""
    n, big_n = len(y), len(unlabeled)
    first = unlabeled.mean() + (y - yhat).mean()  # plain PPI's estimate, where the gradients are
    grads, grads_hat = y - first, yhat - first
    covariance = 2 * np.dot(grads - grads.mean(), grads_hat - grads_hat.mean()) / n
    spread = np.var(np.concatenate([grads_hat, unlabeled - first]), ddof=1)
    if spread == 0:
        return 0.0
    return float(np.clip(covariance / (2 * (1 + n / big_n) * spread), 0, 1))


def _quantile(confidence: float, degrees_of_freedom: float | None) -> float:
    """The two-sided interval's quantile: the normal's, or Student's t with these degrees."""
    if degrees_of_freedom is None:
        return NormalDist().inv_cdf(1 - (1 - confidence) / 2)
    from scipy import stats  # a draw by uncertainty alone: not on evaluate's road

    return float(stats.t.ppf(1 - (1 - confidence) / 2, degrees_of_freedom))


def drawn_corrected_mean(
    human: np.ndarray,
    llm_drawn: np.ndarray,
    probabilities: np.ndarray,
    llm_all: np.ndarray,
    *,
    confidence: float = 0.95,
) -> CorrectedMean:
    """The mean people would give every query, from the LLM's values of all of them and people's
    of the queries drawn each with its own probability (Poisson sampling, a draw by uncertainty):
    the LLM's mean plus each drawn query's difference weighted by the inverse of its probability
    (Horvitz-Thompson's difference estimator, unbiased for the mean over these queries), with
    Student's t interval (n - 1 degrees) of its variance under that sampling.

    Parameters
    ----------
    human, llm_drawn, probabilities
        People's values, the LLM's and the chance to be drawn of each drawn query people judged.
    llm_all
        The LLM's values of every query (the drawn ones included).
    confidence
        The interval's level, in (0, 1).
    """
    y, yhat, chance, everything = (
        np.asarray(a, dtype=np.float64) for a in (human, llm_drawn, probabilities, llm_all)
    )
    if not 0 < confidence < 1:
        raise OptionError(f"--confidence is a level between 0 and 1, not {confidence}")
    n, size = len(y), len(everything)
    if n < 2:
        raise OptionError(f"a correction needs at least 2 human-judged queries; {n} drawn")
    difference = y - yhat
    estimate = everything.mean() + (difference / chance).sum() / size
    error = float(np.sqrt(((1 - chance) / chance**2 * difference**2).sum()) / size)
    weighted = (difference / chance).sum() / (1 / chance).sum()  # the draw's mean difference
    spread = np.sqrt(((1 - chance) / chance**2 * (difference - weighted) ** 2).sum())
    from scipy import stats  # a draw by uncertainty alone: not on evaluate's road

    # Student's t on n - 1 degrees: the normal's interval held 93.4-94.6% in simulation (40 of
    # 400 queries drawn), the t's 94.0-95.4% (tests/reference/test_query_draw.py)
    pvalue = 2 * stats.t.sf(abs(estimate) / max(error, 1e-16), n - 1)
    return CorrectedMean(
        statistic=float(estimate),
        standard_error=error,
        pvalue=float(pvalue),
        power_tuning=1.0,
        llm_mean=float(everything.mean()),
        correction=float(weighted),
        correction_error=float(spread / (1 / chance).sum()),
        human_judged=n,
        llm_only=size - n,
        confidence=confidence,
        degrees_of_freedom=n - 1,
    )
