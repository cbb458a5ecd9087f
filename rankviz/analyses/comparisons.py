"""Significance tables: every comparison of runs under one measure, as the CLI and the app show
them.

Built on the array tests of :mod:`rankviz.analyses.significance`; options come as one
:class:`~rankviz.settings.TestSettings`. :func:`compare` runs them from an
:class:`~rankviz.evaluate.Evaluation` in one call and returns a :class:`Comparison`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import TYPE_CHECKING

import numpy as np

from rankviz.analyses.effect import effect_size, topic_set_size
from rankviz.analyses.significance import (
    ConfidenceInterval,
    adjust,
    run_test,
    t_interval,
    tukey_hsd,
)
from rankviz.errors import OptionError
from rankviz.significance_options import TestSettings

if TYPE_CHECKING:
    import pandas as pd

    from rankviz.evaluation import Evaluation


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
    rng = settings.seed if rng is None else rng
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
            "mean_baseline": left.mean(1),
            "mean_run": right.mean(1),
            "delta": d.mean(1),
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

    generator = np.random.default_rng(rng)
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


def verdicts(table: pd.DataFrame, *, alpha: float = 0.05) -> list[str]:
    """Per row of :func:`compare_runs`: ``better`` / ``worse`` where the adjusted p is below alpha,
    else ``n.s.`` (untested rows, whose p is NaN, are ``n.s.`` too)."""
    return [
        ("better" if delta > 0 else "worse") if p < alpha else "n.s."
        for delta, p in zip(table["delta"], table["p_adjusted"])
    ]


def verdict_marks(tables: Mapping[str, pd.DataFrame], *, alpha: float = 0.05) -> pd.DataFrame:
    """Runs x measures: each run's verdict against the baseline, from one :func:`compare_runs` table
    per measure."""
    import pandas as pd

    return pd.DataFrame(
        {
            name: pd.Series(verdicts(table, alpha=alpha), index=table["run"])
            for name, table in tables.items()
        }
    )


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


@dataclass(frozen=True, eq=False)
class Comparison:
    """The comparisons of one or more measures: ``table`` has one row per (measure, baseline, run)
    with the :data:`COLUMNS`; ``statistic``, ``pvalue`` and :meth:`confidence_interval` read it as
    arrays, as scipy's results do."""

    table: pd.DataFrame
    settings: TestSettings

    @property
    def statistic(self) -> np.ndarray:
        return self.table["statistic"].to_numpy()

    @property
    def pvalue(self) -> np.ndarray:
        return self.table["p_adjusted"].to_numpy()

    def confidence_interval(self) -> ConfidenceInterval:
        """The interval of each mean difference (run - baseline) at the settings' confidence
        level."""
        return ConfidenceInterval(self.table["ci_low"].to_numpy(), self.table["ci_high"].to_numpy())

    def verdicts(self) -> list[str]:
        return verdicts(self.table, alpha=self.settings.alpha)

    def to_frames(self) -> dict[str, pd.DataFrame]:
        """``comparisons``: one row per (measure, baseline, run) with the :data:`COLUMNS` (and
        ``queries_needed`` when added)."""
        return {"comparisons": self.table}

    def to_dict(self) -> list[dict]:
        """One record per comparison (the JSON of ``rankviz compare``)."""
        return self.table.to_dict(orient="records")

    def describe(self) -> str:
        """One line: the test, the correction and alpha the verdicts follow."""
        s = self.settings
        correction = "family-wise (Tukey HSD)" if s.test == "tukey" else s.correction
        return (
            f"test: {s.test} ({s.alternative}); correction: {correction}; alpha {s.alpha:g}; "
            "verdicts on the adjusted p"
        )

    def gate(
        self, fail_if: str, *, margin: float | None = None, baseline: str | None = None
    ) -> list[str]:
        """The comparisons against ``baseline`` (default: every row's) that fail a CI gate, one line
        each (:data:`~rankviz.report_settings.FAIL_IF`): ``worse`` fails a run significantly worse
        than the baseline, or with a ``margin``, one whose mean is lower by more than it;
        ``not-better``
        fails a run that is not significantly better (with a margin: not better by more than it
        too)."""
        failed = []
        alpha = self.settings.alpha
        for row, verdict in zip(self.table.itertuples(index=False), self.verdicts(), strict=True):
            if baseline is not None and row.baseline != baseline:
                continue
            where = (
                f"{row.run} against {row.baseline} on {row.measure}: delta {row.delta:+.4f}, "
                f"adjusted p {row.p_adjusted:.3g}"
            )
            if fail_if == "worse" and (
                verdict == "worse" or (margin is not None and row.delta < -margin)
            ):
                why = (
                    "significantly worse"
                    if verdict == "worse"
                    else (f"lower by more than the margin {margin:g}")
                )
                failed.append(f"{where}: {why}")
            elif fail_if == "not-better" and (
                verdict != "better" or (margin is not None and row.delta <= margin)
            ):
                why = (
                    f"not significantly better (alpha {alpha:g})"
                    if verdict != "better"
                    else f"not better by more than {margin:g}"
                )
                failed.append(f"{where}: {why}")
        return failed

    def untested(self, baseline: str | None = None) -> list[str]:
        """The comparisons against ``baseline`` that no test could judge (fewer than two queries
        both runs answer): a gate that could test nothing must not pass."""
        return [
            f"{row.run} against {row.baseline} on {row.measure}: {row.n} queries both answer, too "
            "few to test"
            for row in self.table.itertuples(index=False)
            if (baseline is None or row.baseline == baseline) and row.p_adjusted != row.p_adjusted
        ]

    def with_queries_needed(self, evaluation: Evaluation, difference: float) -> Comparison:
        """The comparison with a column ``queries_needed``: per row, the topic set size to detect
        ``difference`` (:func:`queries_needed`) from that pair's differences on the queries both
        answer."""
        import pandas as pd

        needed = []
        for measure, baseline, run in zip(self.table.measure, self.table.baseline, self.table.run):
            matrix = evaluation.matrix(measure, complete=False)[[baseline, run]].dropna()
            needed.append(
                queries_needed(matrix, baseline, difference, alpha=self.settings.alpha).get(run)
            )
        return Comparison(
            self.table.assign(queries_needed=pd.array(needed, dtype="Int64")), self.settings
        )

    def __repr__(self) -> str:
        return (
            f"Comparison({len(self.table)} comparisons; test={self.settings.test}, "
            f"correction={self.settings.correction})"
        )

    def _repr_html_(self) -> str:
        return self.table.assign(verdict=self.verdicts()).to_html(
            index=False, float_format=lambda v: f"{v:.4f}"
        )


def compare(
    evaluation: Evaluation,
    settings: TestSettings | None = None,
    *,
    measures: Sequence[str] | None = None,
    rng: np.random.Generator | int | None = None,
    **options,
) -> Comparison:
    """Significance of every comparison in an evaluation, measure by measure; the correction runs
    over the comparisons of one measure. Under ``missing="skip"`` each pair is tested on the queries
    both its runs answer (Tukey HSD, a test of all runs at once, on the queries every run
    answers)."""
    import pandas as pd

    settings = (settings or TestSettings()).replace(**options)
    generator = np.random.default_rng(settings.seed if rng is None else rng)
    names = [str(m) for m in evaluation.measures] if measures is None else list(measures)
    frames = [
        compare_runs(evaluation.matrix(m, complete=False), settings, measure=str(m), rng=generator)
        for m in names
    ]
    return Comparison(pd.concat(frames, ignore_index=True), settings)
