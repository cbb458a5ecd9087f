"""The meeting's report reads each run once and ranks the two runs it compares once (re-graded for
the queries whose judgments differ): its numbers are those of two studies built from nothing, one
under the qrels file, one with the meeting's judgments in force, under every tie policy."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import CRANFIELD

from rankviz.analyses.meeting_report import means_with_verdicts
from rankviz.io.collection import open_collection
from rankviz.io.meeting import MeetingStore
from rankviz.ranking.regrading import differing_queries
from rankviz.study import COMPARE, MEETING_REPORT, Study, StudyRequest


@pytest.fixture(scope="module")
def judged(tmp_path_factory) -> Path:
    """Cranfield with a record: bm25's top 5 of 12 queries re-graded (some pairs the qrels lack)."""
    folder = tmp_path_factory.mktemp("report") / "cranfield"
    shutil.copytree(CRANFIELD, folder, ignore=shutil.ignore_patterns("*.sqlite*"))
    run = open_collection(folder).read_run("bm25").to_frame()
    top = run.sort_values(["qid", "score"], ascending=[True, False]).groupby("qid").head(5)
    rows = [
        (str(q), str(d), (i * 7) % 5)
        for i, (q, d) in enumerate(zip(top["qid"], top["docid"], strict=True))
        if str(q) in {str(n) for n in range(1, 13)}
    ]
    MeetingStore(folder, collection="Cranfield").judge_many(rows, by="Ann", via="typed name")
    return folder


@pytest.mark.slow
@pytest.mark.parametrize("ties", ["trec_eval", "expected", "optimistic", "pessimistic"])
def test_the_reports_numbers_are_two_fresh_studies(judged: Path, ties: str) -> None:
    runs = ["bm25", "dense", "rrf"]
    meeting = Study.open(StudyRequest(judged, runs, judgments="", options={"ties": ties}))
    file_only = Study.open(StudyRequest(judged, runs, options={"ties": ties}))
    report = meeting.ask(MEETING_REPORT, meeting.record, file_study=file_only)
    fresh_meeting = Study.open(StudyRequest(judged, runs, judgments="", options={"ties": ties}))
    fresh_file = Study.open(StudyRequest(judged, runs, options={"ties": ties}))
    before, after = fresh_file.evaluation(), fresh_meeting.evaluation()
    test = meeting.test_settings()
    expected = means_with_verdicts(
        before,
        after,
        fresh_file.ask(COMPARE, test, evaluation=before),
        fresh_meeting.ask(COMPARE, test, evaluation=after),
    )
    pd.testing.assert_frame_equal(report.means, expected, check_exact=True)
    judged_queries = {j.qid for j in meeting.record.judgments()}
    assert {q.qid for q in report.queries} == judged_queries
    assert differing_queries(file_only.qrels, meeting.qrels) <= judged_queries
    # the query view of each discussed query is the meeting's tables', built from nothing
    from rankviz.analyses.query_view import aligned

    tables = fresh_meeting.tables(["bm25", "dense"])
    for query in report.queries:
        view = aligned(tables["bm25"], tables["dense"], query.qid, 10)
        assert list(query.documents["docid"][: len(view)]) == list(view["docid"])
        np.testing.assert_array_equal(  # NaN: not ranked, equal in both
            query.documents["bm25 rank"][: len(view)].to_numpy(float), view["baseline rank"]
        )


def test_differing_queries_are_the_queries_whose_judgments_differ() -> None:
    from rankviz.io.frames import qrels_from_dict

    a = qrels_from_dict({"1": {"d1": 1, "d2": 0}, "2": {"d1": 2}, "3": {"d9": 1}})
    b = qrels_from_dict({"1": {"d1": 1, "d2": 0}, "2": {"d1": 1}, "3": {"d9": 1, "d8": 0}})
    assert differing_queries(a, b) == {"2", "3"} and differing_queries(a, a) == set()


def test_the_report_is_of_the_pair_the_meeting_discussed(judged: Path) -> None:
    """The meeting compared dense and rrf on the deltas page while the test's baseline was bm25:
    the report showed bm25's ranks and verdicts "against bm25". With the pair it is dense's
    and rrf's ranks, and its verdicts are rrf's against dense."""
    runs = ["bm25", "dense", "rrf"]
    meeting = Study.open(StudyRequest(judged, runs, judgments=""))
    file_only = Study.open(StudyRequest(judged, runs))
    report = meeting.ask(
        MEETING_REPORT, meeting.record, file_study=file_only, pair=("dense", "rrf")
    )
    assert (report.baseline, report.run) == ("dense", "rrf")
    for query in report.queries:
        assert {"dense rank", "rrf rank"} <= set(query.documents.columns)
        assert "bm25 rank" not in query.documents.columns
    verdicts = report.means.set_index("run")
    assert set(verdicts.loc["dense", "verdict meeting"]) == {""}  # the baseline has none
    assert set(verdicts.loc["rrf", "verdict meeting"]) - {""}
    tables = Study.open(StudyRequest(judged, runs, judgments="")).tables(["dense", "rrf"])
    from rankviz.analyses.query_view import aligned

    first = report.queries[0]
    view = aligned(tables["dense"], tables["rrf"], first.qid, 10)
    np.testing.assert_array_equal(
        first.documents["rrf rank"][: len(view)].to_numpy(float), view["run rank"]
    )
    with pytest.raises(Exception, match="the meeting's pair is two of the runs"):
        meeting.ask(MEETING_REPORT, meeting.record, file_study=file_only, pair=("dense", "tfidf"))
