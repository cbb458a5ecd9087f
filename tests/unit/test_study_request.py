"""The front door: every front end opens a study from one frozen request (#54); the command line's
flags and the API's keywords build the same request, which opens the same study."""

from __future__ import annotations

import dataclasses

import pytest
from conftest import CRANFIELD, SAMPLES

from rankviz.cli.parser import build_parser
from rankviz.study.front_door import open_study
from rankviz.study.request import StudyRequest
from rankviz.study.run_study import Study
from rankviz.study.scores_study import ScoresStudy

RUNS = [str(CRANFIELD / "runs" / "bm25.run.gz"), str(CRANFIELD / "runs" / "dense.run.gz")]


def test_the_flags_and_the_keywords_build_the_same_request() -> None:
    args = build_parser().parse_args(
        [
            "evaluate",
            str(CRANFIELD / "qrels.txt"),
            *RUNS,
            "-m",
            "AP",
            "-m",
            "RR@10",
            "--rel",
            "2",
            "--ties",
            "random",
            "--score-range",
            "AP=0:1",
        ]
    )
    request = StudyRequest.from_args(args)
    assert request == StudyRequest(
        str(CRANFIELD / "qrels.txt"),
        RUNS,
        measures=["AP", "RR@10"],
        options={k: v for k, v in request.options.items()},
        ranges={"AP": (0.0, 1.0)},
    )
    assert request.runs == tuple(RUNS) and request.measures == ("AP", "RR@10")
    assert request.options["rel"] == 2 and request.options["ties"].name == "random"
    assert "aggregate" not in request.options
    assert request.judgments is None and request.diversity is None


def test_a_request_is_frozen_all_the_way_down() -> None:
    request = StudyRequest(CRANFIELD, ["bm25"], options={"rel": 2}, ranges={"AP": [0, 1]})
    with pytest.raises(dataclasses.FrozenInstanceError):
        request.runs = ("dense",)  # type: ignore[misc]
    with pytest.raises(TypeError):
        request.options["rel"] = 1  # type: ignore[index]
    assert request.runs == ("bm25",) and request.ranges["AP"] == (0, 1)


def test_a_request_opens_the_study_its_keywords_open() -> None:
    keywords = {"measures": ["AP", "nDCG@10"], "options": {"rel": 2}}
    by_request = Study.open(StudyRequest(CRANFIELD / "qrels.txt", RUNS, **keywords))
    by_keywords = Study.open(CRANFIELD / "qrels.txt", RUNS, **keywords)
    assert by_request.settings == by_keywords.settings and by_request.settings.rel == 2
    assert [m.key for m in by_request.measures] == [m.key for m in by_keywords.measures]
    assert by_request.evaluation().means().equals(by_keywords.evaluation().means())
    with pytest.raises(TypeError, match="holds every input"):
        Study.open(StudyRequest(CRANFIELD / "qrels.txt", RUNS), measures=["AP"])


def test_the_front_door_opens_runs_or_scores_as_the_first_input_holds() -> None:
    runs = open_study(StudyRequest(CRANFIELD, ["bm25", "dense"]))
    assert type(runs) is Study and list(runs.runs) == ["bm25", "dense"]
    scores = open_study(StudyRequest(SAMPLES / "rag-nuggets" / "scores.tsv"))
    assert isinstance(scores, ScoresStudy) and scores.evaluation().runs
