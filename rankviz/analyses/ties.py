"""Tie sensitivity: how much each run's values depend on the order of documents with equal scores.

For each run and measure: the interval from the pessimistic to the optimistic value (every order of
every tie group lies inside it), where trec_eval's order, the run file's order and the exact
expectation over random orders fall in it, the queries whose value moves most, and which pairs of
runs can swap places. Shared by ``rankviz ties`` and the app's Ties page.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd

from rankviz.errors import OptionError
from rankviz.evaluate import combine, evaluate_tables
from rankviz.evaluation import Evaluation, spread
from rankviz.io.groups import QueryGroups
from rankviz.io.model import Qrels, Run
from rankviz.measures import Measure
from rankviz.ranking import RankingTable, rank
from rankviz.settings import EvalSettings, TestSettings
from rankviz.tie_policy import REPORT_ORDER

#: The deterministic policies of the report, from worst case to best case.
REPORT_POLICIES = REPORT_ORDER


def tie_statistics(table: RankingTable, cutoff: int) -> dict[str, float]:
    """How much of a run sits in groups of equal scores, overall and in the top ``cutoff``."""
    sizes = np.bincount(table.tie_group) if table.n_rows else np.zeros(0, int)
    tied = sizes[table.tie_group] > 1 if table.n_rows else np.zeros(0, bool)
    top = table.pos < cutoff
    answered = int(table.in_run.sum())
    queries_with_ties = len(np.unique(table.row_query[tied]))
    return {
        "queries answered": answered,
        "queries with ties": queries_with_ties,
        "share of queries with ties": queries_with_ties / answered if answered else 0.0,
        "share of documents tied": float(tied.mean()) if table.n_rows else 0.0,
        f"share of top-{cutoff} documents tied": float(tied[top].mean()) if top.any() else 0.0,
        "largest tie group": int(sizes.max()) if len(sizes) else 0,
    }


def statistics_table(tables: Mapping[str, RankingTable], cutoff: int) -> pd.DataFrame:
    """Runs x tie statistics: counts as integers, shares as fractions."""
    return _statistics_frame({name: tie_statistics(table, cutoff) for name, table in tables.items()})


def _statistics_frame(statistics: Mapping[str, dict]) -> pd.DataFrame:
    frame = pd.DataFrame(statistics).T
    counts = [c for c in frame.columns if not c.startswith("share")]
    return frame.astype({c: int for c in counts})


def higher_is_better(evaluations: Mapping[str, Evaluation], measure: str) -> bool:
    """Whether a higher value of ``measure`` is better (not for RBP's residual), from its spec."""
    return next(m for m in next(iter(evaluations.values())).measures if str(m) == measure).higher_is_better


def _width(frame: pd.DataFrame, higher: bool) -> pd.Series:
    """How far the tie order moves a value: best (optimistic) minus worst (pessimistic), where lower is better the reverse."""
    return (frame["optimistic"] - frame["pessimistic"]) * (1 if higher else -1)


def interval(evaluations: Mapping[str, Evaluation], measure: str) -> pd.DataFrame:
    """Runs x policies means (each under its evaluation's aggregate), plus ``width``: how far ties
    alone can move the mean, between the pessimistic order's value (the worst) and the optimistic
    one's (the best; the lower of the two where lower is better)."""
    means = pd.DataFrame({policy: evaluations[policy].means()[measure] for policy in REPORT_POLICIES if policy in evaluations})
    means["width"] = _width(means, higher_is_better(evaluations, measure))
    return means


def random_means(evaluation: Evaluation, measure: str) -> pd.DataFrame:
    """Trials x runs: each run's mean under each random order of an evaluation under ``ties="random"``."""
    if evaluation.trials is None:
        raise OptionError("random means need an evaluation under ties='random'")
    trials = evaluation.trials[measure]
    columns = {}
    for column, run in enumerate(evaluation.runs):
        values = trials[:, :, column]
        keep = ~np.isnan(values[0])
        columns[run] = evaluation.aggregation.mean(values[:, keep], evaluation.qids[keep])
    return pd.DataFrame(columns)


def with_random(means: pd.DataFrame, trial_means: pd.DataFrame) -> pd.DataFrame:
    """The policy means with the mean of random orders and its spread over trials (``random``, ``random std``)."""
    deviation = pd.Series(spread(trial_means.to_numpy()), index=trial_means.columns)
    return means.assign(random=trial_means.mean(), **{"random std": deviation})


def sensitive_queries(evaluations: Mapping[str, Evaluation], measure: str, run: str, *, limit: int = 10) -> pd.DataFrame:
    """The queries of ``run`` whose value moves most with the tie order (width = optimistic - pessimistic)."""
    frame = pd.DataFrame(
        {policy: evaluations[policy].per_query(measure, run) for policy in REPORT_POLICIES if policy in evaluations}
    )
    frame["width"] = _width(frame, higher_is_better(evaluations, measure))
    moving = frame[frame["width"] > 1e-12].sort_values("width", ascending=False, kind="stable")
    return moving.head(limit)


def order_flips(means: pd.DataFrame, *, higher_is_better: bool = True, tolerance: float = 1e-12) -> pd.DataFrame:
    """For each pair of runs (``baseline`` listed before ``run``): ``delta`` = run - baseline under each
    policy (the sign of ``compare``), and whether ties can reverse their order.

    ``flips_between_policies``: the sign of the difference is not the same under every policy.
    ``can_flip``: some tie orders would reverse trec_eval's order, i.e. the worse run's optimistic
    value reaches the better run's pessimistic value (a bound, since each run's worst and best case
    are taken independently; "better" is lower where ``higher_is_better`` is False).
    """
    sign = 1 if higher_is_better else -1
    policies = [p for p in REPORT_POLICIES if p in means.columns]
    rows = []
    for baseline, run in combinations(means.index, 2):
        diffs = {p: means.at[run, p] - means.at[baseline, p] for p in policies}
        signs = {p: 0 if abs(d) <= tolerance else int(np.sign(d)) for p, d in diffs.items()}
        leader, other = (run, baseline) if sign * diffs["trec_eval"] >= 0 else (baseline, run)
        rows.append(
            {
                "baseline": baseline,
                "run": run,
                **{f"delta {p}": diffs[p] for p in policies},
                "flips_between_policies": len(set(signs.values())) > 1,
                "can_flip": bool(sign * means.at[other, "optimistic"] >= sign * means.at[leader, "pessimistic"] - tolerance),
            }
        )
    columns = ["baseline", "run", *(f"delta {p}" for p in policies), "flips_between_policies", "can_flip"]
    return pd.DataFrame(rows, columns=columns)


def verdict_changes(matrices: Mapping[str, pd.DataFrame], measure: str, settings: TestSettings | None = None, *,
                    rng: np.random.Generator | int | None = None) -> pd.DataFrame:  # fmt: skip
    """Per run against the baseline: the verdict under each tie policy of the report (``matrices``:
    policy -> queries x runs values) and ``changes`` where the policies disagree."""
    from rankviz.analyses.comparisons import verdict_changes as changes

    return changes({p: matrices[p] for p in REPORT_POLICIES if p in matrices}, measure, settings, rng=rng)


@dataclass(frozen=True, eq=False)
class TieSection:
    """One measure of a tie report: the runs x policies means, the pair flips and the verdicts."""

    measure: str
    evaluations: dict[str, Evaluation]
    means: pd.DataFrame
    flips: pd.DataFrame
    verdicts: pd.DataFrame

    def queries(self, run: str, limit: int = 10) -> pd.DataFrame:
        return sensitive_queries(self.evaluations, self.measure, run, limit=limit)


@dataclass(frozen=True, eq=False)
class TieReport:
    """Tie statistics per run and one :class:`TieSection` per measure (keyed by its canonical name)."""

    statistics: pd.DataFrame
    sections: dict[str, TieSection]
    ignored_qids: dict[str, tuple[str, ...]]  # per run: queries the qrels do not judge
    settings: EvalSettings

    def __repr__(self) -> str:
        return f"TieReport({len(self.statistics)} runs; measures: {', '.join(self.sections)})"


def tie_report(
    qrels: Qrels,
    runs: Sequence[Run],
    measures: Sequence[Measure],
    settings: EvalSettings | None = None,
    test: TestSettings | None = None,
    *,
    cutoff: int = 10,
    trials: int = 0,
    groups: QueryGroups | None = None,
    weights: Mapping[str, float] | None = None,
    rng: np.random.Generator | int | None = None,
) -> TieReport:
    """Every run under every policy of :data:`REPORT_POLICIES` (:func:`report_from_tables`), each
    run ranked under one policy at a time."""
    by_name = {run.name: run for run in runs}

    def tables_under(ties: str) -> Iterable[tuple[str, RankingTable]]:
        return ((name, rank(run, qrels, ties=ties)) for name, run in by_name.items())

    return report_from_tables(tables_under, measures, settings, test, cutoff=cutoff, trials=trials, groups=groups,
                              weights=weights, rng=rng)  # fmt: skip


def report_from_tables(
    tables_under: Callable[[str], Iterable[tuple[str, RankingTable]]],
    measures: Sequence[Measure],
    settings: EvalSettings | None = None,
    test: TestSettings | None = None,
    *,
    cutoff: int = 10,
    trials: int = 0,
    groups: QueryGroups | None = None,
    weights: Mapping[str, float] | None = None,
    rng: np.random.Generator | int | None = None,
) -> TieReport:
    """Every run under every policy of :data:`REPORT_POLICIES`; with ``trials`` > 0 also the mean of
    that many random orders (column ``random``) and its spread over trials (``random std``). With
    two or more runs, each section also holds every run's verdict against the baseline under each
    policy (:func:`verdict_changes`).

    ``tables_under(policy)``: (run name, ranking table) pairs under that policy. When they are built
    as they are consumed, one ranking table is alive at a time (each is as large as its run): what
    the report needs from it (per-query values, tie statistics, random trials) is taken before the
    next is built.
    """
    settings = settings or EvalSettings()
    generator = np.random.default_rng(settings.seed if rng is None else rng)
    parts: dict[str, list[Evaluation]] = {policy: [] for policy in (*REPORT_POLICIES, "random")}
    statistics = {}
    for policy in REPORT_POLICIES:
        for name, table in tables_under(policy):
            under = settings.replace(ties=policy)
            parts[policy].append(evaluate_tables({name: table}, measures, under, groups=groups, weights=weights))
            if policy == "trec_eval":
                statistics[name] = tie_statistics(table, cutoff)
                if trials > 0:
                    drawn = settings.replace(ties="random", trials=trials)
                    parts["random"].append(
                        evaluate_tables({name: table}, measures, drawn, groups=groups, weights=weights, rng=generator)
                    )
            del table
    evaluations = {policy: combine(found) for policy, found in parts.items() if found}
    sections = {}
    for measure in map(str, measures):
        means = interval(evaluations, measure)
        if trials > 0:
            means = with_random(means, random_means(evaluations["random"], measure))
        matrices = {policy: evaluations[policy].matrix(measure) for policy in REPORT_POLICIES}
        changes = verdict_changes(matrices, measure, test, rng=generator) if len(statistics) > 1 else pd.DataFrame()
        flips = order_flips(means, higher_is_better=higher_is_better(evaluations, measure))
        sections[measure] = TieSection(measure, evaluations, means, flips, changes)
    return TieReport(_statistics_frame(statistics), sections, dict(evaluations["trec_eval"].ignored), settings)
