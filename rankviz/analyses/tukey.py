"""The randomised Tukey HSD (Carterette, TOIS 2012; Sakai 2014): one test over all pairs of runs.

Each resample permutes the runs' values independently within every query; a pair's p is (#{resamples
whose largest difference between run means >= |observed difference|} + 1) / (B + 1). The cost is
one random permutation per query and resample, so the permutations are drawn for thousands of
(resample, query) rows at once, by Fisher-Yates swaps over whole columns, and only the queries whose
runs differ are permuted (a query where every run has the same value adds the same to every mean).

With ``alpha``, resampling stops once every pair's verdict is settled: at each look (after 1,000
resamples, then 2,000, 4,000, ...) each pair's p has a 99.9% Clopper-Pearson interval, and when no
interval holds alpha, more resamples would change a verdict with a chance under 1% over the looks
(Bonferroni over the at most ten looks up to a million resamples).
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np
from scipy import stats

from rankviz.analyses.paired import ConfidenceInterval
from rankviz.errors import OptionError
from rankviz.settings.numbers import seeded

#: the first look at the verdicts (the next ones at twice as many resamples), and each look's
#: confidence in its intervals
FIRST_LOOK, LOOK_CONFIDENCE = 1_000, 0.999
#: (resample, query) rows permuted at once: columns of this length stay in the processor's cache
_ROWS_AT_ONCE = 2**16

Progress = Callable[[int], None]  # told the resamples done since its last call


@dataclass(frozen=True)
class TukeyResult:
    """Randomised Tukey HSD over the columns (runs) of a queries x runs matrix.

    ``statistic[i, j]`` is mean(run i) - mean(run j), as ``scipy.stats.tukey_hsd``; ``pvalue[i, j]``
    is family-wise over all pairs, from ``n_resamples`` resamples (fewer than ``requested`` when
    every verdict at ``alpha`` was settled sooner).
    """

    statistic: np.ndarray
    pvalue: np.ndarray
    n_resamples: int
    # the largest range of run means in each resample
    ranges: np.ndarray = field(repr=False, compare=False)
    requested: int = 0
    alpha: float | None = None

    @property
    def standard_error(self) -> np.ndarray:
        """The Monte Carlo standard error of each p-value: sqrt(p (1 - p) / B)."""
        return np.sqrt(self.pvalue * (1 - self.pvalue) / self.n_resamples)

    @property
    def stopped_early(self) -> bool:
        return self.n_resamples < self.requested

    def confidence_interval(self, confidence_level: float = 0.95) -> ConfidenceInterval:
        """Simultaneous intervals of every difference of means: ``statistic`` +- the
        ``confidence_level`` quantile of the permutation distribution of the largest range (the
        randomised counterpart of Tukey's studentized-range interval), so all pairs are covered at
        once."""
        if not 0 < confidence_level < 1:
            raise OptionError("confidence_level must be between 0 and 1")
        half = float(np.quantile(self.ranges, confidence_level))
        return ConfidenceInterval(self.statistic - half, self.statistic + half)


def tukey_hsd(
    matrix,
    *,
    n_resamples: int = 10_000,
    rng: np.random.Generator | int | None = None,
    alpha: float | None = None,
    progress: Progress | None = None,
) -> TukeyResult:
    """Randomised Tukey HSD over the runs (columns) of a queries x runs matrix.

    Parameters
    ----------
    matrix
        Queries x runs values, at least two of each.
    n_resamples
        How many resamples at most (all of them without ``alpha``).
    rng
        A seed or Generator: the result depends on it alone (not on the threads that draw).
    alpha
        Stop once every pair's verdict at this level is settled (see the module's text).
    progress
        Told the resamples drawn as they are.

    Returns
    -------
    TukeyResult
    """
    values = np.asarray(matrix, dtype=np.float64)
    if values.ndim != 2 or values.shape[1] < 2 or values.shape[0] < 2:
        raise OptionError(
            "Tukey HSD needs a queries x runs matrix with at least two runs and two queries"
        )
    means = values.mean(0)
    observed = means[:, None] - means[None, :]
    distance = np.abs(observed) - np.abs(np.finfo(np.float64).eps * 100 * observed)
    varied = values[values.max(1) != values.min(1)]
    per_batch = max(1, _ROWS_AT_ONCE // max(len(varied), 1))
    batches = -(-n_resamples // per_batch)
    children = seeded(rng).spawn(batches)
    sizes = [min(per_batch, n_resamples - k * per_batch) for k in range(batches)]
    found: list[np.ndarray] = []
    done = 0
    with ThreadPoolExecutor(max_workers=2) as pool:
        for start in range(0, batches, 2):
            drawn = list(
                pool.map(
                    lambda k: _largest_ranges(varied, sizes[k], children[k], len(values)),
                    range(start, min(start + 2, batches)),
                )
            )
            found += drawn
            before, done = done, done + sum(map(len, drawn))
            if progress is not None:
                progress(done - before)
            if alpha is not None and done < n_resamples and _looked_at(before, done):
                if _settled(np.concatenate(found), distance, alpha):
                    break
    ranges = np.concatenate(found)
    pvalue = (_at_least(ranges, distance) + 1) / (len(ranges) + 1)
    return TukeyResult(observed, pvalue, len(ranges), ranges, n_resamples, alpha)


def _largest_ranges(
    varied: np.ndarray, size: int, generator: np.random.Generator, n_queries: int
) -> np.ndarray:
    """The largest difference between run means in each of ``size`` resamples, each query's values
    permuted among the runs: Fisher-Yates over the columns of a runs x (resample, query) array of
    run indices, position ``i`` taking a uniform one of positions 0..i, one column at a time."""
    queries, runs = varied.shape
    if queries == 0:  # every query gives every run the same value: every resample's range is 0
        return np.zeros(size)
    rows = size * queries
    index_type = np.int8 if runs <= 127 else np.int32
    holder = np.repeat(np.arange(runs, dtype=index_type)[:, None], rows, axis=1)
    flat, across = holder.ravel(), np.arange(rows)
    value_at = np.tile(np.arange(queries) * runs, size)  # each row's query in the values
    varied_flat = varied.ravel()
    sums = np.empty((runs, size))
    for i in range(runs - 1, -1, -1):
        if i:
            at = generator.integers(0, i + 1, size=rows) * rows + across
            chosen = flat[at]
            flat[at] = holder[i]
        else:
            chosen = holder[0]
        sums[i] = varied_flat[value_at + chosen].reshape(size, queries).sum(1)
    return (sums.max(0) - sums.min(0)) / n_queries


def _at_least(ranges: np.ndarray, distance: np.ndarray) -> np.ndarray:
    """How many resampled ranges reach each distance."""
    return len(ranges) - np.searchsorted(np.sort(ranges), distance, side="left")


def _looked_at(before: int, done: int) -> bool:
    """Whether the resamples drawn went past a look (FIRST_LOOK times a power of two) when they
    grew from ``before`` to ``done``."""
    look = FIRST_LOOK
    while look <= done:
        if look > before:
            return True
        look *= 2
    return False


def _settled(ranges: np.ndarray, distance: np.ndarray, alpha: float) -> bool:
    """Whether every pair's p-value interval lies on one side of alpha."""
    n = len(ranges)
    count = _at_least(ranges, distance[np.triu_indices(len(distance), 1)])
    tail = (1 - LOOK_CONFIDENCE) / 2
    low = np.where(count > 0, stats.beta.ppf(tail, np.maximum(count, 1), n - count + 1), 0.0)
    high = np.where(count < n, stats.beta.ppf(1 - tail, count + 1, np.maximum(n - count, 1)), 1.0)
    return bool(np.all((high < alpha) | (low > alpha)))
