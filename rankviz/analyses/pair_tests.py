"""Every run against a baseline (or every pair) on one measure: the table of paired tests."""

from __future__ import annotations

from itertools import combinations
from typing import TYPE_CHECKING

import numpy as np

from rankviz.analyses.effect import effect_size
from rankviz.analyses.paired import t_interval
from rankviz.analyses.significance import adjust, run_test
from rankviz.analyses.tukey import tukey_hsd
from rankviz.errors import OptionError
from rankviz.settings.numbers import seeded
from rankviz.settings.significance_settings import TestSettings

if TYPE_CHECKING:
    import pandas as pd


COLUMNS = (
    "baseline",
    "run",
    "measure",
    "test",
    "n",
    "mean_baseline",
    "mean_run",
    "delta",
    "statistic",
    "p_value",
    "p_adjusted",
    "ci_low",
    "ci_high",
    "effect_size",
    "wins",
    "ties",
    "losses",
)


def compare_runs(
    matrix: pd.DataFrame,
    settings: TestSettings | None = None,
    *,
    measure: str,
    rng: np.random.Generator | int | None = None,
    **options,
) -> pd.DataFrame:
    """Significance of every comparison in a queries x runs matrix, one row per (baseline, run)
    pair.

    ``settings`` (or keyword options: ``test``, ``correction``, ``pairs``, ``baseline``, ...):
    ``pairs="baseline"`` tests the baseline (first column unless named) against each other run,
    ``"all"`` every pair; ``correction`` adjusts the p-values over those comparisons; ``tukey`` is
    itself family-wise over all pairs, so its p-values are reported as both p and adjusted p.
    ``rng`` (default: the settings' seed) draws the resamples. Columns: :data:`COLUMNS`;
    ``delta`` = mean_run - mean_baseline, and every statistic is signed the same way.
    """
    import pandas as pd

    settings = (settings or TestSettings()).replace(**options)
    test, correction, n_resamples = settings.test, settings.correction, settings.n_resamples
    rng = np.random.default_rng(settings.seed) if rng is None else rng  # None: fresh, as asked
    runs = list(matrix.columns)
    baseline = runs[0] if settings.baseline is None else settings.baseline
    if baseline not in runs:
        raise OptionError(f"baseline {baseline!r} is not among the runs ({', '.join(runs)})")
    compared = (
        [(baseline, r) for r in runs if r != baseline]
        if settings.pairs == "baseline"
        else list(combinations(runs, 2))
    )
    if not compared:
        return pd.DataFrame(columns=COLUMNS)
    if matrix.isna().to_numpy().any():
        if test != "tukey":
            return _pair_by_pair(matrix, compared, settings, measure=measure, rng=rng)
        # Tukey HSD compares every run at once: the queries every run answers
        matrix = matrix.dropna()
    values = matrix.to_numpy(dtype=np.float64)
    left = values[:, [runs.index(x) for x, _ in compared]].T
    right = values[:, [runs.index(y) for _, y in compared]].T
    # no paired test has a distribution with fewer than two queries: untested (p NaN)
    if values.shape[0] < 2:
        nothing = np.full(len(compared), np.nan)
        statistic = pvalue = adjusted = nothing
        low: np.ndarray | float = nothing
        high: np.ndarray | float = nothing
    elif test == "tukey":
        tukey = tukey_hsd(values, n_resamples=n_resamples, rng=rng)
        # run - baseline
        statistic = np.array([tukey.statistic[runs.index(y), runs.index(x)] for x, y in compared])
        pvalue = np.array([tukey.pvalue[runs.index(x), runs.index(y)] for x, y in compared])
        adjusted = pvalue
        low, high = t_interval(right - left)(settings.confidence_level)
    else:
        result = run_test(
            test,
            right,
            left,
            alternative=settings.alternative,
            n_resamples=n_resamples,
            rng=rng,
            zero_method=settings.zero_method,
        )
        statistic, pvalue = np.atleast_1d(result.statistic), np.atleast_1d(result.pvalue)
        adjusted = adjust(pvalue, method=correction)
        low, high = result.confidence_interval(settings.confidence_level)
    d = right - left
    return pd.DataFrame(
        {
            "baseline": [x for x, _ in compared],
            "run": [y for _, y in compared],
            "measure": measure,
            "test": test,
            "n": values.shape[0],
            "mean_baseline": _means(left),
            "mean_run": _means(right),
            "delta": _means(d),
            "statistic": statistic,
            "p_value": pvalue,
            "p_adjusted": adjusted,
            "ci_low": np.atleast_1d(low),
            "ci_high": np.atleast_1d(high),
            "effect_size": [
                effect_size(run, base, confidence_level=settings.confidence_level).value
                if len(run) > 1
                else np.nan
                for run, base in zip(right, left)
            ],
            "wins": (d > 0).sum(1),
            "ties": (d == 0).sum(1),
            "losses": (d < 0).sum(1),
        },
        columns=COLUMNS,
    )


def _pair_by_pair(
    matrix: pd.DataFrame,
    compared: list[tuple[str, str]],
    settings: TestSettings,
    *,
    measure: str,
    rng,
) -> pd.DataFrame:
    """Each pair on the queries both its runs answer (``missing="skip"``), so that naming another
    run never changes a pair's test; the correction then runs over the pairs' p-values."""
    import pandas as pd

    generator = seeded(rng)
    one = settings.replace(correction="none", pairs="baseline")
    rows = []
    for baseline, run in compared:
        both = matrix[[baseline, run]].dropna()
        if len(both) == 0:
            rows.append(
                pd.DataFrame(
                    {
                        "baseline": [baseline],
                        "run": [run],
                        "measure": measure,
                        "test": settings.test,
                        "n": 0,
                    },
                    columns=COLUMNS,
                )
            )
            continue
        rows.append(compare_runs(both, one, measure=measure, rng=generator, baseline=baseline))
    table = pd.concat(rows, ignore_index=True)
    tested = table["p_value"].notna().to_numpy()
    table["p_adjusted"] = np.nan
    table.loc[tested, "p_adjusted"] = adjust(
        table.loc[tested, "p_value"].to_numpy(dtype=np.float64), method=settings.correction
    )
    return table


def _means(values: np.ndarray) -> np.ndarray:
    """Each row's mean; NaN without a query (a run without a score for the measure)."""
    return values.mean(1) if values.shape[1] else np.full(values.shape[0], np.nan)
