"""How far a number can move with a convention nobody can settle from the data: the shared analysis
behind the tie report (the order of equal scores) and the unjudged report (the grade of documents
nobody judged).

Each compares a few *variants* of every evaluation (tie policies; unjudged documents not relevant or
judged at a grade): each run's mean under each variant, the worst and the best of them, how far
apart they are, the pairs of runs whose order can flip, and the significance verdicts that change.
A :class:`Variants` value says which variants there are and which of them bound the others; the
two reports differ only in it and in what else they list.

Documented columns, shared by the CLI's JSON and TSV, the app's tables and the plots:

- ``means``: one row per run; a column per variant, then ``low`` and ``high`` (when the variants
  themselves are not the bounds), and ``width``: how far the variants move the mean (best - worst,
  in the direction of better);
- ``pairs``: ``baseline``, ``run``, ``delta <variant>`` (run - baseline under each variant),
  ``flips_between_<kind>`` (the sign differs between variants), ``can_flip`` (the worse run's best
  reaches the better run's worst: a bound, each run's variants taken independently);
- ``verdicts``: one row per run but the baseline; a column per variant (``better``, ``worse`` or
  ``n.s.`` against the baseline) and ``changes``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd

from rankviz.evaluation.result import Evaluation
from rankviz.settings.significance_settings import TestSettings


@dataclass(frozen=True)
class Variants:
    """The variants an analysis compares: ``names`` in the order shown, ``reference`` the usual
    number's, ``kind`` what they are ("policies", "ends"), and ``bounds`` the (worst, best) pair of
    variants that bound every other, or None when each run's worst and best are its lowest and
    highest variant (then shown as ``low`` and ``high``)."""

    names: tuple[str, ...]
    reference: str
    kind: str
    bounds: tuple[str, str] | None = None

    def present(self, columns) -> list[str]:
        return [name for name in self.names if name in columns]


def higher_is_better(evaluations: Mapping[str, Evaluation], measure: str) -> bool:
    """Whether a higher value of ``measure`` is better (not for RBP's residual), from its spec."""
    return next(
        m for m in next(iter(evaluations.values())).measures if str(m) == measure
    ).higher_is_better


def worst_and_best(
    frame: pd.DataFrame, variants: Variants, higher: bool
) -> tuple[pd.Series, pd.Series]:
    """Each row's worst and best value over the variants (in the direction of better)."""
    if variants.bounds is not None:
        worst, best = variants.bounds
        return frame[worst], frame[best]
    values = frame[variants.present(frame.columns)]
    low, high = values.min(axis=1), values.max(axis=1)
    return (low, high) if higher else (high, low)


def means_table(
    evaluations: Mapping[str, Evaluation], measure: str, variants: Variants
) -> pd.DataFrame:
    """Runs x variants means (each under its evaluation's aggregate), the bounds, and ``width``."""
    return with_width(
        pd.DataFrame({v: evaluations[v].means()[measure] for v in variants.present(evaluations)}),
        variants,
        higher_is_better(evaluations, measure),
    )


def with_width(frame: pd.DataFrame, variants: Variants, higher: bool) -> pd.DataFrame:
    """The frame with ``low`` and ``high`` (unless the variants are the bounds) and ``width`` = best
    - worst."""
    worst, best = worst_and_best(frame, variants, higher)
    frame = frame.copy()
    if variants.bounds is None:
        frame["low"], frame["high"] = (worst, best) if higher else (best, worst)
    frame["width"] = (best - worst) * (1 if higher else -1)
    return frame


def per_query(
    evaluations: Mapping[str, Evaluation],
    measure: str,
    run: str,
    variants: Variants,
    *,
    limit: int = 10,
) -> pd.DataFrame:
    """The queries of ``run`` whose value moves most between the variants (largest width first)."""
    frame = pd.DataFrame(
        {v: evaluations[v].per_query(measure, run) for v in variants.present(evaluations)}
    )
    frame = with_width(frame, variants, higher_is_better(evaluations, measure))
    moving = frame[frame["width"] > 1e-12].sort_values("width", ascending=False, kind="stable")
    return moving.head(limit)


def order_flips(
    means: pd.DataFrame,
    variants: Variants,
    *,
    higher_is_better: bool = True,
    tolerance: float = 1e-12,
) -> pd.DataFrame:
    """For each pair of runs (``baseline`` listed before ``run``): ``delta <variant>`` = run -
    baseline under each variant (the sign of ``compare``), ``flips_between_<kind>`` and
    ``can_flip``."""
    sign = 1 if higher_is_better else -1
    names = variants.present(means.columns)
    worst, best = worst_and_best(means, variants, higher_is_better)
    flips = f"flips_between_{variants.kind}"
    rows = []
    for baseline, run in combinations(means.index, 2):
        diffs = {v: means.at[run, v] - means.at[baseline, v] for v in names}
        signs = {0 if abs(d) <= tolerance else int(np.sign(d)) for d in diffs.values()}
        leader, other = (
            (run, baseline) if sign * diffs[variants.reference] >= 0 else (baseline, run)
        )
        rows.append(
            {
                "baseline": baseline,
                "run": run,
                **{f"delta {v}": d for v, d in diffs.items()},
                flips: len(signs) > 1,
                "can_flip": bool(sign * best[other] >= sign * worst[leader] - tolerance),
            }
        )
    return pd.DataFrame(
        rows, columns=["baseline", "run", *(f"delta {v}" for v in names), flips, "can_flip"]
    )


def verdict_changes(
    matrices: Mapping[str, pd.DataFrame],
    measure: str,
    variants: Variants,
    settings: TestSettings | None = None,
    *,
    rng: np.random.Generator | int | None = None,
) -> pd.DataFrame:
    """Per run against the baseline: the verdict under each variant (``matrices``: variant ->
    queries x runs values) and ``changes`` where they disagree (one seed for every variant)."""
    # scipy: only when there is a pair to test
    from rankviz.analyses.verdicts import verdict_changes as changes

    return changes({v: matrices[v] for v in variants.present(matrices)}, measure, settings, rng=rng)


@dataclass(frozen=True, eq=False)
class Section:
    """One measure of a sensitivity report: the means, the pairs and the verdicts (see the
    module)."""

    measure: str
    means: pd.DataFrame
    flips: pd.DataFrame
    verdicts: pd.DataFrame

    def to_dict(self) -> dict:
        return {
            "measure": self.measure,
            "means": self.means.to_dict(orient="index"),
            "pairs": self.flips.to_dict(orient="records"),
            "verdicts": self.verdicts.to_dict(orient="index"),
        }


def section(
    evaluations: Mapping[str, Evaluation],
    measure: str,
    variants: Variants,
    test: TestSettings | None,
    *,
    rng: np.random.Generator | int | None = None,
    means: pd.DataFrame | None = None,
) -> Section:
    """A measure's section from the evaluation of each variant (``means``: already computed, with
    extra columns)."""
    means = means_table(evaluations, measure, variants) if means is None else means
    matrices = {v: evaluations[v].matrix(measure) for v in variants.present(evaluations)}
    verdicts = (
        verdict_changes(matrices, measure, variants, test, rng=rng)
        if len(means) > 1
        else pd.DataFrame()
    )
    flips = order_flips(means, variants, higher_is_better=higher_is_better(evaluations, measure))
    return Section(measure, means, flips, verdicts)


def long_means(sections: Mapping[str, Section], column: str) -> pd.DataFrame:
    """Every section's means as rows (run, measure, ``column``, value): the reports' TSV."""
    rows = [
        (run, measure, name, value)
        for measure, s in sections.items()
        for run, row in s.means.iterrows()
        for name, value in row.items()
    ]
    return pd.DataFrame(rows, columns=["run", "measure", column, "value"])
