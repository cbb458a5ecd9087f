"""The numbers of a study whose judgments in force are an LLM's, corrected by people's
(``StudyRequest(correct_with=...)``, ``--correct-with``): each run's means and its paired deltas,
the PPI++ estimates of what people would give over every query, with intervals
(:mod:`rankviz.analyses.corrected`). Plain functions over a study and entries of
:data:`rankviz.study.questions.QUESTIONS`."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from rankviz.errors import OptionError
from rankviz.evaluation.result import Evaluation
from rankviz.ranking.regrading import Keeping
from rankviz.settings.significance_settings import CONFIDENCE, TestSettings
from rankviz.study.question import Question, Reads
from rankviz.study.study import Study

if TYPE_CHECKING:
    from rankviz.analyses.corrected import CorrectedDeltas, CorrectedMeans, Correction


def _both(
    study: Study, evaluation: Evaluation | None, check_k: int | None
) -> tuple[Evaluation, Evaluation]:
    """The runs' values under the judgments in force (the LLM's; ``evaluation`` when given, with
    the checks' facts of their top ``check_k``) and under people's: every run read once, its table
    under people's judgments re-graded from the LLM's, not ordered again."""
    if study.correction is None:
        raise OptionError("nothing corrects this study: give correct_with (--correct-with SOURCE)")
    if study.settings.group_by is not None or study.settings.aggregate != "query":
        raise OptionError(
            "a correction estimates the mean over all queries: without --group-by and with "
            "--aggregate query"
        )
    keeping = Keeping(study.orderer, study.run_names, changed=set(study.correction.qrels.query_ids))
    llm = study.sharing(keeping)
    human = dataclasses.replace(
        study.sharing(keeping, runs=llm.runs), qrels=study.correction.qrels, correction=None
    )
    return (evaluation or llm.evaluation(check_k=check_k)), human.evaluation()


def _correction(study: Study, llm: Evaluation, human: Evaluation) -> Correction:
    from rankviz.analyses.corrected import Correction

    assert study.correction is not None
    queries = [str(q) for q in llm.qids]
    judged = set(map(str, human.qids))
    return Correction(
        study.correction.sentence, sum(q in judged for q in queries), len(queries), drawn=False
    )


def corrected_means(
    study: Study,
    *,
    confidence: float = CONFIDENCE.default,
    evaluation: Evaluation | None = None,
    check_k: int | None = None,
) -> CorrectedMeans:
    """Each run's mean of each measure under the LLM's judgments, corrected by people's on the
    queries they judged (:func:`rankviz.analyses.prediction_powered.corrected_mean`).

    ``evaluation``: the runs' under the LLM's judgments, if evaluated already (else evaluated
    here, sharing each run's table with people's, with the checks' facts of the top ``check_k``;
    the report's :attr:`~rankviz.analyses.corrected.CorrectedMeans.evaluation`)."""
    from rankviz.analyses.corrected import CorrectedMeans, query_values
    from rankviz.analyses.prediction_powered import corrected_mean

    CONFIDENCE.check(confidence)
    llm, human = _both(study, evaluation, check_k)
    means = {
        (run, str(measure)): corrected_mean(
            *query_values(llm.per_query(measure, run), human.per_query(measure, run)),
            confidence=confidence,
        )
        for run in llm.runs
        for measure in llm.measures
    }
    return CorrectedMeans(means, _correction(study, llm, human), confidence, llm)


def corrected_deltas(
    study: Study,
    test: TestSettings | None = None,
    *,
    evaluation: Evaluation | None = None,
    check_k: int | None = None,
) -> CorrectedDeltas:
    """Every run's paired delta against the test's baseline on every measure, corrected; the
    p-values adjusted by the test's correction over the runs of one measure; ``evaluation`` and
    ``check_k`` as :func:`corrected_means` takes them."""
    from rankviz.analyses.corrected import corrected_deltas as deltas

    test = study.test_settings(test)
    llm, human = _both(study, evaluation, check_k)
    baseline = test.baseline or llm.runs[0]
    pairs = {
        (run, str(m)): (
            llm.per_query(m, baseline),
            llm.per_query(m, run),
            human.per_query(m, baseline),
            human.per_query(m, run),
        )
        for run in llm.runs
        if run != baseline
        for m in llm.measures
    }
    return deltas(
        pairs,
        baseline=baseline,
        correction=_correction(study, llm, human),
        confidence=test.confidence_level,
        method=test.correction,
        evaluation=llm,
    )


CORRECTED_MEANS = Question(corrected_means, Reads.RANKINGS, takes_evaluation=True)
CORRECTED_DELTAS = Question(corrected_deltas, Reads.RANKINGS, takes_evaluation=True)
