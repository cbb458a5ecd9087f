"""Verdicts of paired tests, their changes, per group, effect sizes and queries needed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

from rankviz.analyses.effect import effect_size, topic_set_size
from rankviz.analyses.significance import (
    adjust,
)
from rankviz.errors import OptionError
from rankviz.settings.significance_settings import TestSettings

if TYPE_CHECKING:
    import pandas as pd

from rankviz.analyses.pair_tests import compare_runs


def verdicts(
    table: pd.DataFrame, *, alpha: float = 0.05, lower_is_better: frozenset[str] = frozenset()
) -> list[str]:
    """Per row of :func:`compare_runs`: ``better`` / ``worse`` where the adjusted p is below alpha,
    else ``n.s.`` (untested rows, whose p is NaN, are ``n.s.`` too); better is a positive delta,
    or a negative one on the measures in ``lower_is_better`` (a table of one measure without a
    ``measure`` column, per group: all its rows when the set holds that measure)."""
    measures = (
        table["measure"]
        if "measure" in table.columns
        else [next(iter(lower_is_better), "")] * len(table)
    )
    return [
        ("better" if (delta < 0 if measure in lower_is_better else delta > 0) else "worse")
        if p < alpha
        else "n.s."
        for measure, delta, p in zip(measures, table["delta"], table["p_adjusted"])
    ]


def verdict_marks(
    tables: Mapping[str, pd.DataFrame],
    *,
    alpha: float = 0.05,
    lower_is_better: frozenset[str] = frozenset(),
) -> pd.DataFrame:
    """Runs x measures: each run's verdict against the baseline, from one :func:`compare_runs` table
    per measure."""
    import pandas as pd

    return pd.DataFrame(
        {
            name: pd.Series(
                verdicts(table, alpha=alpha, lower_is_better=lower_is_better), index=table["run"]
            )
            for name, table in tables.items()
        }
    )


def beaten(
    table: pd.DataFrame, *, alpha: float = 0.05, lower_is_better: bool = False
) -> dict[str, list[str]]:
    """Per run, the runs it is significantly better than, from one measure's all-pairs table
    (:func:`compare_runs` with ``pairs="all"``: ``baseline``, ``run``, ``delta`` = run minus
    baseline, ``p_adjusted`` over every pair), as ranx's report marks them. Every run is a key."""
    found: dict[str, list[str]] = {}
    for first, second, delta, p in zip(
        table["baseline"], table["run"], table["delta"], table["p_adjusted"], strict=True
    ):
        found.setdefault(first, [])
        found.setdefault(second, [])
        if not p < alpha or delta == 0:  # n.s., no p (a missing value is never a win), no sign
            continue
        second_better = delta < 0 if lower_is_better else delta > 0
        winner, loser = (second, first) if second_better else (first, second)
        found[winner].append(loser)
    return found


MIN_GROUP_QUERIES = 5


def verdict_changes(
    matrices, measure: str, settings: TestSettings | None = None, *, rng=None
) -> pd.DataFrame:
    """Per run against the baseline: the verdict (better / worse / n.s.) under each variant of the
    values (``matrices``: variant -> queries x runs, e.g. one per tie policy, or both ends of the
    unjudged documents), and ``changes``, True where the variants disagree. Resampling tests reuse
    one seed for every variant, so a change comes from the values, not from other resamples."""
    import pandas as pd

    settings = (settings or TestSettings()).replace(pairs="baseline")
    seed = int(np.random.default_rng(settings.seed if rng is None else rng).integers(2**63))
    columns = {}
    for variant, matrix in matrices.items():
        table = compare_runs(matrix, settings, measure=measure, rng=seed)
        columns[variant] = pd.Series(verdicts(table, alpha=settings.alpha), index=table["run"])
    frame = pd.DataFrame(columns)
    frame["changes"] = frame.nunique(axis=1) > 1
    return frame


def compare_by_group(
    matrix: pd.DataFrame,
    groups: pd.Series,
    settings: TestSettings | None = None,
    *,
    measure: str,
    rng: np.random.Generator | int | None = None,
    min_queries: int = MIN_GROUP_QUERIES,
    **options,
) -> pd.DataFrame:
    """Each run against the baseline within each group; p adjusted across the groups of each run.

    Groups with fewer than ``min_queries`` queries are not tested: their p is NaN and ``note`` says
    so. Tukey HSD is not offered here (it is a test over runs, not over groups); use t or another
    paired test.
    """
    import pandas as pd

    settings = (settings or TestSettings()).replace(**options)
    if settings.test == "tukey":
        raise OptionError(
            "per-group comparisons use a paired test (t, wilcoxon, sign, randomization, bootstrap)"
        )
    baseline = settings.baseline or matrix.columns[0]
    by = groups.reindex(matrix.index)
    seed = int(np.random.default_rng(settings.seed if rng is None else rng).integers(2**63))
    frames = []
    for group, part in matrix.groupby(by, sort=True):
        if len(part) < min_queries:
            runs = [r for r in matrix.columns if r != baseline]
            frames.append(
                pd.DataFrame(
                    {
                        "group": group,
                        "run": runs,
                        "n": len(part),
                        "delta": [part[r].mean() - part[baseline].mean() for r in runs],
                    }
                ).assign(p_value=np.nan, note=f"too few queries for a test (< {min_queries})")
            )
            continue
        table = compare_runs(
            part,
            settings,
            measure=measure,
            rng=seed,
            baseline=baseline,
            correction="none",
            pairs="baseline",
        )
        frames.append(table[["run", "n", "delta", "p_value"]].assign(group=group, note=""))
    result = pd.concat(frames, ignore_index=True)[["group", "run", "n", "delta", "p_value", "note"]]
    result["p_adjusted"] = np.nan
    for _, rows in result.groupby("run"):
        tested = rows.index[rows["p_value"].notna()]
        result.loc[tested, "p_adjusted"] = adjust(
            result.loc[tested, "p_value"].to_numpy(), method=settings.correction
        )
    return result


def effect_sizes(
    matrix: pd.DataFrame, baseline: str, *, confidence_level: float = 0.95
) -> pd.DataFrame:
    """Per run: d_z against the baseline with its interval (``effect_size``, ``effect_low``,
    ``effect_high``)."""
    import pandas as pd

    rows = {}
    for run in matrix.columns:
        if run != baseline:
            both = matrix[[baseline, run]].dropna()  # missing="skip": the queries both runs answer
            if len(both) < 2:
                rows[run] = {"effect_size": np.nan, "effect_low": np.nan, "effect_high": np.nan}
                continue
            size = effect_size(both[run], both[baseline], confidence_level=confidence_level)
            rows[run] = {
                "effect_size": size.value,
                "effect_low": size.low,
                "effect_high": size.high,
            }
    return pd.DataFrame.from_dict(rows, orient="index")


def queries_needed(
    matrix: pd.DataFrame,
    baseline: str,
    difference: float,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
) -> pd.Series:
    """Per run: the topic set size (:func:`topic_set_size`) to detect ``difference`` with the paired
    t-test, from the standard deviation of this run's differences from the baseline."""
    import pandas as pd

    needed = {}
    for run in matrix.columns:
        if run != baseline:
            sd = float((matrix[run] - matrix[baseline]).std(ddof=1))
            needed[run] = (
                topic_set_size(difference, sd, alpha=alpha, power=power) if sd > 0 else None
            )
    return pd.Series(needed, name="queries needed", dtype="Int64")  # None: no spread (n/a)
