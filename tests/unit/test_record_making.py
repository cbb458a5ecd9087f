"""A crash while the meeting's record is made leaves no record or a whole one (#67): a kill at
any SQL statement of the first entry on a fresh record, then the app reads it without a problem
and the next writer records; a record an older version left half-made (its schema written one
statement at a time) is completed by the next writer; writers upgrading an old record at once all
record."""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import sqlite3
from pathlib import Path

import pytest
from generated import version_2_record

from rankviz.io.entries import UnmadeRecord
from rankviz.io.meeting import MeetingStore
from rankviz.io.record_schema import SCHEMA
from rankviz.study.served import open_record

SCALE = (0, 4)
FORK = hasattr(os, "fork")


def _first_entry_killed_at(path: Path, statement: int) -> bool:
    """The first entry of a fresh record made in a child process killed (``os._exit``, no cleanup,
    no commit) just before its ``statement``-th SQL statement; whether it was killed."""
    pid = os.fork()
    if pid == 0:  # the child: never back into pytest
        seen = [0]
        connect = sqlite3.connect

        def traced(*args, **kwargs):
            db = connect(*args, **kwargs)

            def count(_sql: str) -> None:
                seen[0] += 1
                if seen[0] == statement:
                    os._exit(9)

            db.set_trace_callback(count)
            return db

        sqlite3.connect = traced
        try:
            store = MeetingStore(path, scale=SCALE, collection="Cranfield")
            store.judge("1", "184", 2, by="Ann", via="typed name")
        finally:
            os._exit(0)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) == 9


@pytest.mark.slow
@pytest.mark.skipif(not FORK, reason="kills a forked child at each statement (no fork here)")
def test_a_kill_at_any_statement_of_the_first_entry_leaves_no_record_or_a_whole_one(
    tmp_path: Path,
) -> None:
    killed = 0
    for statement in range(1, 400):
        folder = tmp_path / str(statement)
        folder.mkdir()
        path = folder / "rankviz-notes.sqlite"
        if not _first_entry_killed_at(path, statement):
            break  # the entry was made before this statement: every earlier one was tried
        killed += 1
        # the app reads it without a problem: no record yet, or a whole one
        store, problem, _ = open_record(path, SCALE, "Cranfield")
        assert problem == "", (statement, problem)
        if path.exists():
            try:
                recorded = MeetingStore(path, create=False).judgments()
            except UnmadeRecord:
                recorded = []
            assert [(j.qid, j.docid) for j in recorded] in ([], [("1", "184")]), statement
        # the next writer records, and readers see it
        MeetingStore(path, scale=SCALE, collection="Cranfield").judge(
            "2", "12", 1, by="Bob", via="typed name"
        )
        reader = MeetingStore(path, create=False)
        assert ("2", "12", 1) in [(j.qid, j.docid, j.grade) for j in reader.judgments()]
        assert reader.owner() == ("Cranfield", SCALE), statement
    assert killed > 10  # the making and the entry are many statements, each tried


def test_a_record_an_older_version_left_half_made_is_completed_by_the_next_writer(
    tmp_path: Path,
) -> None:
    """Older versions wrote the schema one committed statement at a time: a crash left some
    tables and no version. A reader (the app) then said "not a meeting record" and refused to
    record; now it holds no entry yet, and the next writer completes it."""
    statements = [s for s in SCHEMA.split(";") if s.strip()]
    for written in (0, 1, 3, len(statements) - 1):
        path = tmp_path / f"half-{written}.sqlite"
        with contextlib.closing(sqlite3.connect(path)) as db, db:
            for statement in statements[:written]:
                db.execute(statement)
        path.touch()
        with pytest.raises(UnmadeRecord, match="holds no entry yet; the next entry"):
            MeetingStore(path, create=False)
        store, problem, _ = open_record(path, SCALE, "Cranfield")
        assert store is None and problem == ""
        MeetingStore(path, scale=SCALE, collection="Cranfield").judge(
            "1", "184", 3, by="Ann", via="typed name"
        )
        assert [j.grade for j in MeetingStore(path, create=False).judgments()] == [3]


def _write_one(path: str, index: int, start) -> None:
    start.wait()
    MeetingStore(path).judge("q1", f"d{index + 1}", 1, by=f"judge{index}", via="typed name")


@pytest.mark.slow
@pytest.mark.skipif(not FORK, reason="forked writers (no fork here)")
def test_writers_upgrading_an_old_record_at_once_all_record(tmp_path: Path) -> None:
    """16 writers at once on a version-2 record: 2 were refused with "duplicate column name" (two
    upgrades adding the same column); the upgrade is one transaction the others wait for."""
    path = tmp_path / "old.sqlite"
    version_2_record(path, docid="d0")
    fork = multiprocessing.get_context("fork")
    start = fork.Barrier(16)
    writers = [fork.Process(target=_write_one, args=(str(path), i, start)) for i in range(16)]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join(timeout=120)
    assert [w.exitcode for w in writers] == [0] * 16
    recorded = MeetingStore(path, create=False).judgments()
    assert sorted(j.docid for j in recorded) == sorted(["d0", *(f"d{i}" for i in range(1, 17))])
