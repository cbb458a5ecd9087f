"""The one opener: every front end opens a study from one frozen request (#54, #68); the command
line's flags and the API's keywords build the same request, which ``Study.open`` alone opens."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from conftest import CRANFIELD, SAMPLES

from rankviz.cli.parser import build_parser
from rankviz.errors import OptionError
from rankviz.study import Study, StudyRequest

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


def test_the_opener_takes_a_request_and_nothing_else() -> None:
    """The keywords build the request; the opener takes the request alone (and how it reads)."""
    opened = Study.open(
        StudyRequest(CRANFIELD / "qrels.txt", RUNS, measures=["AP"], options={"rel": 2})
    )
    assert opened.settings.rel == 2 and [str(m) for m in opened.measures] == ["AP(rel=2)"]
    with pytest.raises(TypeError, match="takes a StudyRequest"):
        Study.open(CRANFIELD / "qrels.txt")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        Study.open(StudyRequest(CRANFIELD / "qrels.txt", RUNS), measures=["AP"])  # type: ignore[call-arg]


def test_the_opener_opens_runs_or_scores_as_the_first_input_holds() -> None:
    runs = Study.open(StudyRequest(CRANFIELD, ["bm25", "dense"]))
    assert runs.ranked and list(runs.runs) == ["bm25", "dense"]
    scores = Study.open(StudyRequest(SAMPLES / "rag-nuggets" / "scores.tsv"))
    assert type(scores) is Study and not scores.ranked and scores.evaluation().runs


def test_the_meetings_grades_are_the_collections_whatever_gmax_the_measures_take(tmp_path) -> None:
    """ERR's ``gmax`` (an option of the measures) does not decide which of the meeting's grades are
    in force: a grade 4 recorded on Cranfield (its gmax 4) stays in force under ``gmax=2``, as the
    app reads the same record (one road for the record and its grade scale)."""
    import shutil

    from rankviz.io.meeting import MeetingStore

    folder = tmp_path / "cranfield"
    shutil.copytree(CRANFIELD, folder)
    MeetingStore(folder).judge("1", "184", 4, by="Ann", via="typed name")
    for gmax in (4, 2):
        study = Study.open(
            StudyRequest(folder, ("bm25",), ("AP",), judgments="", options={"gmax": gmax})
        )
        frame = study.qrels.to_frame()
        judged = frame[(frame["qid"] == "1") & (frame["docid"] == "184")]
        assert judged["rel"].tolist() == [4], gmax  # the file says 3
        assert not [note for note in study.notes if "left out" in note or "184" in note], gmax


def test_a_request_may_name_a_collection_already_opened(tmp_path) -> None:
    """A server opens the collections it serves confined to their folders; a request takes the
    collection it opened, of runs or of scores alone, and opens what the folder would, never what
    a link out of the folder points at."""
    import shutil

    from rankviz.io.collection import open_collection

    opened = open_collection(CRANFIELD, confined=True)
    served = Study.open(StudyRequest(opened, ("bm25", "dense"), ("AP", "nDCG@10")))
    assert served.ranked and served.collection is opened
    read = Study.open(StudyRequest(CRANFIELD, ("bm25", "dense"), ("AP", "nDCG@10")))
    assert served.evaluation().means().equals(read.evaluation().means())
    scores = tmp_path / "scores-alone"  # a collection of the nugget scores alone
    scores.mkdir()
    shutil.copy(SAMPLES / "rag-nuggets" / "scores.tsv", scores / "scores.tsv")
    alone = Study.open(StudyRequest(open_collection(scores, confined=True), aggregate="query"))
    assert not alone.ranked
    assert alone.evaluation().means().equals(Study.open(StudyRequest(scores)).evaluation().means())
    folder = tmp_path / "linked"
    shutil.copytree(CRANFIELD, folder)
    shutil.copy(CRANFIELD / "runs" / "dense.run.gz", tmp_path / "elsewhere.run.gz")
    (folder / "runs" / "outside.run.gz").symlink_to(tmp_path / "elsewhere.run.gz")
    assert "outside" in Study.open(StudyRequest(folder, measures=("AP",))).run_names
    confined = open_collection(folder, confined=True)
    assert "outside" not in Study.open(StudyRequest(confined, measures=("AP",))).run_names


def test_the_meetings_tags_group_the_queries_on_every_front_end(tmp_path) -> None:
    """``group_by="tag"`` reads the meeting's tags wherever a study is opened with its record (the
    app offered it alone): each tag's mean is the mean of its queries' values, the untagged
    apart."""
    import shutil

    from rankviz.cli import main
    from rankviz.io.meeting import MeetingStore
    from rankviz.study.in_force import UNTAGGED

    folder = tmp_path / "cranfield"
    shutil.copytree(CRANFIELD, folder)
    with pytest.raises(OptionError, match="--judgments with a meeting that tagged queries"):
        Study.open(StudyRequest(folder, ["bm25"], measures=["AP"], options={"group_by": "tag"}))
    store = MeetingStore(folder)
    for qid in ("1", "2", "3"):
        store.tag(qid, "short pool", by="Ann", via="typed name")
    store.tag("4", "ambiguous", by="Ann", via="typed name")
    study = Study.open(
        StudyRequest(folder, ["bm25"], measures=["AP"], judgments="", options={"group_by": "tag"})
    )
    found = study.evaluation()
    values = found.matrix("AP")["bm25"]
    means = found.group_means("AP")
    assert means.loc["short pool", "bm25"] == pytest.approx(values[["1", "2", "3"]].mean())
    assert means.loc["ambiguous", "bm25"] == pytest.approx(values["4"])
    rest = values.drop(["1", "2", "3", "4"])
    assert means.loc[UNTAGGED, "queries"] == len(rest)
    assert means.loc[UNTAGGED, "bm25"] == pytest.approx(rest.mean())
    assert (
        main(["evaluate", str(folder), "bm25", "-m", "AP", "--judgments", "--group-by", "tag"]) == 0
    )


def test_a_reading_reads_every_input_opening_reads_and_decides_nothing(tmp_path) -> None:
    """``Study.open(request, reading=...)``: each file a study opens is read by the reading handed
    in (a server's keeps what it read), the record and its merge, tags and other judges' qrels
    too; the numbers, qrels and notes are those of the files read directly."""
    import shutil

    from rankviz.io.meeting import MeetingStore
    from rankviz.study.reading import Reading

    class Counting(Reading):
        def __init__(self) -> None:
            self.asked: list[str] = []

        def qrels(self, path):
            self.asked.append(f"qrels {Path(path).name}")
            return super().qrels(path)

        def record(self, path, scale, collection):
            self.asked.append("record")
            return super().record(path, scale, collection)

        def record_qrels(self, qrels, record):
            self.asked.append("record qrels")
            return super().record_qrels(qrels, record)

        def tags(self, record, qrels):
            self.asked.append("tags")
            return super().tags(record, qrels)

    folder = tmp_path / "cranfield"
    shutil.copytree(CRANFIELD, folder)
    store = MeetingStore(folder)
    store.judge("1", "184", 0, by="Ann", via="typed name")
    store.tag("2", "short pool", by="Ann", via="typed name")
    request = StudyRequest(folder, ("bm25", "dense"), ("AP", "nDCG@10"), judgments="")
    reading = Counting()
    read = Study.open(request, reading=reading)
    assert reading.asked == ["qrels qrels.txt", "record", "record qrels", "tags"]
    direct = Study.open(request)
    assert read.evaluation().means().equals(direct.evaluation().means())
    assert read.notes == direct.notes and read.in_force is not None
    assert read.in_force.mode == "meeting" and "1 judgments in force" in read.in_force.sentence
    assert read.qrels.to_frame().equals(direct.qrels.to_frame())
    assert read.groups is not None and "tag" in read.groups.columns


def test_a_request_takes_qrels_and_runs_already_read_and_opens_no_run_itself() -> None:
    """What a server holds (uploaded qrels, runs opened when asked) opens as the files would: the
    collection given beside read qrels lends its conventions and measures; no run is opened until a
    number needs it, and a study narrowed to some runs opens none of the others."""
    from rankviz.io.readers import read_qrels, read_run
    from rankviz.io.runs_when_asked import RunsWhenAsked

    opened: list[str] = []
    runs = RunsWhenAsked()
    for name in ("bm25", "dense", "qld"):
        path = CRANFIELD / "runs" / f"{name}.run.gz"

        def open_run(name=name, path=path):
            opened.append(name)
            return read_run(path, name=name)

        runs.add(name, open_run)
    from rankviz.io.collection import open_collection

    collection = open_collection(CRANFIELD)
    qrels = read_qrels(str(CRANFIELD / "qrels.txt"))
    request = StudyRequest(
        qrels, runs, ("AP", "nDCG@10"), options={"rel": 2}, collection=collection
    )
    study = Study.open(request)
    assert opened == [] and study.run_names == ["bm25", "dense", "qld"]
    assert study.settings.rel == 2 and study.groups is None and study.weights is None
    two = study.only(["dense", "bm25"])
    assert opened == [] and two.run_names == ["dense", "bm25"]
    files = Study.open(
        StudyRequest(
            CRANFIELD / "qrels.txt",
            [CRANFIELD / "runs" / "dense.run.gz", CRANFIELD / "runs" / "bm25.run.gz"],
            measures=["AP", "nDCG@10"],
            options={"rel": 2},
        )
    )
    means = two.evaluation().means()
    assert sorted(opened) == ["bm25", "dense"]
    assert means.equals(files.evaluation().means())
