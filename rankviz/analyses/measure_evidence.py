"""The evidence of metric choice: how measures agree, discriminate, swap, move with a parameter."""

from __future__ import annotations

from collections.abc import Mapping
from itertools import combinations

import numpy as np
import pandas as pd
from scipy import stats

from rankviz.analyses.pair_tests import compare_runs
from rankviz.errors import OptionError
from rankviz.evaluation.evaluate import evaluate_tables
from rankviz.evaluation.result import Evaluation
from rankviz.measures import Measure, make
from rankviz.ranking.ranking_table import RankingTable
from rankviz.settings.eval_settings import EvalSettings
from rankviz.settings.numbers import decided_signs, seeded
from rankviz.settings.significance_settings import TestSettings


def tau_ap(x, y) -> float:
    """AP rank correlation with ties, tau_AP_b (Urbano & Marrero, ICTIR 2017): the mean of the two
    one-way coefficients, each taking one vector as the reference ordering. Without ties it is the
    symmetric tau_AP of Yilmaz, Aslam & Robertson (SIGIR 2008): like Kendall's tau in [-1, 1], but a
    swap near the top costs more than one near the bottom. With ties (runs of equal means) it does
    not depend on the order the items are listed in, as TREC AutoJudge's evaluation reads it:
    NaN where either vector ties every item."""
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if len(x) < 2:
        return float("nan")
    return float((_tau_ap_b_one_way(x, y) + _tau_ap_b_one_way(y, x)) / 2)


def _tau_ap_b_one_way(x: np.ndarray, reference: np.ndarray) -> float:
    """Each item the reference ranks below another (a pivot): the share of the items strictly above
    it in the reference that ``x`` also places strictly above it; 2 * the mean share - 1."""
    # above[i, j]: j strictly above i in the reference
    above = reference[None, :] > reference[:, None]
    placed = above.sum(axis=1)
    pivots = placed > 0
    if not pivots.any():
        return float("nan")
    agreeing = (above & (x[None, :] > x[:, None])).sum(axis=1)
    return 2 * float(np.mean(agreeing[pivots] / placed[pivots])) - 1


def agreement(means: pd.DataFrame, *, method: str = "kendall") -> pd.DataFrame:
    """Measures x measures correlation of the run orderings: ``kendall``
    (``scipy.stats.kendalltau``, tau-b) or ``tau_ap``. NaN where a measure gives every run the same
    mean."""
    columns = list(means.columns)
    result = pd.DataFrame(np.eye(len(columns)), index=columns, columns=columns)
    for a, b in combinations(columns, 2):
        if method == "kendall":
            value = stats.kendalltau(means[a], means[b]).statistic
        elif method == "tau_ap":
            value = tau_ap(means[a], means[b])
        else:
            raise OptionError("method must be 'kendall' or 'tau_ap'")
        result.loc[a, b] = result.loc[b, a] = value
    return result


def discriminative_power(
    matrices: Mapping[str, pd.DataFrame],
    *,
    test: str = "tukey",
    alpha: float = 0.05,
    n_resamples: int = 1000,
    rng: np.random.Generator | int | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per measure, the share of run pairs whose difference is significant at ``alpha``
    (randomised Tukey HSD by default, or any test of
    :func:`~rankviz.analyses.pair_tests.compare_runs` with Holm's correction over the pairs), and
    the achieved significance level of every pair.

    Returns ``(summary, asl)``: summary has ``pairs``, ``significant``, ``power`` per measure; asl
    has
    ``measure``, ``pair rank`` (1 = most significant) and ``p`` (sorted ascending), the ASL curve.
    """
    generator = seeded(rng)
    settings = TestSettings(test=test, correction="holm", pairs="all", n_resamples=n_resamples)
    rows, curves = [], []
    for measure, matrix in matrices.items():
        table = compare_runs(matrix, settings, measure=measure, rng=generator)
        p = np.sort(table["p_adjusted"].to_numpy())
        significant = int((p < alpha).sum())
        rows.append(
            {
                "measure": measure,
                "pairs": len(p),
                "significant": significant,
                "power": significant / len(p) if len(p) else 0.0,
            }
        )
        curves.append(
            pd.DataFrame({"measure": measure, "pair rank": np.arange(1, len(p) + 1), "p": p})
        )
    summary = pd.DataFrame(rows).set_index("measure")
    return summary, pd.concat(curves, ignore_index=True) if curves else pd.DataFrame(
        columns=["measure", "pair rank", "p"]
    )


def swap_rate(
    matrix: pd.DataFrame, *, trials: int = 1000, rng: np.random.Generator | int | None = None
) -> float:
    """Share of (trial, run pair) where the two runs' order differs between two disjoint random
    halves of the queries (pairs tied in either half count as not swapped). 0 with fewer than two
    runs."""
    values = matrix.to_numpy(dtype=np.float64)
    n, runs = values.shape
    if runs < 2 or n < 2:
        return 0.0
    generator = seeded(rng)
    half = n // 2
    order = np.argsort(generator.random((trials, n)), axis=1)
    first = np.zeros((trials, n))
    second = np.zeros((trials, n))
    np.put_along_axis(first, order[:, :half], 1.0 / half, axis=1)
    np.put_along_axis(second, order[:, half : 2 * half], 1.0 / half, axis=1)
    left, right = np.triu_indices(runs, 1)
    magnitudes = np.abs(values)

    def signs(half_weights: np.ndarray) -> np.ndarray:
        # a matrix product's last bits depend on the BLAS kernel: two half-means equal to the
        # last bits are tied, on every CPU
        means, sizes = half_weights @ values, half_weights @ magnitudes
        return decided_signs(means[:, left] - means[:, right], sizes[:, left] + sizes[:, right])

    return float(np.mean(signs(first) * signs(second) < 0))


def swap_rates(
    matrices: Mapping[str, pd.DataFrame],
    *,
    trials: int = 1000,
    rng: np.random.Generator | int | None = None,
) -> pd.Series:
    """:func:`swap_rate` of every measure, on the same random halves."""
    seed = int(seeded(rng).integers(2**63))
    return pd.Series(
        {
            measure: swap_rate(matrix, trials=trials, rng=seed)
            for measure, matrix in matrices.items()
        },
        name="swap rate",
    )


def parameter_sensitivity(
    tables: Mapping[str, RankingTable],
    measures: list[Measure],
    settings: EvalSettings,
    *,
    top_grade: int,
    **aggregation,
) -> pd.DataFrame:
    """How a measure's ordering of the runs moves with its parameters: Kendall's tau between the run
    means at the measure's ``rel`` and at ``rel + 1`` (binary measures), and for ERR between its
    ``gmax`` and ``gmax + 1``. NaN where the measure has no such parameter or the change is
    impossible."""
    rows = []
    for measure in measures:
        params = {p.name for p in measure.family.params}
        row = {"measure": str(measure), "threshold tau": np.nan, "gmax tau": np.nan}
        if "rel" in params and (rel := int(measure.number("rel"))) + 1 <= top_grade:
            row["threshold tau"] = _ordering_tau(
                tables, measure, "rel", rel + 1, settings, aggregation
            )
        if "gmax" in params:
            row["gmax tau"] = _ordering_tau(
                tables, measure, "gmax", int(measure.number("gmax")) + 1, settings, aggregation
            )
        rows.append(row)
    return pd.DataFrame(rows).set_index("measure")


def _ordering_tau(
    tables, measure: Measure, param: str, value: int, settings: EvalSettings, aggregation: dict
) -> float:
    if len(tables) < 2:
        return float("nan")
    changed = make(measure.name, measure.cutoff, **{**dict(measure.params), param: value})
    means = evaluate_tables(tables, [measure, changed], settings, **aggregation).means()
    return float(stats.kendalltau(means[str(measure)], means[str(changed)]).statistic)


def tie_widths(pessimistic: Evaluation, optimistic: Evaluation) -> pd.Series:
    """Per measure, the largest optimistic - pessimistic mean over the runs: how far ties alone can
    move a run."""
    return (optimistic.means() - pessimistic.means()).max().rename("tie width")
