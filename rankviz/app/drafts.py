"""What a person typed in the meeting's controls and the record does not hold yet.

Grades, tags and notes are recorded on the rerun after they are typed, before Next, a page or a
query change takes their widget away (:func:`save_pending`). An entry that meets a colleague's newer
one for the same thing (a grade of the same document, the query's note) is not recorded: it is kept
as a draft and shown beside theirs until the person records or discards it (:func:`grade_conflict`,
:func:`note_conflict`), so nothing typed is lost and nothing is overwritten unseen.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pandas as pd
import streamlit as st

from rankviz.app.text import md, message
from rankviz.io.grades import GradeError, checked_grade
from rankviz.io.meeting import GradeConflict, MeetingError, NoteConflict

NAME = "rankviz.meeting_name"  # the person's name, for this browser session
_RECORDED = "rankviz.meeting_recorded"  # what the last rerun recorded, said once on the next
_GENERATION = "rankviz.meeting_generation"  # this session's editors start afresh after it records
_TABLES = "rankviz.meeting_tables"  # judging editor key -> (query, the table it showed, the file's grades, the
# meeting's grade of each document as shown)
#: (record, person, kind) -> query -> a draft: "note" (the person's note, kept while it conflicts with a
#: colleague's) or "grades" (the person's grades and the colleagues' they conflict with). Kept by the server,
#: not the browser session, so that a reload (a new session, the name remembered by the browser) finds them.
_KEPT: dict[tuple[str, str, str], dict[str, Any]] = {}
_KEPT_LOCK = threading.Lock()
#: Suffixes of a widget's companions in the session: what it was shown, the note an edit replaces. A line
#: break cannot be in a query id, so a query's widget key ("meeting.note:" + qid) never ends like one.
SHOWN, SEEN = "\nshown", "\nseen"


def _recorded(text: str) -> None:
    """Say what was recorded on the next rerun, start this session's editors afresh, rerun (every number
    of the page is computed again with the new entry)."""
    st.session_state[_RECORDED] = text
    st.session_state[_GENERATION] = st.session_state.get(_GENERATION, 0) + 1
    st.rerun()


def generation() -> int:
    """Changes when this session records: the judging grid's key follows it, so the grid starts afresh."""
    return st.session_state.get(_GENERATION, 0)


def table_shown(key: str, query: str, before: pd.DataFrame, file_grades: dict[str, int], seen: dict[str, int | None]) -> None:
    """The judging grid ``key`` was drawn for ``query`` from ``before``; ``seen``: the meeting's grade of
    each document as drawn (what a colleague's newer grade is told apart from)."""
    st.session_state.setdefault(_TABLES, {})[key] = (query, before, file_grades, seen)


def _kept(meeting, name: str, kind: str) -> dict[str, Any]:
    """This person's drafts of one kind on the meeting's record (query -> draft)."""
    with _KEPT_LOCK:
        return _KEPT.setdefault((str(meeting.path), name, kind), {})


def note_draft(meeting, name: str, query: str) -> str | None:
    """This person's note of ``query`` kept while it conflicts with a colleague's, else None."""
    return _kept(meeting, name, "note").get(query) if name else None


def note_seen(key: str, note: str) -> None:
    st.session_state[key + SEEN] = note


def show(key: str, value) -> None:
    """Set this session's widget ``key`` to ``value`` (what the record holds now, others' entries
    included, or this person's draft) and remember it as what the person was shown: an entry is what
    the person changed from it, never a difference from the record's latest state, so an entry
    another session made meanwhile is neither undone nor lost."""
    st.session_state[key] = st.session_state[key + SHOWN] = value


def _widgets(prefix: str) -> list[str]:
    """The keys of this session's widgets of one kind (``prefix`` + query id), not their companions."""
    return [k for k in st.session_state if isinstance(k, str) and k.startswith(prefix) and "\n" not in k]


def _changed(key: str):
    """The value this session's widget ``key`` was changed to from what it showed, else None."""
    value, shown = st.session_state.get(key), st.session_state.get(key + SHOWN)
    return value if shown is not None and value != shown else None


def changed_judgments(before: pd.DataFrame, after: pd.DataFrame) -> list[tuple[str, int, str]]:
    """(docid, grade, note) of every row given a grade or a note in the editor; a grade cleared is not a
    judgment (documents cannot be made unjudged again: grade 0 says not relevant)."""
    found = []
    for (_, old), (_, new) in zip(before.iterrows(), after.iterrows(), strict=True):
        grade, note = new["grade"], "" if pd.isna(new["note"]) else str(new["note"])
        if pd.isna(grade):
            continue
        previous = old["grade"]
        unchanged = not pd.isna(previous) and int(previous) == int(grade)
        if not unchanged or note.strip():
            found.append((str(new["docid"]), int(grade), note))
    return found


def say_recorded() -> None:
    """What the last run recorded, said once at the top of the page."""
    said = st.session_state.get(_RECORDED)
    if said:  # forgotten once drawn: a run interrupted before drawing it (a newer rerun) says it on the next
        st.success(md(said))
        st.session_state.pop(_RECORDED, None)


def save_pending(ctx) -> None:
    """Record what this person typed and did not confirm on the query it was typed on: a grade in the
    judging table, a tag or a note, before Next, Previous, a depth, query or page change takes its
    widget away. Run on every page before it draws; says what it recorded, then reruns with it."""
    meeting = ctx.meeting
    name = st.session_state.get(NAME, "")
    if meeting is None or meeting.problem or meeting.read_only or not name:
        return
    done: list[str] = []
    try:
        done += _pending_judgments(meeting, name)
        done += _pending_tags(meeting, name)
        done += _pending_notes(meeting, name)
    except MeetingError as exc:
        st.error(message("Not recorded: {}", exc))
    if done:
        _recorded(f"Recorded by {name}: {'; '.join(done)}.")


def _pending_judgments(meeting, name: str) -> list[str]:
    tables = st.session_state.setdefault(_TABLES, {})
    done = []
    for key, (query, before, file_grades, seen) in list(tables.items()):
        if key not in st.session_state:  # its widget is gone (and had nothing to record)
            del tables[key]
            continue
        edits = (st.session_state.get(key) or {}).get("edited_rows") or {}
        after = before.copy()
        for row, values in edits.items():
            if "grade" not in values:  # a note alone is no judgment: said, and kept in the table
                if str(values.get("note") or "").strip():
                    docid = before["docid"].iloc[int(row)]
                    st.warning(message("The note on {} of query {} is not recorded: type a grade in its row too (the "
                                       "note is recorded with the grade).", docid, query))  # fmt: skip
                continue
            for column, value in values.items():
                if column in ("grade", "note"):
                    after.loc[after.index[int(row)], column] = value
        changes = changed_judgments(before, after)
        refused = _out_of_scale(changes, meeting.scale)
        if refused:  # none of the table's grades recorded until its cells are corrected (nothing recorded twice)
            st.error(message("Not recorded: {} of query {}. Correct the cell (or clear it) and the table's "
                             "judgments are recorded.", "; ".join(refused), query))  # fmt: skip
            continue
        if changes:
            del tables[key]
            try:
                _judge(meeting, query, name, changes, file_grades, seen)
            except GradeConflict as exc:  # kept, and shown beside theirs on the query's panel
                _kept(meeting, name, "grades")[query] = (changes, exc.conflicts, file_grades)
                st.session_state[_GENERATION] = st.session_state.get(_GENERATION, 0) + 1  # the grid shows the record now
                continue
            done.append(f"{len(changes)} judgment(s) of query {query}")
    return done


def _judge(meeting, query: str, name: str, changes: list[tuple[str, int, str]], file_grades: dict[str, int],
           seen: dict[str, int | None] | None) -> None:  # fmt: skip
    """Record a table's grades in one transaction; with ``seen`` (the meeting's grades the person saw), none
    if a colleague has graded one of the documents otherwise since (:class:`GradeConflict`)."""
    pairs = [(query, docid) for docid, _, _ in changes]
    meeting.writable().judge_many(
        [(query, docid, grade) for docid, grade, _ in changes],
        by=name,
        originals={pair: file_grades.get(pair[1]) for pair in pairs},
        notes={(query, docid): note for docid, _, note in changes},
        seen=None if seen is None else {pair: seen.get(pair[1]) for pair in pairs},
    )


def _out_of_scale(changes: list[tuple[str, int, str]], scale) -> list[str]:
    """Why each grade typed in a judging table cannot be recorded (the grid takes any number: a typed 44
    is refused with the grades allowed, never clamped to a grade nobody typed)."""
    refused = []
    for docid, grade, _ in changes:
        try:
            checked_grade(grade, scale)
        except GradeError as exc:
            refused.append(f"{docid}: {exc}")
    return refused


def _pending_tags(meeting, name: str) -> list[str]:
    done = []
    for key in _widgets("meeting.new_tag:"):
        tag = _changed(key)
        if tag and tag.strip():
            query = key.split(":", 1)[1]
            meeting.writable().tag(query, tag.strip(), by=name)
            st.session_state[key + SHOWN] = tag
            done.append(f"the tag {tag.strip()} of query {query}")
    for key in _widgets("meeting.tags:"):
        tags = _changed(key)
        if tags is None:
            continue
        query, before = key.split(":", 1)[1], set(st.session_state.get(key + SHOWN) or [])
        writable = meeting.writable()
        for tag in sorted(set(tags) - before):
            writable.tag(query, tag, by=name)
        for tag in sorted(before - set(tags)):
            writable.tag(query, tag, by=name, removed=True)
        st.session_state[key + SHOWN] = tags
        done.append(f"the tags of query {query}")
    return done


def _pending_notes(meeting, name: str) -> list[str]:
    drafts = _kept(meeting, name, "note")
    done = []
    for key in _widgets("meeting.note:"):
        note = _changed(key)
        if note is None:
            continue
        query = key.split(":", 1)[1]
        st.session_state[key + SHOWN] = note
        try:
            meeting.writable().set_note(query, note, by=name, seen=st.session_state.get(key + SEEN, ""))
        except NoteConflict:
            drafts[query] = note  # kept, and shown beside theirs on the query's panel
            continue
        drafts.pop(query, None)
        done.append(f"the note of query {query}")
    return done


def note_conflict(meeting, query: str, name: str, draft: str, theirs: str) -> None:
    """A note this person wrote while a colleague changed it: both shown, the person chooses."""
    st.warning(message("While you wrote, the note of query {} was changed by someone else. Theirs: {}. Yours is in the "
                       "box below; record yours to replace theirs, or discard it.", query, theirs or "(empty)"))  # fmt: skip
    _choose(meeting, name, "note", query, ("Record my note (replaces theirs)", "Discard my note"),
            lambda: meeting.writable().set_note(query, draft, by=name),
            f"Recorded the note of query {query} by {name}.")  # fmt: skip


def grade_conflict(meeting, query: str, name: str) -> None:
    """Grades this person typed while a colleague graded the same documents otherwise: theirs and these
    shown, nothing recorded until the person chooses (as for a note)."""
    draft = _kept(meeting, name, "grades").get(query) if name else None
    if draft is None:
        return
    changes, conflicts, file_grades = draft
    typed = {docid: grade for docid, grade, _ in changes}
    said = "; ".join(f"{docid}: {by} gave {theirs}, you typed {typed[docid]}" for _, docid, theirs, by in conflicts)
    st.warning(message("While you judged query {}, someone else graded the same documents: {}. None of your {} "
                       "grade(s) is recorded yet: record yours to replace theirs, or discard yours.", query, said,
                       len(changes)))  # fmt: skip
    _choose(meeting, name, "grades", query, ("Record my grades (replace theirs)", "Discard my grades"),
            lambda: _judge(meeting, query, name, changes, file_grades, None),
            f"Recorded by {name}: {len(changes)} judgment(s) of query {query}.")  # fmt: skip


def _choose(meeting, name: str, kind: str, query: str, labels: tuple[str, str], record: Callable[[], object],
            recorded: str) -> None:  # fmt: skip
    """The two choices under a conflict: record this person's draft over the colleague's entry (which
    stays in the history), or discard the draft."""
    keep, drop = st.columns(2)
    if keep.button(labels[0], key=f"meeting.keep_{kind}:{query}", disabled=not name):
        try:
            record()
        except MeetingError as exc:
            st.error(message("Not recorded: {}", exc))
        else:
            _kept(meeting, name, kind).pop(query, None)
            _recorded(recorded)
    if drop.button(labels[1], key=f"meeting.drop_{kind}:{query}"):
        _kept(meeting, name, kind).pop(query, None)
        st.rerun()
