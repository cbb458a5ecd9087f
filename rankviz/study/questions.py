"""What the pages (and scripts) ask of a study's numbers: two runs query by query, one query's two
rankings, the paired tests of one measure and what follows from them.

:class:`Questions` is mixed into :class:`~rankviz.study.run_study.Study` beside its reports; the
app's ``Context`` keeps each answer in its caches, so a page asks, caches nothing itself and
renders.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from rankviz.evaluation.result import Evaluation
from rankviz.measures import Measure
from rankviz.settings.significance_settings import TestSettings
from rankviz.study.capability import needs_rankings
from rankviz.study.reports import Asked

if TYPE_CHECKING:
    import pandas as pd

    from rankviz.analyses.anova import TwoWayAnova
    from rankviz.analyses.deltas import PairDeltas
    from rankviz.analyses.precision_recall import PrecisionRecall


def lower_is_better(measures: Iterable[Measure]) -> frozenset[str]:
    """The names of the measures where less is better (their verdicts read a negative delta as
    better)."""
    return frozenset(str(m) for m in measures if not m.higher_is_better)


class Questions:
    """The questions of the pages (mixed into :class:`~rankviz.study.run_study.Study`)."""

    def pair(
        self: Asked,
        measure: Measure,
        baseline: str,
        run: str,
        *,
        evaluation: Evaluation | None = None,
    ) -> PairDeltas:
        """``run`` against ``baseline`` on ``measure``, query by query (from ``evaluation`` when
        given: the numbers already shown)."""
        from rankviz.analyses.deltas import PairDeltas, deltas

        found = evaluation or self.evaluation()
        return PairDeltas(deltas(found.matrix(measure), baseline, run), baseline, run)

    @needs_rankings
    def aligned(self: Asked, baseline: str, run: str, qid: str, depth: int) -> pd.DataFrame:
        """One query's two rankings side by side, to ``depth``
        (:func:`rankviz.analyses.query_view.aligned`)."""
        from rankviz.analyses.query_view import aligned

        tables = self.tables([baseline, run])
        return aligned(tables[baseline], tables[run], qid, depth)

    @needs_rankings
    def overlap(self: Asked, baseline: str, run: str) -> pd.Series:
        """Rank-biased overlap of two runs' rankings of every query, under the study's policy."""
        from rankviz.analyses.query_view import rank_biased_overlap

        tables = self.tables([baseline, run])
        return rank_biased_overlap(tables[baseline], tables[run])

    def paired_tests(
        self: Asked,
        measure: Measure,
        tests: TestSettings,
        *,
        evaluation: Evaluation | None = None,
        verdict: bool = False,
    ) -> pd.DataFrame:
        """Every run against the baseline (or every pair) on one measure, on the queries each pair
        answers (:func:`rankviz.analyses.pair_tests.compare_runs`); ``verdict``: with each row's
        verdict at the test's alpha."""
        from rankviz.analyses.pair_tests import compare_runs
        from rankviz.analyses.verdicts import verdicts

        values = (evaluation or self.evaluation()).matrix(measure, complete=False)
        table = compare_runs(values, tests, measure=str(measure))
        lower = lower_is_better([measure])
        return (
            table.assign(verdict=verdicts(table, alpha=tests.alpha, lower_is_better=lower))
            if verdict
            else table
        )

    def anova(
        self: Asked,
        measure: Measure,
        *,
        confidence_level: float = 0.95,
        evaluation: Evaluation | None = None,
    ) -> TwoWayAnova:
        """The two-way ANOVA (system x topic) of the runs on one measure, on the topics every run
        answers (:func:`rankviz.analyses.anova.two_way_anova`)."""
        from rankviz.analyses.anova import two_way_anova

        values = (evaluation or self.evaluation()).matrix(measure, complete=False)
        return two_way_anova(values, measure=str(measure), confidence_level=confidence_level)

    def paired_tests_by_group(
        self: Asked, measure: Measure, tests: TestSettings, *, evaluation: Evaluation | None = None
    ) -> pd.DataFrame:
        """The paired tests within each group of the study's ``group_by``, with their verdicts."""
        from rankviz.analyses.verdicts import compare_by_group, verdicts

        values = (evaluation or self.evaluation()).matrix(measure, complete=False)
        table = compare_by_group(values, self.group_of(values.index), tests, measure=str(measure))
        tested = table.fillna({"p_adjusted": 1.0})
        lower = lower_is_better([measure])
        return table.assign(verdict=verdicts(tested, alpha=tests.alpha, lower_is_better=lower))

    def best_per_measure(
        self: Asked, *, evaluation: Evaluation | None = None
    ) -> dict[str, list[str]]:
        """The run(s) with the highest mean of each measure (every tied best run)."""
        from rankviz.analyses.deltas import best_per_measure

        return best_per_measure((evaluation or self.evaluation()).means())

    def effect_sizes(
        self: Asked, measure: Measure, baseline: str, *, evaluation: Evaluation | None = None
    ) -> pd.DataFrame:
        """Each run's d_z against the baseline with its interval."""
        from rankviz.analyses.verdicts import effect_sizes

        values = (evaluation or self.evaluation()).matrix(measure, complete=False)
        return effect_sizes(values, baseline)

    def queries_needed(
        self: Asked,
        measure: Measure,
        baseline: str,
        difference: float,
        *,
        alpha: float,
        evaluation: Evaluation | None = None,
    ) -> pd.Series:
        """The queries a study needs to detect ``difference`` against the baseline (80% power)."""
        from rankviz.analyses.verdicts import queries_needed

        values = (evaluation or self.evaluation()).matrix(measure, complete=False)
        return queries_needed(values, baseline, difference, alpha=alpha)

    def verdict_marks(
        self: Asked,
        tests: TestSettings,
        *,
        evaluation: Evaluation | None = None,
        tables: Mapping[str, pd.DataFrame] | None = None,
    ) -> pd.DataFrame:
        """Runs x measures: each run's verdict against the baseline on every measure, from the
        paired tests of each (``tables``: those already computed, by measure name)."""
        from rankviz.analyses.verdicts import verdict_marks

        if tables is None:
            found = evaluation or self.evaluation()
            tables = {
                str(m): Questions.paired_tests(self, m, tests, evaluation=found)
                for m in self.measures
            }
        return verdict_marks(
            tables, alpha=tests.alpha, lower_is_better=lower_is_better(self.measures)
        )

    def beats(
        self: Asked,
        tests: TestSettings,
        *,
        evaluation: Evaluation | None = None,
        tables: Mapping[str, pd.DataFrame] | None = None,
    ) -> pd.DataFrame:
        """Runs x measures: the runs each run is significantly better than on every measure, all
        pairs tested and corrected together (``tables``: those all-pairs tables already computed,
        by measure name), as ranx's report marks them."""
        import pandas as pd

        from rankviz.analyses.verdicts import beaten

        every = tests.replace(pairs="all")
        if tables is None:
            found = evaluation or self.evaluation()
            tables = {
                str(m): Questions.paired_tests(self, m, every, evaluation=found)
                for m in self.measures
            }
        lower = lower_is_better(self.measures)
        columns = {
            name: beaten(table, alpha=tests.alpha, lower_is_better=name in lower)
            for name, table in tables.items()
        }
        return pd.DataFrame({name: pd.Series(runs) for name, runs in columns.items()})

    @needs_rankings
    def precision_recall(self: Asked, names: Sequence[str] | None = None) -> PrecisionRecall:
        """The runs' interpolated precision-recall curves on the qrels in force: the tie policy's
        order when it is one order (trec_eval, run, optimistic, pessimistic), trec_eval's under
        ``expected`` and ``random`` (interpolated precision has no closed form over orders)."""
        from rankviz.analyses.precision_recall import precision_recall
        from rankviz.settings.tie_policy import TREC_EVAL

        rule = self.settings.ties
        ties = rule if rule.deterministic and not rule.closed_form else TREC_EVAL
        return precision_recall(
            self._one_at_a_time(names, ties),
            rel=self.settings.rel,
            missing=self.settings.missing,
            order=str(ties),
            filled=self.settings.fill_grade,
        )
