"""AppTest: grades typed as text beside the judging grid (the keyboard's way to judge, #55):
recorded in one transaction as the grid records them, or refused in one line with nothing of the
line recorded and the text kept to be corrected."""

from __future__ import annotations

import pytest
from apptest import shown, start

from rankviz.app.meeting.typed_grades import LABEL, parse
from rankviz.io.meeting import MeetingStore


@pytest.fixture
def notes(tmp_path, monkeypatch):
    monkeypatch.setenv("RANKVIZ_NOTES", str(tmp_path))
    return tmp_path / "cranfield.sqlite"


def _field(at):
    return next(t for t in at.text_input if t.label == LABEL)


def test_the_line_is_read_as_docid_grade_pairs() -> None:
    shown_docs = ["746", "665", "573"]
    assert parse("746 2, 665 0;573 1\n", shown_docs) == (
        [("746", 2), ("665", 0), ("573", 1)],
        [],
    )
    pairs, problems = parse("746 2, 999 1, 665 high, 573, 746 3", shown_docs)
    assert pairs == [("746", 2), ("746", 3)]
    assert problems == [
        "999 is not among this query's documents shown",
        "665: high is not a whole grade",
        "'573' is not a docid and a grade",
        "746 is graded twice",
    ]


@pytest.mark.slow
def test_a_typed_line_is_recorded_and_a_wrong_one_is_refused_whole(notes) -> None:
    at = start("deltas", query="1", baseline="bm25", run="dense", measures="AP")
    assert _field(at).disabled  # no name, no entry
    at.text_input(key="meeting.name").input("Ann").run()
    _field(at).input("746 2, 665 44").run()
    refusal = next(shown(e) for e in at.error if "Not recorded" in shown(e))
    assert "665: grade 44 is not one of the grades of this collection: 0, 1, 2, 3, 4" in refusal
    assert not notes.exists() or MeetingStore(notes, create=False).judgments() == []
    assert _field(at).value == "746 2, 665 44"  # kept to be corrected
    _field(at).input("746 2, 665 0").run()
    assert not at.exception
    recorded = MeetingStore(notes, create=False).judgments()
    assert sorted((j.qid, j.docid, j.grade, j.by) for j in recorded) == [
        ("1", "665", 0, "Ann"),
        ("1", "746", 2, "Ann"),
    ]
    assert any("Recorded by Ann: 2 judgment(s) of query 1" in shown(t) for t in at.toast)
    assert _field(at).value == ""  # the field starts afresh for the next line
