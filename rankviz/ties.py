"""Tie sensitivity: how much each run's values depend on the order of documents with equal scores.

For each run and measure: the interval from the pessimistic to the optimistic value (every order of
every tie group lies inside it), where trec_eval's order, the run file's order and the exact
expectation over random orders fall in it, the queries whose value moves most, and which pairs of
runs can swap places. Shared by ``python -m rankviz ties`` and the dashboard's Ties page.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd

from rankviz.compare import tie_statistics
from rankviz.evaluate import check_missing, per_query, random_trials, spread
from rankviz.groups import aggregate as mean_of
from rankviz.groups import weight_vector
from rankviz.io.readers import Qrels, Run
from rankviz.measures import Measure
from rankviz.ranking import RankingTable, rank
from rankviz.significance import compare_runs, verdicts

#: The deterministic policies of the report, from worst case to best case.
REPORT_POLICIES = ("pessimistic", "trec_eval", "run", "expected", "optimistic")


def statistics_table(tables: Mapping[str, RankingTable], cutoff: int) -> pd.DataFrame:
    """Runs x tie statistics (:func:`rankviz.compare.tie_statistics`): counts as integers, shares as fractions."""
    return _statistics_frame({name: tie_statistics(table, cutoff) for name, table in tables.items()})


def _statistics_frame(statistics: Mapping[str, dict]) -> pd.DataFrame:
    frame = pd.DataFrame(statistics).T
    counts = [c for c in frame.columns if not c.startswith("share")]
    return frame.astype({c: int for c in counts})


def interval(
    matrices: Mapping[str, pd.DataFrame],
    *,
    aggregate: str = "query",
    groups: pd.Series | None = None,
    weights: pd.Series | None = None,
) -> pd.DataFrame:
    """Runs x policies means, plus ``width`` = optimistic - pessimistic (how much ties can move the mean).

    ``aggregate`` / ``groups`` / ``weights``: the overall mean (:func:`rankviz.groups.aggregate`).
    """
    means = pd.DataFrame(
        {
            policy: mean_of(matrices[policy], how=aggregate, groups=groups, weights=weights)
            for policy in REPORT_POLICIES
            if policy in matrices
        }
    )
    means["width"] = means["optimistic"] - means["pessimistic"]
    return means


def random_means(
    tables: Mapping[str, RankingTable],
    measure: Measure,
    *,
    trials: int,
    rng: np.random.Generator | int | None,
    missing: str = "zero",
    aggregate: str = "query",
    groups: pd.Series | None = None,
    weights: pd.Series | None = None,
) -> pd.DataFrame:
    """trials x runs: each run's mean of ``measure`` under ``trials`` random tie orders (one Generator
    for all), averaged over queries as ``aggregate`` says."""
    generator = np.random.default_rng(rng)
    columns = {}
    for name, table in tables.items():
        qids, values = random_trials(table, [measure], trials=trials, rng=generator, missing=missing)[measure]
        # an elementwise product and a row sum, not a matrix product: BLAS may sum rows in different
        # orders, which would show a spread of 1e-17 between identical trials
        columns[name] = (values * weight_vector(qids, how=aggregate, groups=groups, weights=weights)).sum(axis=1)
    return pd.DataFrame(columns)


def sensitive_queries(matrices: Mapping[str, pd.DataFrame], run: str, *, limit: int = 10) -> pd.DataFrame:
    """The queries of ``run`` whose value moves most with the tie order (optimistic - pessimistic)."""
    frame = pd.DataFrame({policy: matrices[policy][run] for policy in REPORT_POLICIES if policy in matrices})
    frame["width"] = frame["optimistic"] - frame["pessimistic"]
    moving = frame[frame["width"] > 1e-12].sort_values("width", ascending=False, kind="stable")
    return moving.head(limit)


def with_random(means: pd.DataFrame, trial_means: pd.DataFrame) -> pd.DataFrame:
    """The policy means with the mean of random orders and its spread over trials (columns ``random``, ``random std``)."""
    deviation = pd.Series(spread(trial_means.to_numpy()), index=trial_means.columns)
    return means.assign(random=trial_means.mean(), **{"random std": deviation})


def order_flips(means: pd.DataFrame, *, tolerance: float = 1e-12) -> pd.DataFrame:
    """For each pair of runs: their order under each policy, and whether ties can reverse it.

    ``flips_between_policies``: the sign of the difference is not the same under every policy.
    ``can_flip``: some tie orders would reverse trec_eval's order, i.e. the worse run's optimistic
    value reaches the better run's pessimistic value (a bound, since each run's worst and best case
    are taken independently).
    """
    policies = [p for p in REPORT_POLICIES if p in means.columns]
    rows = []
    for a, b in combinations(means.index, 2):
        diffs = {p: means.at[a, p] - means.at[b, p] for p in policies}
        signs = {p: 0 if abs(d) <= tolerance else int(np.sign(d)) for p, d in diffs.items()}
        leader, other = (a, b) if diffs["trec_eval"] >= 0 else (b, a)
        rows.append(
            {
                "run_a": a,
                "run_b": b,
                **{f"delta {p}": diffs[p] for p in policies},
                "flips_between_policies": len(set(signs.values())) > 1,
                "can_flip": bool(means.at[other, "optimistic"] >= means.at[leader, "pessimistic"] - tolerance),
            }
        )
    columns = ["run_a", "run_b", *(f"delta {p}" for p in policies), "flips_between_policies", "can_flip"]
    return pd.DataFrame(rows, columns=columns)


def verdict_changes(
    matrices: Mapping[str, pd.DataFrame],
    *,
    measure: str,
    baseline: str | None = None,
    test: str = "t",
    correction: str = "holm",
    alpha: float = 0.05,
    n_resamples: int = 10_000,
    rng: np.random.Generator | int | None = None,
    zero_method: str = "wilcox",
) -> pd.DataFrame:
    """Per run against the baseline: the verdict (better / worse / n.s.) under each tie policy, and
    ``changes``, True where the policies disagree. Resampling tests reuse one seed per policy, so a
    change comes from the tie order, not from different resamples."""
    seed = np.random.default_rng(rng).integers(2**63)
    columns = {}
    for policy in REPORT_POLICIES:
        if policy in matrices:
            table = compare_runs(
                matrices[policy],
                measure=measure,
                baseline=baseline,
                test=test,
                correction=correction,
                n_resamples=n_resamples,
                rng=seed,
                zero_method=zero_method,
            )
            columns[policy] = pd.Series(verdicts(table, alpha=alpha), index=table["run"])
    frame = pd.DataFrame(columns)
    frame["changes"] = frame.nunique(axis=1) > 1
    return frame


@dataclass(frozen=True, eq=False)
class TieSection:
    """One measure of a tie report: per-policy matrices, the runs x policies means and the pair flips."""

    matrices: dict[str, pd.DataFrame]
    means: pd.DataFrame
    flips: pd.DataFrame
    verdicts: pd.DataFrame

    def queries(self, run: str, limit: int = 10) -> pd.DataFrame:
        return sensitive_queries(self.matrices, run, limit=limit)


@dataclass(frozen=True, eq=False)
class TieReport:
    """Tie statistics per run and one :class:`TieSection` per measure (keyed by its canonical name)."""

    statistics: pd.DataFrame
    sections: dict[str, TieSection]
    ignored_qids: dict[str, list[str]]  # per run: queries the qrels do not judge


def tie_report(
    qrels: Qrels,
    runs: list[Run],
    measures: list[Measure],
    *,
    cutoff: int = 10,
    missing: str = "zero",
    trials: int = 0,
    rng: np.random.Generator | int | None = None,
    baseline: str | None = None,
    test: str = "t",
    correction: str = "holm",
    alpha: float = 0.05,
    n_resamples: int = 10_000,
) -> TieReport:
    """Every run under every policy of :data:`REPORT_POLICIES`; with ``trials`` > 0 also the mean of
    that many random orders (column ``random``) and its spread over trials (``random std``).
    With two or more runs, each section also holds the significance verdict of every run against
    ``baseline`` under each policy (:func:`verdict_changes`).

    One ranking table is alive at a time (each is as large as its run): what the report needs
    from it (per-query values, tie statistics, random trials) is taken before the next is built.
    """
    check_missing(missing)
    generator = np.random.default_rng(rng)
    values: dict[str, dict[str, dict[str, pd.Series]]] = {str(m): {p: {} for p in REPORT_POLICIES} for m in measures}
    trial_means: dict[str, dict[str, np.ndarray]] = {str(m): {} for m in measures}
    statistics, ignored = {}, {}
    for policy in REPORT_POLICIES:
        for run in runs:
            table = rank(run, qrels, ties=policy)
            for measure in measures:
                values[str(measure)][policy][run.name] = per_query(table, measure, missing=missing)
            if policy == "trec_eval":
                statistics[run.name] = tie_statistics(table, cutoff)
                ignored[run.name] = list(table.ignored_qids)
                for measure in measures if trials > 0 else ():
                    trial_means[str(measure)][run.name] = random_means(
                        {run.name: table}, measure, trials=trials, rng=generator, missing=missing
                    )[run.name]
            del table
    sections = {}
    for measure in measures:
        name = str(measure)
        matrices = {policy: pd.DataFrame(columns).dropna() for policy, columns in values[name].items()}
        means = interval(matrices)
        if trials > 0:
            means = with_random(means, pd.DataFrame(trial_means[name]))
        changes = (
            verdict_changes(
                matrices,
                measure=name,
                baseline=baseline,
                test=test,
                correction=correction,
                alpha=alpha,
                n_resamples=n_resamples,
                rng=generator,
            )
            if len(runs) > 1
            else pd.DataFrame()
        )
        sections[name] = TieSection(matrices, means, order_flips(means), changes)
    return TieReport(_statistics_frame(statistics), sections, ignored)
