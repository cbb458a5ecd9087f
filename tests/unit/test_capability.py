"""What a study can answer is declared (#54): a question that reads rankings is marked, a study of
per-query scores alone refuses the marked ones in one line and answers the others as a study of
runs does; no study overrides a question to refuse it."""

from __future__ import annotations

import pytest
from conftest import CRANFIELD, SAMPLES

from rankviz.errors import OptionError
from rankviz.settings.significance_settings import TestSettings
from rankviz.study.capability import rankings_needed
from rankviz.study.front_door import open_study
from rankviz.study.request import StudyRequest
from rankviz.study.run_study import Study
from rankviz.study.scores_study import ScoresStudy

SCORES = SAMPLES / "rag-nuggets" / "scores.tsv"


def test_what_needs_rankings_is_declared_once_and_inherited_as_declared() -> None:
    needed = rankings_needed(Study)
    assert {"table", "tables", "chance", "check", "facts", "run_pass", "tie_report"} <= needed
    assert {"aligned", "overlap", "precision_recall", "unjudged_report"} <= needed
    assert not needed & {"evaluation", "pair", "compare", "paired_tests", "standings"}
    assert rankings_needed(ScoresStudy) == needed
    assert not needed & set(vars(ScoresStudy))  # none overridden to refuse


def test_a_study_of_scores_refuses_each_marked_question_in_one_line() -> None:
    scores = open_study(StudyRequest(SCORES))
    assert isinstance(scores, ScoresStudy) and not scores.ranked
    first, second = scores.run_names[:2]
    asked = {
        "table": (first,),
        "chance": (),
        "check": (),
        "facts": (),
        "overlap": (first, second),
        "precision_recall": (),
    }
    for question, args in asked.items():
        with pytest.raises(OptionError, match="^this needs the runs' rankings; .* per-query"):
            getattr(scores, question)(*args)
    tested = scores.compare(TestSettings(test="t", baseline=first))  # of the values alone: answered
    assert tested.to_dict()
    runs = open_study(StudyRequest(CRANFIELD, ("bm25", "dense"), ("AP",)))
    assert runs.ranked and runs.table("bm25").run_name == "bm25"
    assert runs.overlap("bm25", "dense").size
