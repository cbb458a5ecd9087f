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
from rankviz.measures import Measure
from rankviz.ranking.regrading import Keeping
from rankviz.settings.significance_settings import CONFIDENCE, TestSettings
from rankviz.study.question import Question, Reads
from rankviz.study.study import Study
from rankviz.study.value_questions import lower_is_better

if TYPE_CHECKING:
    from rankviz.analyses.corrected import CorrectedDeltas, CorrectedMeans, Correction
    from rankviz.analyses.query_draw import QueryDraw


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


def _draw(study: Study) -> QueryDraw | None:
    """The draw of queries for people to judge that the study's meeting record keeps, if any."""
    from rankviz.analyses.query_draw import QueryDraw

    kept = study.record.draw() if study.record is not None else None
    return QueryDraw.from_json(kept) if kept else None


def _correction(
    study: Study, llm: Evaluation, human: Evaluation, draw: QueryDraw | None
) -> Correction:
    from rankviz.analyses.corrected import Correction

    assert study.correction is not None
    queries = [str(q) for q in llm.qids]
    judged = set(map(str, human.qids))
    if draw is not None:
        judged &= set(draw.probabilities)
        done = sum(q in judged for q in draw.probabilities)
        said = f"{draw.said()}; {done:,} of them judged"
    return Correction(
        study.correction.sentence,
        sum(q in judged for q in queries),
        len(queries),
        drawn=said if draw is not None else "",
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
    from rankviz.analyses.corrected import CorrectedMeans, estimate

    CONFIDENCE.check(confidence)
    llm, human = _both(study, evaluation, check_k)
    draw = _draw(study)
    means = {
        (run, str(measure)): estimate(
            llm.per_query(measure, run),
            human.per_query(measure, run),
            draw=draw,
            confidence=confidence,
        )
        for run in llm.runs
        for measure in llm.measures
    }
    return CorrectedMeans(means, _correction(study, llm, human, draw), confidence, llm)


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
    draw = _draw(study)
    return deltas(
        pairs,
        baseline=baseline,
        correction=_correction(study, llm, human, draw),
        confidence=test.confidence_level,
        method=test.correction,
        evaluation=llm,
        draw=draw,
        alpha=test.alpha,
        lower_is_better=lower_is_better(llm.measures),
    )


def queries_to_judge(
    study: Study,
    n: int,
    *,
    seed: int = 0,
    by: str = "uniform",
    measure: Measure | None = None,
) -> QueryDraw:
    """Draw ``n`` of the queries the judgments in force (the LLM's) judge for people to judge
    (:func:`rankviz.analyses.query_draw.draw_queries`); by uncertainty, where the runs' values of
    ``measure`` (the study's first) under those judgments spread the most."""
    from rankviz.analyses.query_draw import draw_queries

    qids = [str(q) for q in study.qrels.query_ids]
    if by != "uncertainty":
        return draw_queries(qids, n, seed=seed, by=by)
    chosen = measure or study.measures[0]
    values = study.evaluation(measures=[chosen]).matrix(chosen).reindex(qids)
    spread = values.std(axis=1, ddof=0).fillna(0.0).to_numpy()
    return draw_queries(qids, n, seed=seed, by=by, spread=spread)


def drawn_to_judge(study: Study) -> tuple[list[str], int]:
    """The queries of the record's draw that its meeting has not judged yet, in the draw's order,
    and how many were drawn (([], 0) without a draw): what the meeting's queue offers first."""
    draw = _draw(study)
    if draw is None or study.record is None:
        return [], 0
    judged = {qid for qid, _ in study.record.latest()}
    return [q for q in draw.probabilities if q not in judged], len(draw.probabilities)


CORRECTED_MEANS = Question(corrected_means, Reads.RANKINGS, takes_evaluation=True)
CORRECTED_DELTAS = Question(corrected_deltas, Reads.RANKINGS, takes_evaluation=True)
QUERIES_TO_JUDGE = Question(queries_to_judge, Reads.RANKINGS)
DRAWN_TO_JUDGE = Question(drawn_to_judge, Reads.VALUES)
