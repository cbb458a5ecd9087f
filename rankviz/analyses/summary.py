"""A summary across collections: a study of studies.

Per collection, each run's mean and its paired delta against the baseline (the mean of the per-query
differences run - baseline over the queries both answer, with variance s^2 / n and a t interval);
then, per run and measure, a random-effects meta-analysis of the deltas (DerSimonian & Laird 1986:
the moment estimator of tau^2 floored at 0, I^2 = (Q - (k - 1)) / Q floored at 0, a normal
interval), win / tie / loss counts over the collections, and the mean and Borda ranks. Each
collection keeps its own conventions (relevance threshold, gmax), which the table says.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy import stats

from rankviz.errors import OptionError

if TYPE_CHECKING:
    import pandas as pd

    from rankviz.evaluation.result import Evaluation

COLLECTION_COLUMNS = [
    "collection",
    "run",
    "measure",
    "measure_here",
    "mean",
    "baseline_mean",
    "delta",
    "variance",
    "ci_low",
    "ci_high",
    "n",
    "conventions",
]
POOLED_COLUMNS = [
    "run",
    "measure",
    "delta",
    "ci_low",
    "ci_high",
    "tau2",
    "i2",
    "q",
    "k",
    "wins",
    "ties",
    "losses",
    "mean_rank",
    "borda",
]


def collection_rows(
    collection: str,
    evaluation: Evaluation,
    baseline: str,
    runs: Sequence[str],
    measures: Mapping[str, Any],
    *,
    standardised: bool = False,
    level: float = 0.95,
) -> list[dict]:
    """One row per (run, measure) of one collection: its mean (on the queries it answers), its
    paired delta against ``baseline`` on the queries both answer
    (standardised: divided by the standard deviation of the differences), the delta's variance and
    interval; ``measures``: the measure as the summary names it -> as this collection computes
    it."""
    rows = []
    for name, measure in measures.items():
        matrix = evaluation.matrix(measure, complete=False)
        for run in runs:
            # the queries both answer: no other run named changes them
            pair = matrix[[run, baseline]].dropna()
            differences = (pair[run] - pair[baseline]).to_numpy()
            n = len(differences)
            if n < 2:
                raise OptionError(
                    f"{collection}: {run} and {baseline} share fewer than 2 queries on {measure}"
                )
            mean, sd = float(differences.mean()), float(differences.std(ddof=1))
            delta, variance = mean, sd**2 / n
            if standardised:
                if sd == 0:
                    raise OptionError(
                        f"{collection}: {run} and {baseline} do not differ on "
                        f"{measure}: no standardised delta"
                    )
                delta = mean / sd
                # the paired standardised difference's usual variance
                variance = 1 / n + delta**2 / (2 * n)
            half = stats.t.ppf((1 + level) / 2, n - 1) * np.sqrt(variance)
            conventions = (
                "per-query scores read from files"
                if evaluation.scores_notes
                else f"relevant from grade {evaluation.settings.rel}, ERR gmax "
                f"{evaluation.settings.gmax}"
            )
            means = {
                "mean": evaluation.mean(measure, run),
                "baseline_mean": evaluation.mean(measure, baseline),
            }
            rows.append(
                {
                    "collection": collection,
                    "run": run,
                    "measure": name,
                    "measure_here": str(measure),
                    **means,
                    "delta": delta,
                    "variance": variance,
                    "ci_low": delta - half,
                    "ci_high": delta + half,
                    "n": n,
                    "conventions": conventions,
                }
            )
    return rows


def dersimonian_laird(
    effects: np.ndarray, variances: np.ndarray, *, level: float = 0.95
) -> dict[str, float]:
    """The random-effects pooled effect of ``effects`` with within-study ``variances``."""
    k = len(effects)
    weights = 1 / variances
    fixed = float(np.sum(weights * effects) / np.sum(weights))
    q = float(np.sum(weights * (effects - fixed) ** 2))
    c = float(np.sum(weights) - np.sum(weights**2) / np.sum(weights))
    tau2 = max(0.0, (q - (k - 1)) / c) if c > 0 else 0.0
    star = 1 / (variances + tau2)
    pooled = float(np.sum(star * effects) / np.sum(star))
    half = stats.norm.ppf((1 + level) / 2) * np.sqrt(1 / np.sum(star))
    i2 = max(0.0, (q - (k - 1)) / q) if q > 0 else 0.0
    return {
        "delta": pooled,
        "ci_low": pooled - half,
        "ci_high": pooled + half,
        "tau2": tau2,
        "i2": i2,
        "q": q,
        "k": k,
    }


@dataclass(frozen=True)
class Summary:
    """Per collection and pooled over them; ``to_dict`` is the JSON of ``rankviz summary``."""

    collections: pd.DataFrame  # COLLECTION_COLUMNS
    pooled: pd.DataFrame  # POOLED_COLUMNS
    baseline: str
    standardised: bool
    left_out: tuple[str, ...] = ()  # the collections a pooled delta could not weigh, and why

    def to_dict(self) -> dict[str, list[dict]]:
        keep = ["collection", "run", "measure", "mean", "delta", "ci_low", "ci_high", "n"]
        pooled = ["run", "measure", "delta", "ci_low", "ci_high", "tau2", "i2"]
        return {
            "collections": self.collections[keep].to_dict(orient="records"),
            "pooled": self.pooled[pooled].to_dict(orient="records"),
            "left_out": list(self.left_out),
        }

    def to_frames(self) -> dict[str, pd.DataFrame]:
        return {"collections": self.collections, "pooled": self.pooled}

    def describe(self) -> list[str]:
        """How the numbers were made (footers and captions)."""
        kind = (
            "standardised deltas (each divided by its collection's sd of the differences)"
            if self.standardised
            else "deltas"
        )
        return [
            f"{kind} of each run minus {self.baseline}: the mean of the per-query differences on "
            "the queries both answer, variance s^2/n, t interval",
            "pooled: random effects (DerSimonian-Laird), tau2 floored at 0, I2 = (Q - (k - 1)) / Q "
            "floored at 0, normal interval; wins/ties/losses: collections whose delta is "
            "above/at/below 0; ranks: 1 = best mean in a collection, Borda = sum of (runs - rank)",
            *self.left_out,
        ]

    def gate(self, fail_if: str, *, margin: float | None = None) -> list[str]:
        """The pooled deltas that fail a CI gate (as
        :meth:`rankviz.analyses.comparisons.Comparison.gate`:
        ``worse`` when the pooled interval lies below 0, or with a margin, the pooled delta below
        -margin;
        ``not-better`` unless it lies above 0, and with a margin, the pooled delta above it)."""
        failed = []
        for row in self.pooled.itertuples(index=False):
            where = (
                f"{row.run} against {self.baseline} on {row.measure} over {row.k} collections: "
                f"pooled delta {row.delta:+.4f}"
            )
            below, above = row.ci_high < 0, row.ci_low > 0
            if fail_if == "worse" and (below or (margin is not None and row.delta < -margin)):
                failed.append(
                    f"{where}: "
                    + ("its interval lies below 0" if below else f"lower by more than {margin:g}")
                )
            elif fail_if == "not-better" and (
                not above or (margin is not None and row.delta <= margin)
            ):
                failed.append(
                    f"{where}: "
                    + (
                        "its interval reaches 0"
                        if not above
                        else f"not better by more than {margin:g}"
                    )
                )
        return failed

    def untested(self) -> list[str]:
        """The pooled deltas a gate cannot judge (no collection could be weighed): a gate must not
        pass on them."""
        return [
            f"{row.run} against {self.baseline} on {row.measure}: no collection could be weighed"
            for row in self.pooled.itertuples(index=False)
            if row.k == 0
        ]


def summary(
    per_collection: Mapping[str, tuple[Evaluation, Mapping[str, Any]]],
    baseline: str,
    runs: Sequence[str],
    *,
    standardised: bool = False,
    level: float = 0.95,
) -> Summary:
    """The summary of ``runs`` against ``baseline`` over collections (name -> its evaluation of the
    runs, and the measures as named here -> as that collection computes them)."""
    import pandas as pd

    rows = [
        row
        for name, (evaluation, measures) in per_collection.items()
        for row in collection_rows(
            name, evaluation, baseline, runs, measures, standardised=standardised, level=level
        )
    ]
    frame = pd.DataFrame(rows, columns=COLLECTION_COLUMNS)
    means = frame.pivot_table(index=["collection", "measure"], columns="run", values="mean")
    baseline_means = frame.groupby(["collection", "measure"])["baseline_mean"].first()
    everyone = means.assign(**{baseline: baseline_means})
    ranks = everyone.rank(axis=1, ascending=False, method="average")  # 1 = best in that collection
    pooled, left_out = [], []
    for (run, measure), part in frame.groupby(["run", "measure"], sort=False):
        weighable = part["variance"] > 0  # identical per-query differences: no variance, no weight
        for collection in part.loc[~weighable, "collection"]:
            left_out.append(
                f"{collection} left out of the pooled delta of {run} on {measure}: its per-query "
                "differences from the baseline are all equal (no variance to weigh it by)"
            )
        kept = part[weighable]
        if len(kept):
            result = dersimonian_laird(
                kept["delta"].to_numpy(), kept["variance"].to_numpy(), level=level
            )
        else:
            result = dict.fromkeys(
                ("delta", "ci_low", "ci_high", "tau2", "i2", "q"), float("nan")
            ) | {"k": 0}
        run_ranks = ranks.xs(measure, level="measure")[run]
        pooled.append(
            {
                "run": run,
                "measure": measure,
                **result,
                "wins": int((part["delta"] > 0).sum()),
                "ties": int((part["delta"] == 0).sum()),
                "losses": int((part["delta"] < 0).sum()),
                "mean_rank": float(run_ranks.mean()),
                "borda": float((everyone.shape[1] - run_ranks).sum()),
            }
        )
    return Summary(
        frame, pd.DataFrame(pooled, columns=POOLED_COLUMNS), baseline, standardised, tuple(left_out)
    )
