"""What a study can answer is declared once, by the entries of one table (#54, #68): each question
says whether it reads the runs' rankings; a study of per-query scores alone, the same class as a
study of runs, refuses those in one line before they start and answers the others as a study of
runs does."""

from __future__ import annotations

import ast
import inspect

import pytest
from conftest import CRANFIELD, ROOT, SAMPLES
from scipy import stats

import rankviz as rv
import rankviz.study as face
from rankviz.errors import OptionError
from rankviz.settings.significance_settings import TestSettings
from rankviz.study import (
    COMPARE,
    OVERLAP,
    PAIRED_TESTS,
    QUESTIONS,
    STANDINGS,
    Reads,
    Study,
    StudyRequest,
)

SCORES = SAMPLES / "rag-nuggets" / "scores.tsv"


def test_every_question_is_an_entry_of_the_table_named_as_its_function() -> None:
    """Each Question built in the study's folder is in QUESTIONS once, under its function's name
    in capitals (as the face names it); its function is a plain function of the study first."""
    built = set()
    for path in (ROOT / "rankviz" / "study").glob("*.py"):
        for node in ast.parse(path.read_text()).body:
            if (
                isinstance(node, ast.Assign)
                and isinstance(node.value, ast.Call)
                and getattr(node.value.func, "id", "") == "Question"
            ):
                built |= {target.id for target in node.targets if isinstance(target, ast.Name)}
    assert built == {q.name.upper() for q in QUESTIONS}
    assert len({q.name for q in QUESTIONS}) == len(QUESTIONS)
    for question in QUESTIONS:
        assert getattr(face, question.name.upper()) is question
        first = next(iter(inspect.signature(question.answer).parameters.values()))
        assert first.name == "study" and first.annotation in ("Study", Study), question
        assert inspect.getdoc(question.answer), question


def test_an_entry_takes_the_evaluation_exactly_when_its_function_does() -> None:
    """A front end hands the numbers it shows to the questions whose entries say they take them:
    each of those takes ``evaluation=None``, and no other entry's function takes an
    ``evaluation``."""
    for question in QUESTIONS:
        parameters = inspect.signature(question.answer).parameters
        if question.takes_evaluation:
            taken = parameters["evaluation"]
            assert taken.kind is inspect.Parameter.KEYWORD_ONLY and taken.default is None
        else:
            assert "evaluation" not in parameters, question


def test_study_is_one_class_of_runs_or_of_scores() -> None:
    assert Study.__bases__ == (object,) and not Study.__subclasses__()
    runs = Study.open(StudyRequest(CRANFIELD, ("bm25", "dense"), ("AP",)))
    scores = Study.open(StudyRequest(SCORES))
    assert type(runs) is type(scores) is Study
    assert runs.ranked and not scores.ranked


def test_a_study_of_scores_refuses_every_question_that_reads_rankings_in_one_line() -> None:
    """Refused by the entry, before the question starts (no argument is even read), with the
    question and the runs named; a ranking table is refused the same way."""
    scores = Study.open(StudyRequest(SCORES))
    runs = ", ".join(scores.run_names)
    reading = [q for q in QUESTIONS if q.reads is Reads.RANKINGS]
    assert {"tie_report", "check", "facts", "overlap", "run_pass", "chance"} <= {
        q.name for q in reading
    }
    for question in reading:
        said = f"{question.name.replace('_', ' ')} needs the runs' rankings; {runs} are per-query"
        with pytest.raises(OptionError, match="^" + said):
            scores.ask(question)  # type: ignore[call-arg]
    with pytest.raises(OptionError, match="^a ranking table needs the runs' rankings"):
        scores.table(scores.run_names[0])
    with pytest.raises(OptionError, match="^another tie policy needs the runs' rankings"):
        scores.evaluation(ties="expected")


def test_a_question_of_the_values_is_answered_for_scores_as_for_runs() -> None:
    """The same entries answer a study of scores from its values: the comparison is the one of
    its evaluation, the paired t-test scipy's on its matrix, the standings its means' order; and a
    study of runs answers a question of rankings."""
    scores = Study.open(StudyRequest(SCORES))
    first, second = scores.run_names[:2]
    test = TestSettings(test="t", baseline=first, seed=0, n_resamples=500)
    measure = scores.measures[0]
    evaluation = scores.evaluation()
    compared = scores.ask(COMPARE, test)
    assert repr(compared.to_dict()) == repr(rv.compare(evaluation, test).to_dict())
    table = scores.ask(PAIRED_TESTS, measure, test).set_index("run")
    values = evaluation.matrix(measure, complete=False)[[first, second]].dropna()
    reference = stats.ttest_rel(values[second], values[first])
    assert table.loc[second, "p_value"] == pytest.approx(reference.pvalue, rel=1e-12)
    found = scores.ask(STANDINGS, test).to_frames()["standings"]
    of_measure = found[found["measure"] == str(measure)]
    means = evaluation.means()[str(measure)]
    assert list(of_measure.sort_values("rank", kind="stable")["run"]) == list(
        means.sort_values(ascending=False).index
    )
    runs = Study.open(StudyRequest(CRANFIELD, ("bm25", "dense"), ("AP",)))
    assert runs.ask(OVERLAP, "bm25", "dense").size


def test_a_question_that_refuses_says_which_question_it_was() -> None:
    scores = Study.open(StudyRequest(SCORES))
    with pytest.raises(OptionError, match="^tie report needs"):
        scores.ask(face.TIE_REPORT)
