"""Tie sensitivity: how much each run's values depend on the order of documents with equal scores.

For each run and measure: the interval from the pessimistic to the optimistic value (every order of
every tie group lies inside it), where trec_eval's order, the run file's order and the exact
expectation over random orders fall in it, the queries whose value moves most, and which pairs of
runs can swap places. Shared by ``rankviz ties`` and the app's Ties page.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from rankviz.analyses.sensitivity import (
    Section,
    Variants,
    long_means,
    means_table,
    per_query,
    section,
)
from rankviz.errors import OptionError
from rankviz.evaluation.assembly import combine
from rankviz.evaluation.evaluate import evaluate_tables
from rankviz.evaluation.result import Evaluation, spread
from rankviz.io.groups import QueryGroups
from rankviz.io.model import Qrels, Run
from rankviz.measures import Measure
from rankviz.ranking.ordering import rank
from rankviz.ranking.ranking_table import RankingTable
from rankviz.settings.eval_settings import EvalSettings
from rankviz.settings.report_settings import TieReportSettings
from rankviz.settings.significance_settings import TestSettings
from rankviz.settings.tie_policy import RANDOM, REPORT_ORDER, TREC_EVAL
from rankviz.settings.tie_policy import policy as policy_of

#: The deterministic policies of the report, from worst case to best case: pessimistic and
#: optimistic bound every order.
REPORT_POLICIES = REPORT_ORDER
POLICIES = Variants(
    REPORT_POLICIES, "trec_eval", "policies", bounds=(REPORT_POLICIES[0], REPORT_POLICIES[-1])
)


@dataclass(frozen=True, eq=False)
class TieSection(Section):
    """One measure of a tie report (:class:`~rankviz.analyses.sensitivity.Section`) and the
    evaluations under each policy, which list the queries that move most."""

    evaluations: dict[str, Evaluation]

    def queries(self, run: str, limit: int = 10) -> pd.DataFrame:
        """The queries of ``run`` whose value moves most with the tie order (width = optimistic -
        pessimistic)."""
        return per_query(self.evaluations, self.measure, run, POLICIES, limit=limit)


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


def _statistics_frame(statistics: Mapping[str, dict]) -> pd.DataFrame:
    frame = pd.DataFrame(statistics).T
    counts = [c for c in frame.columns if not c.startswith("share")]
    return frame.astype({c: int for c in counts})


def random_means(evaluation: Evaluation, measure: str) -> pd.DataFrame:
    """Trials x runs: each run's mean under each random order of an evaluation under
    ``ties="random"``."""
    if evaluation.trials is None:
        raise OptionError("random means need an evaluation under ties='random'")
    trials = evaluation.trials[measure]
    columns = {}
    for column, run in enumerate(evaluation.runs):
        values = trials[:, :, column]
        keep = ~np.isnan(values[0])
        means = evaluation.aggregation.mean(values[:, keep], evaluation.qids[keep])
        columns[run] = evaluation.aggregated(measure, means)
    return pd.DataFrame(columns)


def with_random(means: pd.DataFrame, trial_means: pd.DataFrame) -> pd.DataFrame:
    """The policy means with the mean of random orders and its spread over trials (``random``,
    ``random std``)."""
    deviation = pd.Series(spread(trial_means.to_numpy()), index=trial_means.columns)
    return means.assign(random=trial_means.mean(), **{"random std": deviation})


@dataclass(frozen=True, eq=False)
class TieReport:
    """Tie statistics per run and one :class:`TieSection` per measure (keyed by its canonical
    name)."""

    statistics: pd.DataFrame
    sections: dict[str, TieSection]
    ignored_qids: dict[str, tuple[str, ...]]  # per run: queries the qrels do not judge
    settings: EvalSettings
    options: TieReportSettings = field(default_factory=TieReportSettings)

    def __repr__(self) -> str:
        return f"TieReport({len(self.statistics)} runs; measures: {', '.join(self.sections)})"

    def to_frames(self) -> dict[str, pd.DataFrame]:
        """``statistics`` (runs x tie statistics) and ``means`` (run, measure, policy, value; the
        policies, ``width`` and with random orders ``random`` and ``random std``)."""
        return {"statistics": self.statistics, "means": long_means(self.sections, "policy")}

    def to_dict(self) -> dict:
        """Statistics, then per measure its means, pairs, verdicts and each run's queries that move
        most (as many as the report's ``queries`` option)."""
        limit = self.options.queries
        return {
            "statistics": self.statistics.to_dict(orient="index"),
            "measures": [
                {
                    **section.to_dict(),
                    "queries": {
                        run: section.queries(run, limit).to_dict(orient="index")
                        for run in section.means.index
                    },
                }
                for section in self.sections.values()
            ],
        }


def tie_report(
    qrels: Qrels,
    runs: Sequence[Run],
    measures: Sequence[Measure],
    settings: EvalSettings | None = None,
    test: TestSettings | None = None,
    options: TieReportSettings | None = None,
    *,
    groups: QueryGroups | None = None,
    weights: Mapping[str, float] | None = None,
    rng: np.random.Generator | int | None = None,
) -> TieReport:
    """Every run under every policy of :data:`REPORT_POLICIES` (:func:`report_from_tables`), each
    run ranked under one policy at a time."""
    by_name = {run.name: run for run in runs}
    cut = (settings or EvalSettings()).cut

    def table_under(name: str, ties: str) -> RankingTable:
        return rank(by_name[name], qrels, ties=ties, cut=cut)

    return report_from_tables(
        table_under,
        list(by_name),
        measures,
        settings,
        test,
        options,
        groups=groups,
        weights=weights,
        rng=rng,
    )


def report_from_tables(
    table_under: Callable[[str, str], RankingTable],
    names: Sequence[str],
    measures: Sequence[Measure],
    settings: EvalSettings | None = None,
    test: TestSettings | None = None,
    options: TieReportSettings | None = None,
    *,
    groups: QueryGroups | None = None,
    weights: Mapping[str, float] | None = None,
    rng: np.random.Generator | int | None = None,
    progress: Callable[[int], None] | None = None,
    runs_at_once: int = 1,
) -> TieReport:
    """Every run under every policy of :data:`REPORT_POLICIES`; with ``options.trials`` > 0 also the
    mean of that many random orders (column ``random``) and its spread over trials (``random std``).
    With two or more runs, each section also holds every run's verdict against the baseline under
    each policy (:func:`verdict_changes`).

    ``table_under(name, policy)``: the run's ranking table under that policy, asked run after run
    in each thread (every policy of one run, then that thread's next run's), so an orderer that
    keeps one run's tables per thread builds trec_eval's once for the policies derived from it.
    What the report needs from a table (per-query values, tie statistics, random trials) is taken
    before the next is asked for. ``runs_at_once`` runs are taken side by side (NumPy and Arrow
    release the interpreter for most of the work; each holds its tables meanwhile), except with
    random orders, whose draws follow the runs' order. ``progress`` is told each run done (in the
    calling thread).
    """
    settings = settings or EvalSettings()
    options = options or TieReportSettings()
    cutoff, trials = options.k, options.trials
    generator = np.random.default_rng(settings.seed if rng is None else rng)

    def one_run(name: str) -> tuple[dict[str, Evaluation], pd.DataFrame]:
        found, statistics = {}, None
        for rule in map(policy_of, REPORT_POLICIES):
            table = table_under(name, rule.name)
            under = settings.replace(ties=rule)
            # the closed forms: of the measures that have one (the others' sections go without)
            taken = [m for m in measures if m.has_closed_form or not rule.closed_form]
            if taken:
                found[rule.name] = evaluate_tables(
                    {name: table}, taken, under, groups=groups, weights=weights
                )
            if rule == TREC_EVAL:  # the statistics and the random orders: from trec_eval's table
                statistics = tie_statistics(table, cutoff)
                if trials > 0:
                    drawn = settings.replace(ties=RANDOM, trials=trials)
                    found[RANDOM.name] = evaluate_tables(
                        {name: table},
                        measures,
                        drawn,
                        groups=groups,
                        weights=weights,
                        rng=generator,
                    )
            del table
        assert statistics is not None  # trec_eval's order is among the report's policies
        return found, statistics

    done = {}
    with ThreadPoolExecutor(max_workers=1 if trials > 0 else max(1, runs_at_once)) as pool:
        futures = {pool.submit(one_run, name): name for name in names}
        for future in as_completed(futures):
            done[futures[future]] = future.result()
            if progress is not None:
                progress(1)
    parts: dict[str, list[Evaluation]] = {policy: [] for policy in (*REPORT_POLICIES, RANDOM.name)}
    statistics = {}
    for name in names:  # in the runs' order, whichever finished first
        by_policy, statistics[name] = done[name]
        for policy, evaluation in by_policy.items():
            parts[policy].append(evaluation)
    evaluations = {policy: combine(found) for policy, found in parts.items() if found}
    sections = {}
    for measure in map(str, measures):
        held = {p: e for p, e in evaluations.items() if measure in map(str, e.measures)}
        means = means_table(held, measure, POLICIES)
        if trials > 0:
            means = with_random(means, random_means(held[RANDOM.name], measure))
        found = section(held, measure, POLICIES, test, rng=generator, means=means)
        sections[measure] = TieSection(
            found.measure, found.means, found.flips, found.verdicts, held
        )
    return TieReport(
        _statistics_frame(statistics),
        sections,
        dict(evaluations[TREC_EVAL.name].ignored),
        settings,
        options,
    )
