"""Which measure fits a task, answered from the team's own runs and qrels.

Four kinds of evidence, each a plain function over per-query matrices (queries x runs, one per
measure, from :meth:`rankviz.evaluation.result.Evaluation.matrix`):

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

from rankviz.analyses.measure_evidence import (
    parameter_sensitivity,
    tie_widths,
)
from rankviz.analyses.metric_pick import Choice, choose
from rankviz.analyses.task import (
    CollectionWarnings,
    Recommendation,
    Task,
    candidate_measures,
    collection_warnings,
    graded_share,
    infer_task,
    recommend,
    weighed,
)
from rankviz.analyses.values_evidence import values_evidence
from rankviz.errors import OptionError
from rankviz.evaluation.evaluate import as_measures, evaluate_tables
from rankviz.evaluation.result import Evaluation
from rankviz.io.groups import QueryGroups
from rankviz.measures import Measure, parse
from rankviz.ranking.ranking_table import RankingTable
from rankviz.settings.eval_settings import EvalSettings
from rankviz.settings.numbers import decided_signs
from rankviz.settings.report_settings import MetricSettings
from rankviz.settings.tie_policy import BOUNDS


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
            "choice": None if (c := self.choice(self.task)) is None else c.to_dict(),
            "measures": list(self.measures),
            **{name: frame.to_dict(orient="index") for name, frame in frames.items()},
            "asl": asl.to_dict(orient="records"),
            "warnings": self.warnings.messages(),
            "judged": self.warnings.judged.to_dict(),
        }

    def choice(self, task: Task, asked: Sequence[str] = ()) -> Choice | None:
        """One measure to report for ``task``: of those that fit it, the one this report's
        evidence favours, with the runners-up (:func:`~rankviz.analyses.metric_pick.choose`);
        None when no measure fits."""
        picks, names = self.for_task(task, asked)
        evidence_names = [str(parse(p.measure)) for p in picks]
        unfit = [  # said beside the advice where they separate more run pairs
            (pick, str(parse(pick.measure)), ignored)
            for pick, ignored in weighed(
                task, self.warnings, graded_share=self.graded_share, rel=self.rel
            )
            if ignored
        ]
        return choose(picks, evidence_names, self.power, self.stability, unfit=unfit)

    def head_to_head(self, a: str, b: str) -> HeadToHead:
        """Measure ``a`` against measure ``b`` from this evidence (:func:`head_to_head`)."""
        return head_to_head(self, a, b)

    def agreement_by_group(self, a: str, b: str, groups: pd.Series) -> pd.DataFrame:
        """Per group: Kendall's tau between the run orderings under measures ``a`` and ``b``."""
        x, y = self.evaluation.matrix(a), self.evaluation.matrix(b)
        return agreement_by_group(x, y, groups)

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
    piece of advice comes with its evidence, and so are the other candidates at the task's K,
    which the advice names when they separate more run pairs without fitting the task; with
    ``every_candidate``, every measure some other answer about the task would weigh (the app
    answers a changed question from the same report). Means (agreement, tie widths) follow the
    settings' aggregate; tests and swap rates work on queries.
    """
    settings = settings or EvalSettings()
    options = options or MetricSettings()
    top_k = options.k
    default = tables["trec_eval"]
    warnings = collection_warnings(default, rel=settings.rel, k=top_k)
    task = task or infer_task(default, rel=settings.rel, top_k=top_k)
    share = graded_share(next(iter(default.values())), settings.rel)
    recommendations = recommend(task, warnings, graded_share=share, rel=settings.rel)
    candidates = (  # those that do not fit too: the advice says when they separate more
        candidate_measures(warnings, graded_share=share, rel=settings.rel, top_k=top_k)
        if every_candidate
        else [p.measure for p, _ in weighed(task, warnings, graded_share=share, rel=settings.rel)]
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
    # what the values alone say (agreement, discriminative power, swap rates), then what the
    # rankings and qrels add to the stability
    evidence = values_evidence(evaluation, options, rng=rng)
    top_grade = int(next(iter(default.values())).ideal_grades.max(initial=1))
    stability = pd.concat(
        [
            evidence.stability,
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
        means=evidence.means,
        kendall=evidence.kendall,
        tau_ap=evidence.tau_ap,
        power=evidence.power,
        asl=evidence.asl,
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
        size_a = abs(means.at[first, a]) + abs(means.at[second, a])
        size_b = abs(means.at[first, b]) + abs(means.at[second, b])
        if decided_signs(da, size_a) != decided_signs(db, size_b):
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
