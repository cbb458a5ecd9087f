"""Significance tables: every comparison of runs under one measure, as the CLI and the app show
them.

Built on the array tests of :mod:`rankviz.analyses.significance`; options come as one
:class:`~rankviz.settings.significance_settings.TestSettings`. :func:`compare` runs them from an
:class:`~rankviz.evaluation.result.Evaluation` in one call and returns a :class:`Comparison`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from rankviz.analyses.pair_tests import compare_runs
from rankviz.analyses.paired import ConfidenceInterval
from rankviz.analyses.verdicts import queries_needed, verdicts
from rankviz.settings.numbers import seed_text
from rankviz.settings.significance_settings import TestSettings

if TYPE_CHECKING:
    import pandas as pd

    from rankviz.evaluation.result import Evaluation


@dataclass(frozen=True, eq=False)
class Comparison:
    """The comparisons of one or more measures: ``table`` has one row per (measure, baseline, run)
    with the :data:`COLUMNS`; ``statistic``, ``pvalue`` and :meth:`confidence_interval` read it as
    arrays, as scipy's results do.

    Parameters
    ----------
    table
        One row per (measure, baseline, run) with the :data:`COLUMNS`.
    settings
        The test and its correction, alternative and level.
    lower_is_better
        The measures where less is better: a negative delta is their better.
    geometric
        The measures whose mean is geometric (GMAP): their rows are on the per-query logs.
    """

    table: pd.DataFrame
    settings: TestSettings
    #: the measures where less is better (a cost, a residual): a negative delta is their better
    lower_is_better: frozenset[str] = frozenset()
    #: the measures whose mean is geometric (GMAP): their rows are on the per-query logs
    geometric: frozenset[str] = frozenset()

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
        return verdicts(self.table, alpha=self.settings.alpha, lower_is_better=self.lower_is_better)

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
        logs = sorted(set(self.geometric) & set(self.table["measure"]))
        drawn = f"; {s.n_resamples:,} resamples, {seed_text(s.seed)}" if s.resampled else ""
        return (
            f"test: {s.test} ({s.alternative}); correction: {correction}; alpha {s.alpha:g}; "
            f"verdicts on the adjusted p{drawn}"
        ) + (
            f"; {', '.join(logs)}: a geometric mean, tested on the per-query logs (mean_* are the "
            "logs of the geometric means, exp of them the means; delta the log of their ratio)"
            if logs
            else ""
        )

    def gate(
        self, fail_if: str, *, margin: float | None = None, baseline: str | None = None
    ) -> list[str]:
        """The comparisons against ``baseline`` (default: every row's) that fail a CI gate, one line
        each (:data:`~rankviz.settings.report_settings.FAIL_IF`): ``worse`` fails a run
        significantly worse than the baseline, or with a ``margin``, one whose mean is lower by more
        than it; ``not-better``
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
            self.table.assign(queries_needed=pd.array(needed, dtype="Int64")),
            self.settings,
            self.lower_is_better,
            self.geometric,
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
    """Significance of every comparison in an evaluation, measure by measure.

    The correction runs over the comparisons of one measure. Under ``missing="skip"`` each pair is
    tested on the queries both its runs answer (Tukey HSD, a test of all runs at once, on the
    queries every run answers).

    Parameters
    ----------
    evaluation
        The per-query values of the runs (:func:`evaluate`).
    settings
        The test, correction, alpha, baseline, pairs and resamples (:class:`TestSettings`); keyword
        ``options`` (``test="t"``, ``baseline="bm25"``, ...) replace its fields.
    measures
        The measures to compare (default: every measure of the evaluation).
    rng
        A Generator or a seed for the resampling tests (default: the settings' seed).

    Returns
    -------
    Comparison
        One row per (measure, baseline, run): means, delta, statistic, p-values, interval, effect
        size, wins, ties and losses; ``verdicts()`` reads them."""
    import pandas as pd

    settings = (settings or TestSettings()).replace(**options)
    generator = np.random.default_rng(settings.seed if rng is None else rng)
    names = [str(m) for m in evaluation.measures] if measures is None else list(measures)
    frames = [
        compare_runs(evaluation.matrix(m, complete=False), settings, measure=str(m), rng=generator)
        for m in names
    ]
    lower = frozenset(str(m) for m in evaluation.measures if not m.higher_is_better)
    table = pd.concat(frames, ignore_index=True)
    flipped = table["measure"].isin(lower)  # a win is a query where the run is better
    table.loc[flipped, ["wins", "losses"]] = table.loc[flipped, ["losses", "wins"]].to_numpy()
    geometric = frozenset(str(m) for m in evaluation.measures if m.family.aggregator.name != "mean")
    return Comparison(table, settings, lower, geometric)
