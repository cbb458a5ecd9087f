"""The questions any study answers from its per-query values alone (runs or scores): two runs query
by query, the paired tests of one measure and what follows from them, the comparison of every run
with the baseline, the standings, the ANOVA and what the values say of the measures.

Each is a plain function over a study (its evaluation unless one is given: the numbers a front
end already shows) and an entry of :data:`rankviz.study.questions.QUESTIONS`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from rankviz.errors import OptionError
from rankviz.evaluation.result import Evaluation
from rankviz.measures import Measure
from rankviz.settings.report_settings import MetricSettings
from rankviz.settings.significance_settings import TestSettings
from rankviz.study.question import Follows, Question, Reads
from rankviz.study.study import Study

if TYPE_CHECKING:
    import pandas as pd

    from rankviz.analyses.anova import TwoWayAnova
    from rankviz.analyses.comparisons import Comparison
    from rankviz.analyses.deltas import PairDeltas
    from rankviz.analyses.standings import Standings
    from rankviz.analyses.values_evidence import ValuesEvidence


def lower_is_better(measures: Iterable[Measure]) -> frozenset[str]:
    """The names of the measures where less is better (their verdicts read a negative delta as
    better)."""
    return frozenset(str(m) for m in measures if not m.higher_is_better)


def pair(
    study: Study, measure: Measure, baseline: str, run: str, *, evaluation: Evaluation | None = None
) -> PairDeltas:
    """``run`` against ``baseline`` on ``measure``, query by query."""
    from rankviz.analyses.deltas import PairDeltas, deltas

    found = evaluation or study.evaluation()
    return PairDeltas(deltas(found.matrix(measure), baseline, run), baseline, run)


def compare(
    study: Study, test: TestSettings, *, evaluation: Evaluation | None = None
) -> Comparison:
    """Every run against the baseline on every measure
    (:func:`rankviz.analyses.comparisons.compare`)."""
    from rankviz.analyses import comparisons

    return comparisons.compare(evaluation or study.evaluation(), test)


def paired_tests(
    study: Study,
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

    values = (evaluation or study.evaluation()).matrix(measure, complete=False)
    table = compare_runs(values, tests, measure=str(measure))
    if not verdict:
        return table
    lower = lower_is_better([measure])
    return table.assign(verdict=verdicts(table, alpha=tests.alpha, lower_is_better=lower))


def paired_tests_by_group(
    study: Study, measure: Measure, tests: TestSettings, *, evaluation: Evaluation | None = None
) -> pd.DataFrame:
    """The paired tests within each group of the study's ``group_by``, with their verdicts."""
    from rankviz.analyses.verdicts import compare_by_group, verdicts

    values = (evaluation or study.evaluation()).matrix(measure, complete=False)
    table = compare_by_group(values, study.group_of(values.index), tests, measure=str(measure))
    tested = table.fillna({"p_adjusted": 1.0})
    lower = lower_is_better([measure])
    return table.assign(verdict=verdicts(tested, alpha=tests.alpha, lower_is_better=lower))


def effect_sizes(
    study: Study, measure: Measure, baseline: str, *, evaluation: Evaluation | None = None
) -> pd.DataFrame:
    """Each run's d_z against the baseline with its interval."""
    from rankviz.analyses import verdicts

    values = (evaluation or study.evaluation()).matrix(measure, complete=False)
    return verdicts.effect_sizes(values, baseline)


def queries_needed(
    study: Study,
    measure: Measure,
    baseline: str,
    difference: float,
    *,
    alpha: float,
    evaluation: Evaluation | None = None,
) -> pd.Series:
    """The queries a study needs to detect ``difference`` against the baseline (80% power)."""
    from rankviz.analyses import verdicts

    values = (evaluation or study.evaluation()).matrix(measure, complete=False)
    return verdicts.queries_needed(values, baseline, difference, alpha=alpha)


def anova(
    study: Study,
    measure: Measure,
    *,
    confidence_level: float = 0.95,
    evaluation: Evaluation | None = None,
) -> TwoWayAnova:
    """The two-way ANOVA (system x topic) of the runs on one measure, on the topics every run
    answers (:func:`rankviz.analyses.anova.two_way_anova`)."""
    from rankviz.analyses.anova import two_way_anova

    values = (evaluation or study.evaluation()).matrix(measure, complete=False)
    return two_way_anova(values, measure=str(measure), confidence_level=confidence_level)


def best_per_measure(study: Study, *, evaluation: Evaluation | None = None) -> dict[str, list[str]]:
    """The run(s) with the highest mean of each measure (every tied best run)."""
    from rankviz.analyses import deltas

    return deltas.best_per_measure((evaluation or study.evaluation()).means())


def verdict_marks(
    study: Study,
    tests: TestSettings,
    *,
    evaluation: Evaluation | None = None,
    tables: Mapping[str, pd.DataFrame] | None = None,
) -> pd.DataFrame:
    """Runs x measures: each run's verdict against the baseline on every measure, from the
    paired tests of each (``tables``: those already computed, by measure name)."""
    from rankviz.analyses import verdicts

    if tables is None:
        found = evaluation or study.evaluation()
        tables = {str(m): paired_tests(study, m, tests, evaluation=found) for m in study.measures}
    lower = lower_is_better(study.measures)
    return verdicts.verdict_marks(tables, alpha=tests.alpha, lower_is_better=lower)


def beats(
    study: Study,
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
        found = evaluation or study.evaluation()
        tables = {str(m): paired_tests(study, m, every, evaluation=found) for m in study.measures}
    lower = lower_is_better(study.measures)
    columns = {
        name: beaten(table, alpha=tests.alpha, lower_is_better=name in lower)
        for name, table in tables.items()
    }
    return pd.DataFrame({name: pd.Series(runs) for name, runs in columns.items()})


def standings(
    study: Study,
    test: TestSettings,
    *,
    evaluation: Evaluation | None = None,
    measures: Sequence[Measure] | None = None,
    progress: Callable[[int], None] | None = None,
) -> Standings:
    """Each run's rank, rank interval and Tukey group per measure
    (:mod:`rankviz.analyses.standings`); ``progress`` is told the resamples done."""
    from rankviz.analyses import standings

    found = evaluation or study.evaluation()
    return standings.standings(found, test, measures=measures, progress=progress)


def values_evidence(study: Study, options: MetricSettings | None = None) -> ValuesEvidence:
    """What the values alone say of the measures: metrics-report's evidence without the task
    and the stability that read qrels and rankings
    (:func:`rankviz.analyses.values_evidence.values_evidence`); all a study of scores has."""
    from rankviz.analyses import values_evidence

    if len(study.run_names) < 2:
        raise OptionError("metrics-report compares measures on two or more runs")
    return values_evidence.values_evidence(study.evaluation(), options)


PAIR = Question(pair, Reads.VALUES, takes_evaluation=True)
COMPARE = Question(compare, Reads.VALUES, takes_evaluation=True)
PAIRED_TESTS = Question(
    paired_tests, Reads.VALUES, takes_evaluation=True, follows=Follows.VALUES_OF_ITS_MEASURE
)
PAIRED_TESTS_BY_GROUP = Question(
    paired_tests_by_group,
    Reads.VALUES,
    takes_evaluation=True,
    follows=Follows.VALUES_OF_ITS_MEASURE,
)
EFFECT_SIZES = Question(
    effect_sizes, Reads.VALUES, takes_evaluation=True, follows=Follows.VALUES_OF_ITS_MEASURE
)
QUERIES_NEEDED = Question(
    queries_needed, Reads.VALUES, takes_evaluation=True, follows=Follows.VALUES_OF_ITS_MEASURE
)
ANOVA = Question(anova, Reads.VALUES, takes_evaluation=True, follows=Follows.VALUES_OF_ITS_MEASURE)
BEST_PER_MEASURE = Question(best_per_measure, Reads.VALUES, takes_evaluation=True)
VERDICT_MARKS = Question(verdict_marks, Reads.VALUES, takes_evaluation=True)
BEATS = Question(beats, Reads.VALUES, takes_evaluation=True)
STANDINGS = Question(standings, Reads.VALUES, takes_evaluation=True)
VALUES_EVIDENCE = Question(values_evidence, Reads.VALUES)
