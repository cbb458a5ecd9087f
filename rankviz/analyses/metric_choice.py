"""Which measure fits a task, answered from the team's own runs and qrels.

Four kinds of evidence, each a plain function over per-query matrices (queries x runs, one per
measure, from :meth:`rankviz.evaluate.Evaluation.matrix`):

- guidance: a few questions about the task lead to measures, with the reason for each and what it
  would hide on this collection (:mod:`rankviz.analyses.task`);
- agreement: Kendall's tau and tau-AP between the orderings of the runs under each pair of measures;
- discriminative power (Sakai 2006): the share of run pairs each measure separates at alpha, and its
  achieved-significance-level curve;
- stability: how often two runs swap order between two disjoint halves of the queries (the swap
  method of Voorhees & Buckley 2002), and sensitivity to ties, to the relevance threshold and to
  ERR's gmax; plus warnings read from the collection.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from rankviz.analyses.comparisons import compare_runs
from rankviz.analyses.task import (
    CollectionWarnings,
    Recommendation,
    Task,
    candidate_measures,
    collection_warnings,
    graded_share,
    infer_task,
    recommend,
)
from rankviz.errors import OptionError
from rankviz.evaluate import as_measures, evaluate_tables
from rankviz.evaluation import Evaluation
from rankviz.io.groups import QueryGroups
from rankviz.measures import Measure, make, parse
from rankviz.ranking import RankingTable
from rankviz.report_settings import MetricSettings
from rankviz.settings import EvalSettings
from rankviz.significance_options import TestSettings
from rankviz.tie_policy import BOUNDS


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
    (randomised Tukey HSD by default, or any test of :func:`~rankviz.significance.compare_runs`
    with Holm's correction over the pairs), and the achieved significance level of every pair.

    Returns ``(summary, asl)``: summary has ``pairs``, ``significant``, ``power`` per measure; asl
    has
    ``measure``, ``pair rank`` (1 = most significant) and ``p`` (sorted ascending), the ASL curve.
    """
    generator = np.random.default_rng(rng)
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
    generator = np.random.default_rng(rng)
    half = n // 2
    order = np.argsort(generator.random((trials, n)), axis=1)
    first = np.zeros((trials, n))
    second = np.zeros((trials, n))
    np.put_along_axis(first, order[:, :half], 1.0 / half, axis=1)
    np.put_along_axis(second, order[:, half : 2 * half], 1.0 / half, axis=1)
    left, right = np.triu_indices(runs, 1)
    sign_first = np.sign((first @ values)[:, left] - (first @ values)[:, right])
    sign_second = np.sign((second @ values)[:, left] - (second @ values)[:, right])
    return float(np.mean(sign_first * sign_second < 0))


def swap_rates(
    matrices: Mapping[str, pd.DataFrame],
    *,
    trials: int = 1000,
    rng: np.random.Generator | int | None = None,
) -> pd.Series:
    """:func:`swap_rate` of every measure, on the same random halves."""
    seed = int(np.random.default_rng(rng).integers(2**63))
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


@dataclass(frozen=True, eq=False)
class MetricReport:
    """Everything the Metric choice page and ``rankviz metrics-report`` show."""

    task: Task
    recommendations: list[Recommendation]
    measures: tuple[str, ...]  # the measures asked for, then those recommended
    evaluation: Evaluation
    means: pd.DataFrame
    kendall: pd.DataFrame
    tau_ap: pd.DataFrame
    power: pd.DataFrame
    asl: pd.DataFrame
    stability: pd.DataFrame  # per measure: swap rate, tie width, threshold tau, gmax tau
    warnings: CollectionWarnings
    graded_share: float = 0.0  # of the relevant judgments, those above the lowest relevant grade
    rel: int = 1
    options: MetricSettings = field(default_factory=MetricSettings)

    def __repr__(self) -> str:
        return f"MetricReport({len(self.means)} runs; measures: {', '.join(self.measures)})"

    def to_frames(self) -> dict[str, pd.DataFrame]:
        """``means`` (runs x measures), ``kendall`` and ``tau_ap`` (measures x measures),
        ``discriminative_power``
        (per measure: ``power``, the share of run pairs separated), ``stability`` (per measure:
        ``swap rate``,
        ``tie width``, ``threshold tau``, ``gmax tau``) and ``asl`` (measure, pair, achieved
        significance level)."""
        return {
            "means": self.means,
            "kendall": self.kendall,
            "tau_ap": self.tau_ap,
            "discriminative_power": self.power,
            "stability": self.stability,
            "asl": self.asl,
        }

    def to_dict(self) -> dict:
        """The task, the recommendations, the measures, every frame and the collection's
        warnings."""
        frames = self.to_frames()
        asl = frames.pop("asl")
        return {
            "task": vars(self.task),
            "recommendations": [vars(r) for r in self.recommendations],
            "measures": list(self.measures),
            **{name: frame.to_dict(orient="index") for name, frame in frames.items()},
            "asl": asl.to_dict(orient="records"),
            "warnings": self.warnings.messages(),
            "judged": self.warnings.judged.to_dict(),
        }

    def for_task(self, task: Task, asked: Sequence[str]) -> tuple[list[Recommendation], list[str]]:
        """The recommendations for ``task`` and the measures to show (``asked``, then those
        recommended). The report must hold their evidence (``metric_report(every_candidate=True)``
        holds it for any task)."""
        picks = recommend(task, self.warnings, graded_share=self.graded_share, rel=self.rel)
        names = list(dict.fromkeys([*asked, *(str(parse(p.measure)) for p in picks)]))
        missing = [n for n in names if n not in self.measures]
        if missing:
            raise OptionError(f"the report has no evidence on {', '.join(missing)}")
        return picks, names


def metric_report(
    tables: Mapping[str, Mapping[str, RankingTable]],
    measures: list[Measure],
    settings: EvalSettings | None = None,
    options: MetricSettings | None = None,
    *,
    task: Task | None = None,
    rng: np.random.Generator | int | None = None,
    groups: QueryGroups | None = None,
    weights: Mapping[str, float] | None = None,
    every_candidate: bool = False,
) -> MetricReport:
    """The full report; ``tables[policy][run]`` for policies ``trec_eval``, ``pessimistic``,
    ``optimistic``.

    The measures recommended for the task are evaluated too (after those asked for), so every
    piece of advice comes with its evidence; with ``every_candidate``, so is every measure some
    other answer about the task would recommend (the app answers a changed question from the same
    report). Means (agreement, tie widths) follow the settings' aggregate; tests and swap rates work
    on queries.
    """
    settings = settings or EvalSettings()
    options = options or MetricSettings()
    top_k = options.k
    default = tables["trec_eval"]
    warnings = collection_warnings(default, rel=settings.rel, k=top_k)
    task = task or infer_task(default, rel=settings.rel, top_k=top_k)
    share = graded_share(next(iter(default.values())), settings.rel)
    recommendations = recommend(task, warnings, graded_share=share, rel=settings.rel)
    candidates = (
        candidate_measures(warnings, graded_share=share, rel=settings.rel, top_k=top_k)
        if every_candidate
        else []
    )
    every = as_measures(
        [*measures, *(r.measure for r in recommendations), *candidates],
        defaults=settings.measure_defaults,
    )
    every = list({str(m): m for m in every}.values())
    aggregation: dict[str, Any] = {"groups": groups, "weights": weights}
    evaluations = {
        name: evaluate_tables(tables[name], every, settings.replace(ties=name), **aggregation)
        for name in BOUNDS
    }
    evaluation = evaluations["trec_eval"]
    matrices = {str(m): evaluation.matrix(m) for m in every}
    means = evaluation.means()
    # each randomised analysis draws from its own stream: the swap rates do not move when the test
    # draws differently
    tests_rng = np.random.default_rng(options.seed if rng is None else rng)
    (halves_rng,) = tests_rng.spawn(1)
    power, asl = discriminative_power(
        matrices,
        test=options.test,
        alpha=options.alpha,
        n_resamples=options.n_resamples,
        rng=tests_rng,
    )
    top_grade = int(next(iter(default.values())).ideal_grades.max(initial=1))
    stability = pd.concat(
        [
            swap_rates(matrices, trials=options.splits, rng=halves_rng),
            tie_widths(evaluations["pessimistic"], evaluations["optimistic"]),
            parameter_sensitivity(default, every, settings, top_grade=top_grade, **aggregation),
        ],
        axis=1,
    )
    return MetricReport(
        task=task,
        recommendations=recommendations,
        measures=tuple(map(str, every)),
        evaluation=evaluation,
        means=means,
        kendall=agreement(means),
        tau_ap=agreement(means, method="tau_ap"),
        power=power,
        asl=asl,
        stability=stability,
        warnings=warnings,
        graded_share=share,
        rel=settings.rel,
        options=options,
    )


@dataclass(frozen=True, eq=False)
class HeadToHead:
    """Two measures on the same runs: how alike they order the runs, and which one this collection
    lets separate more pairs, more stably."""

    a: str
    b: str
    kendall: float
    tau_ap: float
    power: pd.Series  # measure -> share of run pairs separated
    swap_rate: pd.Series  # measure -> swap rate
    tie_width: pd.Series  # measure -> tie width
    # run pairs the two order differently: run 1, run 2, delta under a, delta under b
    disagreements: pd.DataFrame

    def sentences(self) -> list[str]:
        """The comparison in words, each claim with its number."""
        pairs = len(self.disagreements)
        lines = [
            f"{self.a} and {self.b} order the runs with Kendall's tau {self.kendall:.2f} (tau-AP "
            f"{self.tau_ap:.2f}): "
            + (
                f"{pairs} pair{'s' if pairs != 1 else ''} of runs change places between them."
                if pairs
                else "every pair of runs is in the same order under both."
            ),
        ]
        stronger = self.power.idxmax() if self.power.nunique() > 1 else None
        lines.append(
            f"{self.a} separates {self.power[self.a]:.0%} of the run pairs, {self.b} "
            f"{self.power[self.b]:.0%}"
            + (
                f": {stronger} tells more runs apart on this collection."
                if stronger
                else ": as many."
            )
        )
        steadier = self.swap_rate.idxmin() if self.swap_rate.nunique() > 1 else None
        lines.append(
            f"Swap rate between random halves of the queries: {self.a} "
            f"{self.swap_rate[self.a]:.3f}, {self.b} "
            f"{self.swap_rate[self.b]:.3f}" + (f" ({steadier} is steadier)." if steadier else ".")
        )
        lines.append(
            f"Tie width: {self.a} {self.tie_width[self.a]:.4f}, {self.b} "
            f"{self.tie_width[self.b]:.4f}."
        )
        return lines


def head_to_head(report: MetricReport, a: str, b: str) -> HeadToHead:
    """Measure ``a`` against measure ``b`` from the report's evidence."""
    means = report.means
    runs = list(means.index)
    rows = []
    for first, second in combinations(runs, 2):
        da, db = means.at[first, a] - means.at[second, a], means.at[first, b] - means.at[second, b]
        if np.sign(da) != np.sign(db):
            rows.append({"run 1": first, "run 2": second, f"delta {a}": da, f"delta {b}": db})
    return HeadToHead(
        a=a,
        b=b,
        kendall=float(report.kendall.at[a, b]),
        tau_ap=float(report.tau_ap.at[a, b]),
        power=report.power["power"].reindex([a, b]),
        swap_rate=report.stability["swap rate"].reindex([a, b]),
        tie_width=report.stability["tie width"].reindex([a, b]),
        disagreements=pd.DataFrame(rows, columns=["run 1", "run 2", f"delta {a}", f"delta {b}"]),
    )


def agreement_by_group(x: pd.DataFrame, y: pd.DataFrame, groups: pd.Series) -> pd.DataFrame:
    """Per group: Kendall's tau between the run orderings under two measures (queries x runs
    matrices) computed on that group's queries only; where it is low, the measures disagree on that
    group."""
    by = groups.reindex(x.index)
    rows = {}
    for group, members in x.groupby(by, sort=True).groups.items():
        tau = stats.kendalltau(x.loc[members].mean(), y.loc[members].mean()).statistic
        rows[group] = {"queries": len(members), "kendall tau": tau}
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis("group")
