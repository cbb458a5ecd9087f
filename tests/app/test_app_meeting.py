"""AppTest of the meeting's record: tags and notes recorded under a name, the history, the qrels in
force, the Overview's change against the command line, group by tag, exports, an unwritable
record."""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from apptest import conventions, shown, start
from conftest import CRANFIELD, ROOT, run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rankviz.app.meeting.drafts import changed_judgments
from rankviz.app.panels.meeting_panel import judging_table
from rankviz.io.collection import open_collection
from rankviz.io.meeting import MeetingStore
from rankviz.study import StudyRequest

HOSTILE_TAG = "<script>alert(1)</script> **x**"
HOSTILE_NOTE = (
    'a **note** [link](http://evil.example) ![i](http://evil.example/i.png) it\'s "quoted" $$x$$'
)


@pytest.fixture
def notes(tmp_path, monkeypatch):
    """A fresh folder for the meeting records of this test (cranfield's: notes/cranfield.sqlite)."""
    monkeypatch.setenv("RANKVIZ_NOTES", str(tmp_path))
    return tmp_path / "cranfield.sqlite"


def widget(elements, label: str):
    return next(w for w in elements if w.label == label)


def texts(at) -> list[str]:
    """Every markdown-rendered text of the page, as written in its source (before markdown)."""
    kinds = ("markdown", "caption", "success", "info", "warning", "error", "subheader", "header")
    return [e.value for kind in kinds for e in at.get(kind)]


def prefilled(store: MeetingStore, queries: int = 6) -> dict[tuple[str, str], int]:
    """Judge the documents bm25 ranks in its top 10 that the qrels leave unjudged (grade 2), on a
    few queries."""
    collection = open_collection(CRANFIELD)
    judged = collection.read_qrels().to_frame()
    known = set(zip(judged["qid"].astype(str), judged["docid"].astype(str), strict=True))
    run = collection.read_run("bm25")
    frame = pd.DataFrame(
        {
            "qid": run.query_ids[run.qid_codes],
            "docid": run.docids.to_numpy(zero_copy_only=False),
            "score": run.score,
        }
    )
    grades = {}
    for qid in list(dict.fromkeys(judged["qid"].astype(str)))[:queries]:
        top = frame[frame.qid == qid].sort_values(["score", "docid"], ascending=False).head(10)
        for docid in top.docid.astype(str):
            if (qid, docid) not in known:
                grades[(qid, docid)] = 2
    store.judge_many(
        [(q, d, g) for (q, d), g in grades.items()],
        by="Ann",
        via="typed name",
        note="found in the meeting",
    )
    return grades


def prefilled_more(store: MeetingStore, done: dict) -> int:
    """Re-judge the first judged documents of three more queries (grade 0 to 3, 3 to 0): how
    many."""
    judged = open_collection(CRANFIELD).read_qrels().to_frame()
    touched = {q for q, _ in done}
    rows = (
        judged[~judged["qid"].astype(str).isin(touched)].groupby("qid", sort=False).head(1).head(3)
    )
    store.judge_many(
        [
            (str(q), str(d), 0 if int(g) else 3)
            for q, d, g in zip(rows.qid, rows.docid, rows.rel, strict=True)
        ],
        by="Bob",
        via="typed name",
    )
    return len(rows)


@pytest.mark.slow
def test_tags_and_notes_are_recorded_under_the_name_and_shown_literally(notes) -> None:
    at = start("deltas", query="1")
    assert not at.exception and not at.error
    # no name yet: nothing can be recorded
    assert widget(at.multiselect, "Tags of this query").disabled
    assert any("Give your name" in shown(i) for i in at.info)
    at.text_input(key="meeting.name").input("Ann <b>").run()
    widget(at.multiselect, "Tags of this query").select(HOSTILE_TAG).run()
    widget(at.text_area, "Note on this query").input(HOSTILE_NOTE).run()
    assert not at.exception and not at.error
    store = MeetingStore(notes, create=False)
    assert store.tags() == {"1": [HOSTILE_TAG]} and store.notes() == {"1": HOSTILE_NOTE}
    assert {e.by for e in store.history("1")} == {"Ann <b>"}
    history = next(d.value for d in at.dataframe if "kind" in d.value.columns)
    assert set(history["what"]) == {HOSTILE_TAG, HOSTILE_NOTE} and set(history["by"]) == {"Ann <b>"}
    assert widget(at.text_area, "Note on this query").value == HOSTILE_NOTE
    assert widget(at.multiselect, "Tags of this query").value == [HOSTILE_TAG]
    for text in texts(at):  # user text reaches markdown escaped, or not at all
        assert (
            "<script>" not in text
            and "**note**" not in text
            and "](http" not in text
            and "<b>" not in text
        )
    widget(at.multiselect, "Tags of this query").unselect(HOSTILE_TAG).run()
    assert store.tags() == {} and [e.kind for e in store.history("1")] == ["tag", "note", "untag"]


@pytest.mark.slow
def test_a_second_session_sees_the_first_ones_entries_on_its_next_rerun(notes) -> None:
    first, second = start("deltas", query="1"), start("deltas", query="1")
    first.text_input(key="meeting.name").input("Ann").run()
    widget(first.multiselect, "Tags of this query").select("needs reasoning").run()
    assert widget(second.multiselect, "Tags of this query").value == []
    second.run()
    assert widget(second.multiselect, "Tags of this query").value == ["needs reasoning"]
    assert widget(second.multiselect, "Tags of this query").options == ["needs reasoning"]
    assert second.text_input(key="meeting.name").value == ""  # the name is the session's own


@pytest.mark.slow
def test_the_meeting_qrels_in_force_change_every_number_as_the_command_line_does(notes) -> None:
    qrels_bytes = hashlib.sha256((CRANFIELD / "qrels.txt").read_bytes()).hexdigest()
    grades = prefilled(MeetingStore(notes))
    assert len(grades) >= 10
    file_view = start(qrels="file")
    # the meeting's judgments are in force by default once the record holds some
    meeting_view = start()
    assert "qrels" not in meeting_view.query_params and file_view.query_params["qrels"] == "file"
    # seen in projector mode too
    assert [r.value for r in meeting_view.main.radio if r.label == "Qrels in force"] == ["meeting"]
    assert not meeting_view.exception and not meeting_view.error
    assert f"the meeting's {len(grades)} judgments in force" in conventions(meeting_view)
    assert f"the meeting's {len(grades)} judgments not applied" in conventions(file_view)
    cli = subprocess.run(
        [
            sys.executable,
            "-m",
            "rankviz",
            "evaluate",
            str(CRANFIELD),
            "--judgments",
            str(notes),
            "--format",
            "tsv",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    expected = pd.read_csv(io.StringIO(cli.stdout), sep="\t").pivot(
        index="run", columns="measure", values="value"
    )
    said = next(line for line in cli.stderr.splitlines() if "qrels: " in line)
    # the same sentence on both roads
    assert said.removeprefix("rankviz: ") in conventions(meeting_view)
    as_file = subprocess.run(
        [
            sys.executable,
            "-m",
            "rankviz",
            "evaluate",
            str(CRANFIELD),
            "--judgments",
            str(notes),
            "--qrels",
            "file",
            "--no-check",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    said = next(line for line in as_file.stderr.splitlines() if "qrels: " in line)
    assert said.removeprefix("rankviz: ") in conventions(file_view)
    means = meeting_view.dataframe[0].value
    plain = file_view.dataframe[0].value
    assert not means.equals(plain)
    for run in means.index:
        for measure in means.columns:
            assert means.loc[run, measure] == pytest.approx(expected.loc[run, measure], abs=1e-12)
    moved = next(d.value for d in meeting_view.dataframe if "change" in d.value.columns)
    table_of_changes = [
        d.value
        for d in meeting_view.dataframe[1:]
        if list(d.value.columns) == list(means.columns) and set(d.value.index) == set(means.index)
    ]
    assert any(
        np.allclose(c.loc[means.index].to_numpy(), (means - plain).to_numpy(), atol=1e-12)
        for c in table_of_changes
    )
    for (run, measure), row in moved.iterrows():
        assert row["with the meeting's"] == pytest.approx(expected.loc[run, measure], abs=1e-12)
        assert row["qrels file"] == pytest.approx(plain.loc[run, measure], abs=1e-12)
        assert row["change"] == pytest.approx(
            row["with the meeting's"] - row["qrels file"], abs=1e-12
        )
    # a later judgment: the newest results are revised for the queries it judged, to the same
    # numbers
    store = MeetingStore(notes)
    later = prefilled_more(store, grades)
    meeting_view.run()
    cli = subprocess.run(
        [
            sys.executable,
            "-m",
            "rankviz",
            "evaluate",
            str(CRANFIELD),
            "--judgments",
            str(notes),
            "--format",
            "tsv",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    expected = pd.read_csv(io.StringIO(cli.stdout), sep="\t").pivot(
        index="run", columns="measure", values="value"
    )
    assert f"the meeting's {len(grades) + later} judgments in force" in conventions(meeting_view)
    revised_means = meeting_view.dataframe[0].value
    assert not revised_means.equals(means)
    for run in revised_means.index:
        for measure in revised_means.columns:
            assert revised_means.loc[run, measure] == pytest.approx(
                expected.loc[run, measure], abs=1e-12
            )
    labels = [b.label for b in meeting_view.get("download_button")]
    assert {"Merged qrels (TREC)", "Judgment log (CSV)", "Tags and notes (CSV)"} <= set(labels)
    assert "qrels" not in meeting_view.query_params
    # the meeting's report sits on the meeting's page, of the pair it discusses
    other_pair = start("deltas", query=next(iter(grades))[0], baseline="dense", run="rrf")
    (report,) = [b for b in other_pair.get("download_button") if b.label == "Meeting report (HTML)"]
    assert "dense against rrf" in report.proto.help
    deltas = start("deltas", qrels="meeting", query=next(iter(grades))[0])
    judging = next(d.value for d in deltas.dataframe if "qrels file" in d.value.columns)
    judged_here = {d for (q, d) in grades if q == next(iter(grades))[0]}
    assert set(judging.loc[judging["meeting"] != "", "docid"]) == judged_here
    # unjudged in the file first
    assert (judging["qrels file"].iloc[: len(judged_here)] == "unjudged").all()
    assert hashlib.sha256((CRANFIELD / "qrels.txt").read_bytes()).hexdigest() == qrels_bytes


@pytest.mark.slow
def test_tags_are_query_groups_on_every_page(notes) -> None:
    store = MeetingStore(notes)
    store.tag("1", "needs reasoning", by="Ann", via="typed name")
    store.tag("2", "needs reasoning", by="Ann", via="typed name")
    store.tag("2", "qrels wrong", by="Bob", via="typed name")
    at = start(group_by="tag")
    assert not at.exception and not at.error
    groups = (
        at.dataframe[-1].value
        if "queries" in at.dataframe[-1].value.columns
        else next(d.value for d in at.dataframe if "queries" in d.value.columns)
    )
    labels = {str(v) for v in groups.index.get_level_values(-1)} | {
        str(v) for v in groups.index.get_level_values(0)
    }
    assert {"needs reasoning", "needs reasoning + qrels wrong", "(untagged)"} <= labels
    deltas = start("deltas", group_by="tag")
    assert not deltas.exception and not deltas.error


def test_a_record_that_cannot_be_made_says_so_before_anyone_types_and_the_page_still_works(
    tmp_path, monkeypatch
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("RANKVIZ_NOTES", str(blocker / "notes"))
    at = start("deltas", query="1")
    assert not at.exception
    assert any(
        "Read only: the folder of the record cranfield.sqlite does not exist" in shown(i)
        for i in at.info
    )
    # nobody is asked to type what cannot be kept
    assert not [t for t in at.text_input if t.key == "meeting.name"]
    assert all(w.disabled for w in at.text_area if w.key == "meeting.note:1")
    assert at.dataframe[0].value is not None  # the rest of the page is there


def _immutable(path) -> None:
    """Make ``path`` unwritable even for root (``chattr +i``), else skip: root ignores file
    modes."""
    import subprocess

    if os.geteuid() != 0:
        path.chmod(0o444)
        return
    done = subprocess.run(["chattr", "+i", str(path)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot make a file read-only for root here (chattr: {done.stderr.strip()})")


@pytest.mark.slow
def test_a_read_only_record_opens_read_only_with_its_numbers_and_a_message(notes) -> None:
    import subprocess

    MeetingStore(notes).judge("1", "184", 4, by="Ann", via="typed name")
    before = notes.read_bytes()
    _immutable(notes)
    try:
        at = start("deltas", query="1", qrels="meeting")
        assert not at.exception
        assert any(
            "Read only: the record" in shown(i) and "is read-only" in shown(i) for i in at.info
        )
        assert not [t for t in at.text_input if t.key == "meeting.name"]
        overview = start("overview", qrels="meeting")
        assert not overview.exception and "with the meeting's 1 judgments in force" in conventions(
            overview
        )
        cli = subprocess.run(
            [
                sys.executable,
                "-m",
                "rankviz",
                "judgments",
                "add",
                str(notes),
                "1",
                "29",
                "2",
                "--by",
                "Bob",
                "--collection",
                str(CRANFIELD),
            ],
            capture_output=True,
            text=True,
        )
        assert (
            cli.returncode != 0 and "is read-only" in cli.stderr and "Traceback" not in cli.stderr
        )
    finally:
        subprocess.run(["chattr", "-i", str(notes)], capture_output=True)
        notes.chmod(0o644)
    assert notes.read_bytes() == before


@pytest.mark.slow
def test_a_record_that_cannot_be_read_is_a_warning_on_every_page(notes) -> None:
    notes.write_bytes(b"not an sqlite file" * 100)
    for page in ("overview", "deltas"):
        at = start(page, query="1", qrels="meeting")
        assert not at.exception
        assert any(
            "cannot be read, so the qrels file alone is in force" in shown(w) for w in at.warning
        )
    assert notes.read_bytes() == b"not an sqlite file" * 100  # never overwritten


def test_the_editor_records_grades_given_and_notes_but_never_unjudges() -> None:
    view = pd.DataFrame(
        {
            "docid": ["a", "b", "c", "d"],
            "baseline rank": [3, 2, float("nan"), 4],
            "run rank": [3, float("nan"), 1, 2],
            "grade": [1, float("nan"), 0, float("nan")],
        }
    )
    table = judging_table(view, {"a": 1, "c": 0}, {"d": (2, "2 (Bob)")})
    # unjudged in the file first, by their better rank
    assert list(table["docid"]) == ["b", "d", "c", "a"]
    assert table["grade"].tolist()[1:] == [2, 0, 1] and pd.isna(table["grade"].iloc[0])
    edited = table.copy()
    edited.loc[0, "grade"] = 3  # judged
    edited.loc[2, "note"] = "looked again"  # the same grade, confirmed with a note
    edited.loc[3, "grade"] = None  # cleared: not a judgment
    assert changed_judgments(table, edited) == [("b", 3, ""), ("c", 0, "looked again")]
    assert changed_judgments(table, table.copy()) == []


@pytest.mark.slow
def test_an_entry_made_meanwhile_by_another_session_is_neither_undone_nor_lost(notes) -> None:
    ann, bob = start("deltas", query="1"), start("deltas", query="1")
    for at, name in ((ann, "Ann"), (bob, "Bob")):
        at.text_input(key="meeting.name").input(name).run()
    widget(ann.multiselect, "Tags of this query").select("qrels wrong").run()
    # Bob's screen did not show Ann's tag yet
    widget(bob.multiselect, "Tags of this query").select("tokenisation").run()
    assert MeetingStore(notes, create=False).tags() == {"1": ["qrels wrong", "tokenisation"]}
    assert widget(bob.multiselect, "Tags of this query").value == ["qrels wrong", "tokenisation"]
    widget(ann.text_area, "Note on this query").input("Ann's note").run()
    widget(bob.multiselect, "Tags of this query").unselect("qrels wrong").run()
    store = MeetingStore(notes, create=False)
    assert store.tags() == {"1": ["tokenisation"]} and store.notes() == {"1": "Ann's note"}
    ann.run()
    assert widget(ann.multiselect, "Tags of this query").value == ["tokenisation"]


def _cli_means(notes) -> pd.DataFrame:
    cli = run_cli(
        "evaluate", str(CRANFIELD), "bm25", "dense", "--judgments", str(notes), "--format", "tsv"
    )
    assert cli.returncode == 0, cli.stderr
    return pd.read_csv(io.StringIO(cli.stdout), sep="\t").pivot(
        index="run", columns="measure", values="value"
    )


@pytest.mark.slow
def test_a_grade_outside_the_scale_in_the_record_is_left_out_and_every_page_shows_its_numbers(
    notes,
) -> None:
    """A record written by an older version holds 44 on Cranfield (grades 0-4, ERR gmax 4): every
    page, with either qrels in force, shows its numbers and one warning naming the entry and the way
    out."""
    from rankviz.app.frame.pages import PAGES

    MeetingStore(notes).judge_many(
        [("1", "184", 44), ("1", "29", 3)], by="Old version", via="typed name"
    )
    for page in [p for p in PAGES if p.framed]:
        for qrels in ("file", "meeting"):
            at = start(page.key, runs="bm25,dense", query="1", qrels=qrels)
            assert not at.exception, (page.key, qrels, at.exception)
            warned = [shown(w) for w in at.warning if "left out" in shown(w)]
            assert len(warned) == 1 and "judgment 1 (1 184) left out: grade 44" in warned[0], (
                page.key,
                warned,
            )
            assert "judge the document again" in warned[0]
            assert not any("MeasureError" in shown(e) or "gmax" in shown(e) for e in at.error), (
                page.key
            )
    overview = start("overview", runs="bm25,dense", qrels="meeting")
    assert "with the meeting's 1 judgments in force" in conventions(overview)
    expected = _cli_means(notes)  # the command line leaves the same entry out
    means = overview.dataframe[0].value
    for run in means.index:
        for measure in means.columns:
            assert means.loc[run, measure] == pytest.approx(expected.loc[run, measure], abs=1e-12)


@pytest.mark.slow  # its rule checked quickly in tests/unit/test_meeting.py
def test_a_replaced_record_gives_fresh_numbers(notes) -> None:
    """The record moved away and a new one made whose ids run the same: the numbers are the new
    record's, as the command line gives them (the merged qrels were served from the old one)."""
    MeetingStore(notes).judge("1", "184", 4, by="Ann", via="typed name")
    first = start("overview", runs="bm25,dense", qrels="meeting")
    assert not first.exception
    notes.rename(notes.with_name("old.sqlite"))
    MeetingStore(notes).judge(
        "1", "184", 0, by="Bob", via="typed name"
    )  # judgment 1 again, another grade
    again = start("overview", runs="bm25,dense", qrels="meeting")
    expected = _cli_means(notes)
    means = again.dataframe[0].value
    assert not means.equals(first.dataframe[0].value)
    for run in means.index:
        for measure in means.columns:
            assert means.loc[run, measure] == pytest.approx(expected.loc[run, measure], abs=1e-12)
    assert "1 184" not in " ".join(shown(w) for w in again.warning)


def _means_equal_the_command_lines(at, notes) -> None:
    means = at.dataframe[0].value
    expected = _cli_means(notes)
    for run in means.index:
        for measure in means.columns:
            assert means.loc[run, measure] == pytest.approx(
                expected.loc[run, measure], abs=1e-12
            ), (run, measure)


@pytest.mark.slow
def test_a_record_replaced_by_a_diverged_copy_or_edited_by_hand_gives_fresh_numbers(
    notes, tmp_path
) -> None:
    """The same record name and the same ids, another grade: a backup copy that diverged moved over
    the record, then one grade edited in the SQLite file, then a judgment added after the edit
    (revising the kept results for that query alone would keep the edited one stale). Each time the
    numbers are the command line's (the cache once keyed on the record's name and last id served the
    old ones)."""
    import contextlib
    import shutil
    import sqlite3

    store = MeetingStore(notes)
    store.judge("1", "184", 4, by="Ann", via="typed name")
    backup = tmp_path / "backup.sqlite"
    shutil.copy(notes, backup)
    first = start("overview", runs="bm25,dense", qrels="meeting")
    _means_equal_the_command_lines(first, notes)

    # as a person with the sqlite3 shell would, closing it after
    def edit(path, grade: int) -> None:
        with contextlib.closing(sqlite3.connect(path)) as db, db:
            db.execute("UPDATE judgments SET grade = ? WHERE id = 1", (grade,))

    edit(backup, 0)
    os.replace(backup, notes)  # the diverged copy moved over the record
    moved = start("overview", runs="bm25,dense", qrels="meeting")
    assert not moved.dataframe[0].value.equals(first.dataframe[0].value)
    _means_equal_the_command_lines(moved, notes)
    edit(notes, 2)  # a grade edited by hand, in place
    _means_equal_the_command_lines(start("overview", runs="bm25,dense", qrels="meeting"), notes)
    edit(notes, 3)
    MeetingStore(notes).judge(
        "2", "12", 4, by="Bob", via="typed name"
    )  # a later judgment on another query
    _means_equal_the_command_lines(start("overview", runs="bm25,dense", qrels="meeting"), notes)


@pytest.mark.slow
def test_judging_never_moves_the_discussion_queue(notes) -> None:
    """The queue's order is fixed when it opens: a colleague's judgments (which also put the
    meeting's qrels in force) change its values, not its order, nor the query being discussed."""
    at = start("deltas", runs="bm25,dense", baseline="bm25", run="dense", measure="AP")
    queue = next(d.value for d in at.dataframe if "why" in d.value.columns)
    order = list(queue.index)
    for _ in range(2):
        next(b for b in at.button if b.label == "Next").click().run()
    current = widget(at.selectbox, "Query").value
    assert current == order[2]
    first = order[0]
    collection = open_collection(CRANFIELD)
    dense = collection.read_run("dense")
    frame = pd.DataFrame(
        {
            "qid": dense.query_ids[dense.qid_codes],
            "docid": dense.docids.to_numpy(zero_copy_only=False),
            "score": dense.score,
        }
    )
    top = frame[frame.qid == first].sort_values(["score", "docid"], ascending=False).head(10)
    # dense's loss on it is gone
    MeetingStore(notes).judge_many([(first, d, 4) for d in top.docid], by="Bob", via="typed name")
    at.run()
    again = next(d.value for d in at.dataframe if "why" in d.value.columns)
    assert not at.exception
    assert list(again.index) == order
    assert widget(at.selectbox, "Query").value == current
    assert again.loc[first, "delta"] > queue.loc[first, "delta"]  # the values follow the judgments
    next(b for b in at.button if b.label == "Rebuild the queue from today's numbers").click().run()
    rebuilt = next(d.value for d in at.dataframe if "why" in d.value.columns)
    assert again.loc[first, "delta"] > 0 and (
        first not in rebuilt.index or "loss" not in rebuilt.loc[first, "why"]
    )


@pytest.mark.slow
def test_two_people_editing_one_note_see_the_conflict_and_choose(notes) -> None:
    """Bob's page showed no note; Ann records one; Bob's note then is not written over hers: he sees
    both and chooses."""
    ann, bob = start("deltas", query="1"), start("deltas", query="1")
    for at, name in ((ann, "Ann"), (bob, "Bob")):
        at.text_input(key="meeting.name").input(name).run()
    widget(ann.text_area, "Note on this query").input("Ann's note").run()
    # typed against the empty note he saw
    widget(bob.text_area, "Note on this query").input("Bob's note").run()
    assert not bob.exception
    assert MeetingStore(notes, create=False).notes() == {"1": "Ann's note"}  # not replaced silently
    warned = [shown(w) for w in bob.warning if "was changed by someone else" in shown(w)]
    assert len(warned) == 1 and "Ann's note" in warned[0]
    # his text kept as a draft
    assert widget(bob.text_area, "Note on this query").value == "Bob's note"
    bob.run()  # a rerun keeps the draft and the choice
    assert widget(bob.text_area, "Note on this query").value == "Bob's note"
    # a reload: a new session, under the name his browser remembers
    bob = start("deltas", query="1")
    bob.text_input(key="meeting.name").input("Bob").run()
    # the server kept his draft
    assert widget(bob.text_area, "Note on this query").value == "Bob's note"
    assert [w for w in bob.warning if "was changed by someone else" in shown(w)]
    next(b for b in bob.button if b.label == "Record my note (replaces theirs)").click().run()
    store = MeetingStore(notes, create=False)
    assert store.notes() == {"1": "Bob's note"}
    assert [e.what for e in store.history("1") if e.kind == "note"] == ["Ann's note", "Bob's note"]
    assert not [w for w in bob.warning if "was changed by someone else" in shown(w)]


def _type_grade(at, row: int, grade: int) -> None:
    """Type a grade in row ``row`` of the judging grid, as the browser's grid sends it, and
    rerun."""
    key = next(iter(at.session_state["rankviz.meeting_tables"]))
    at.session_state[key] = {
        "edited_rows": {row: {"grade": grade}},
        "added_rows": [],
        "deleted_rows": [],
    }
    at.run()


@pytest.mark.slow  # its rule checked quickly in tests/unit/test_meeting.py
def test_a_grade_typed_against_a_colleagues_newer_one_is_kept_beside_it_not_recorded_over_it(
    notes,
) -> None:
    """Ann grades the grid's first document 0; Bob, on a page drawn before, types 2. His grade won
    unseen, with only "Recorded by Bob: 1 judgment(s)". Now, as for a note, nothing of his is
    recorded: he sees both and chooses; a grade typed with no colleague's in between is recorded at
    once."""
    ann, bob = start("deltas", query="1"), start("deltas", query="1")
    for at, name in ((ann, "Ann"), (bob, "Bob")):
        at.text_input(key="meeting.name").input(name).run()
    _, before, _, _ = next(iter(bob.session_state["rankviz.meeting_tables"].values()))
    docid = before["docid"].iloc[0]
    _type_grade(ann, 0, 0)
    _type_grade(bob, 0, 2)
    assert not bob.exception and not [s for s in bob.toast if "Recorded by Bob" in shown(s)]
    assert MeetingStore(notes, create=False).latest() == {("1", docid): 0}  # hers stands
    warned = [shown(w) for w in bob.warning if "someone else graded the same documents" in shown(w)]
    assert len(warned) == 1 and f"{docid}: Ann gave 0, you typed 2" in warned[0]
    bob.run()  # a rerun keeps the draft and the choice
    assert [w for w in bob.warning if "someone else graded the same documents" in shown(w)]
    next(b for b in bob.button if b.label == "Record my grades (replace theirs)").click().run()
    store = MeetingStore(notes, create=False)
    assert store.latest() == {("1", docid): 2}
    assert [(j.grade, j.by, j.previous) for j in store.judgments("1")] == [
        (0, "Ann", None),
        (2, "Bob", 0),
    ]
    assert not [w for w in bob.warning if "someone else graded the same documents" in shown(w)]
    _type_grade(ann, 1, 3)  # no colleague's grade in between: recorded at once
    assert any("Recorded by Ann: 1 judgment(s) of query 1" in shown(s) for s in ann.toast)


_TEXT = st.text(alphabet=st.characters(codec="utf-8"), max_size=12) | st.sampled_from(
    ["1", "2", "184", "29", "#1", "a\nb", ""]
)
_GRADE = (
    st.integers(-(2**40), 2**40)
    | st.sampled_from([0, 1, 4, 5, 44, -1])
    | st.text(max_size=3)
    | st.floats(allow_nan=False)
)  # NaN is stored as NULL, which the schema refuses


@pytest.mark.slow
@settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    judgments=st.lists(
        st.tuples(
            st.sampled_from(["1", "2"]) | _TEXT,
            st.sampled_from(["184", "29", "12"]) | _TEXT,
            _GRADE,
        ),
        max_size=6,
    ),
    tags=st.lists(
        st.tuples(st.sampled_from(["1", "2"]) | _TEXT, _TEXT, st.integers(0, 1)), max_size=4
    ),
    notes_=st.lists(st.tuples(st.sampled_from(["1", "2"]) | _TEXT, _TEXT), max_size=3),
)
def test_any_record_content_never_breaks_a_page(notes, judgments, tags, notes_) -> None:
    """Whatever a record holds (an older version's entries, a hand edit, another tool's rows), every
    page shows without an exception: bad entries are left out with a warning."""
    import sqlite3

    from rankviz.app.frame.pages import PAGES

    # the last example's record, its -wal and -shm
    for left_over in notes.parent.glob(notes.name + "*"):
        left_over.unlink()
    MeetingStore(notes)  # the schema, then rows no checked writer would write
    with contextlib.closing(sqlite3.connect(notes)) as db, db:
        db.executemany(
            "INSERT INTO judgments (qid, docid, grade, by, at) VALUES (?, ?, ?, 'x', 'now')",
            judgments,
        )
        db.executemany(
            "INSERT INTO tags (qid, tag, removed, by, at) VALUES (?, ?, ?, 'x', 'now')", tags
        )
        db.executemany("INSERT INTO notes (qid, note, by, at) VALUES (?, ?, 'x', 'now')", notes_)
    for page in PAGES:
        at = start(page.key, runs="bm25,dense", query="1")
        assert not at.exception, (page.key, at.exception)


@pytest.mark.slow
def test_one_record_file_for_every_collection_keeps_each_collections_numbers_apart(
    tmp_path, monkeypatch
) -> None:
    """``--notes FILE.sqlite`` names one file for every collection served: the first collection to
    record in it owns it; another collection's pages say so and keep their numbers."""
    from conftest import DL_HARD

    shared = tmp_path / "all.sqlite"
    monkeypatch.setenv("RANKVIZ_NOTES", str(shared))
    cranfield = open_collection(CRANFIELD).config.name
    MeetingStore(shared, collection=cranfield).judge("1", "184", 0, by="Ann", via="typed name")
    plain = (
        start("overview", collection="dl-hard-passage", runs="bm25,bm25_t5-zs", qrels="file")
        .dataframe[0]
        .value
    )
    other = start("overview", collection="dl-hard-passage", runs="bm25,bm25_t5-zs")
    assert not other.exception
    assert any("belongs to the collection" in shown(w) for w in other.warning)
    # DL-HARD's numbers do not move with Cranfield's judgment
    assert other.dataframe[0].value.equals(plain)
    assert not any(w for w in start("overview").warning if "belongs to the collection" in shown(w))
    with pytest.raises(Exception, match="belongs to the collection"):
        MeetingStore(shared, collection=open_collection(DL_HARD).config.name)


def test_a_note_typed_on_a_query_whose_id_holds_a_colon_is_recorded_on_that_query(notes) -> None:
    """The widgets' companions (what each was shown) are kept under a line break, which no query id
    holds: a note on query ``q:1`` is found and recorded like any other."""
    at = start("deltas", query="1")
    at.text_input(key="meeting.name").input("Ann").run()
    at.session_state["meeting.note:q:1"] = "typed on q:1"
    at.session_state["meeting.note:q:1\nshown"] = ""
    at.run()
    assert not at.exception
    assert MeetingStore(notes, create=False).notes() == {"q:1": "typed on q:1"}


@pytest.mark.slow
def test_no_widget_gets_its_value_twice_as_the_meeting_judges_and_switches_qrels(
    notes, caplog
) -> None:
    """A widget whose value the link (or a judgment's rerun) sets is drawn without a default of its
    own: Streamlit logs a widget given both, with a stack, once per server. The grid's empty grade
    cells read empty."""
    from streamlit.elements.lib import policies

    policies._shown_default_value_warning = False  # the log is once per process: watch afresh
    grades = prefilled(MeetingStore(notes))
    at = start("deltas", runs="bm25,dense", baseline="bm25", run="dense", measure="AP")
    grid = next(d for d in at.dataframe if "note" in d.value.columns)
    assert grid.proto.HasField("placeholder") and grid.proto.placeholder == ""  # not "None"
    next(b for b in at.button if b.label == "Next").click().run()
    (qid, docid), grade = next(iter(grades.items()))
    MeetingStore(notes).judge(qid, docid, (grade + 1) % 3, by="Bob", via="typed name")
    at.run()
    widget(at.radio, "Qrels in force").set_value("file").run()
    at.query_params["k"] = "20"
    at.run()
    assert not at.exception
    twice = [r for r in caplog.records if "set via the Session State API" in r.getMessage()]
    assert not twice, twice[0].getMessage()


@pytest.mark.slow
def test_a_judgment_revises_the_kept_numbers_instead_of_computing_them_again(
    notes, monkeypatch
) -> None:
    """The Overview under the meeting's qrels, then one more judgment: the evaluation and the chance
    level are the kept ones revised for the judged query (the whole-run builds are not called), and
    equal the command line's numbers for the record as it is now."""
    import rankviz.study.study
    from rankviz.study import CHANCE

    store = MeetingStore(notes)
    grades = prefilled(store, queries=2)
    view = start(qrels="meeting", measures="AP,nDCG@10")
    assert not view.exception
    qid, docid = next(iter(grades))
    store.judge(qid, docid, 0, by="ana", via="typed name")  # a grade the meeting takes back

    def refuse(*args, **kwargs):
        raise AssertionError("computed again for every query after one judgment")

    asked = rankviz.study.study.Study.ask

    def ask_but_the_chance_level(study, question, /, *args, **kwargs):
        return (refuse if question is CHANCE else asked)(study, question, *args, **kwargs)

    monkeypatch.setattr(rankviz.study.study.Study, "evaluation", refuse)
    monkeypatch.setattr(rankviz.study.study.Study, "ask", ask_but_the_chance_level)
    view.run()
    assert not view.exception, view.exception
    monkeypatch.undo()
    cli = run_cli(
        "evaluate",
        str(CRANFIELD),
        "--judgments",
        str(notes),
        "-m",
        "AP",
        "-m",
        "nDCG@10",
        "--format",
        "tsv",
    )
    expected = pd.read_csv(io.StringIO(cli.stdout), sep="\t").pivot(
        index="run", columns="measure", values="value"
    )
    means = view.dataframe[0].value
    assert set(means.index) == set(expected.index)
    for run in means.index:
        for measure in ("AP", "nDCG@10"):
            assert means.loc[run, measure] == pytest.approx(expected.loc[run, measure], abs=1e-12)


@pytest.mark.slow
def test_the_judged_share_warning_follows_the_meetings_judgments(tmp_path, monkeypatch) -> None:
    """DL-HARD is half judged: under the meeting's qrels the warning gives each run's share as the
    library gives it on the merged qrels, and judging a run's unjudged top documents raises it."""
    import re

    from conftest import DL_HARD

    from rankviz.analyses.unjudged import judged_share
    from rankviz.study import Study

    monkeypatch.setenv("RANKVIZ_NOTES", str(tmp_path))
    name = open_collection(DL_HARD).config.name
    record = tmp_path / f"{DL_HARD.name}.sqlite"  # the folder's name
    store = MeetingStore(record, collection=name)
    study = Study.open(StudyRequest(DL_HARD, ["bm25", "bm25_t5-zs"]))
    table = study.table("bm25").top(10)
    holes = [i for i in range(table.n_rows) if not table.judged[i]][:40]
    for i in holes:
        qid, docid = table.qids[table.row_query[i]], table.docids([i])[0]
        store.judge(str(qid), str(docid), 0, by="Ann", via="typed name")

    def shares(at) -> dict[str, int]:
        (warned,) = [shown(w) for w in at.warning if "judge little" in shown(w)]
        return {run: int(share) for run, share in re.findall(r"(bm25\S*) (\d+)%", warned)}

    file_shares = shares(
        start("overview", collection="dl-hard-passage", runs="bm25,bm25_t5-zs", qrels="file")
    )
    at = start("overview", collection="dl-hard-passage", runs="bm25,bm25_t5-zs", qrels="meeting")
    assert not at.exception
    merged = Study.open(
        StudyRequest(
            DL_HARD, ["bm25", "bm25_t5-zs"], judgments=str(record), qrels_in_force="meeting"
        )
    )
    expected = {n: round(100 * judged_share(merged.table(n), 10)) for n in ("bm25", "bm25_t5-zs")}
    assert shares(at) == expected and shares(at)["bm25"] > file_shares["bm25"]
    # judged meanwhile: the next rerun revises the share for the judged queries
    table = study.table("bm25_t5-zs").top(10)
    for i in [i for i in range(table.n_rows) if not table.judged[i]][:60]:
        qid, docid = table.qids[table.row_query[i]], table.docids([i])[0]
        store.judge(str(qid), str(docid), 0, by="Bob", via="typed name")
    at.run()
    merged = Study.open(
        StudyRequest(
            DL_HARD, ["bm25", "bm25_t5-zs"], judgments=str(record), qrels_in_force="meeting"
        )
    )
    again = {n: round(100 * judged_share(merged.table(n), 10)) for n in ("bm25", "bm25_t5-zs")}
    assert shares(at) == again and again["bm25_t5-zs"] > expected["bm25_t5-zs"]
