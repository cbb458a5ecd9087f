"""What a person typed in the meeting's controls and the record does not hold yet.

Grades, tags and notes are recorded on the rerun after they are typed, before Next, a page or a
query change takes their widget away (:func:`save_pending`). An entry that meets a colleague's newer
one for the same thing (a grade of the same document, the query's note) is not recorded: it is kept
as a draft and shown beside theirs until the person records or discards it
(:mod:`rankviz.app.meeting.conflicts`), so nothing typed is lost and nothing is overwritten unseen.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from rankviz.app.meeting.kept import judge, kept, recorded, renew_grid
from rankviz.app.widgets import browser
from rankviz.app.widgets.text import message
from rankviz.study import GradeConflict, GradeError, MeetingError, NoteConflict
from rankviz.study.record import check_grades

# judging editor key -> (query, the table it showed, the file's grades, the
_TABLES = "rankviz.meeting_tables"
# meeting's grade of each document as shown)
#: Suffixes of a widget's companions in the session: what it was shown, the note an edit replaces. A
#: line break cannot be in a query id, so a query's widget key ("meeting.note:" + qid) never ends
#: like one.
SHOWN, SEEN = "\nshown", "\nseen"


def table_shown(
    key: str,
    query: str,
    before: pd.DataFrame,
    file_grades: dict[str, int],
    seen: dict[str, int | None],
) -> None:
    """The judging grid ``key`` was drawn for ``query`` from ``before``; ``seen``: the meeting's
    grade of each document as drawn (what a colleague's newer grade is told apart from)."""
    st.session_state.setdefault(_TABLES, {})[key] = (query, before, file_grades, seen)


def note_seen(key: str, note: str) -> None:
    st.session_state[key + SEEN] = note


def show(key: str, value) -> None:
    """Set this session's widget ``key`` to ``value`` (what the record holds now, others' entries
    included, or this person's draft) and remember it as what the person was shown: an entry is what
    the person changed from it, never a difference from the record's latest state, so an entry
    another session made meanwhile is neither undone nor lost."""
    st.session_state[key] = st.session_state[key + SHOWN] = value


def _widgets(prefix: str) -> list[str]:
    """The keys of this session's widgets of one kind (``prefix`` + query id), not their
    companions."""
    return [
        k for k in st.session_state if isinstance(k, str) and k.startswith(prefix) and "\n" not in k
    ]


def _changed(key: str):
    """The value this session's widget ``key`` was changed to from what it showed, else None."""
    value, shown = st.session_state.get(key), st.session_state.get(key + SHOWN)
    return value if shown is not None and value != shown else None


def changed_judgments(before: pd.DataFrame, after: pd.DataFrame) -> list[tuple[str, int, str]]:
    """(docid, grade, note) of every row given a grade or a note in the editor; a grade cleared is
    not a judgment (documents cannot be made unjudged again: grade 0 says not relevant)."""
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


def save_pending(ctx) -> None:
    """Record what this person typed and did not confirm on the query it was typed on: a grade in
    the judging table, a tag or a note, before Next, Previous, a depth, query or page change takes
    its widget away. Run on every page before it draws; says what it recorded, then reruns with
    it."""
    meeting = ctx.meeting
    # who records: the signed-in identity (never a name the page sends), else the name typed
    name = meeting.visitor.name if meeting is not None else ""
    if meeting is None or meeting.problem or meeting.read_only or not name:
        return
    done: list[str] = []
    try:
        done += _pending_judgments(meeting, name)
        done += _pending_tags(meeting)
        done += _pending_notes(meeting, name)
    except MeetingError as exc:
        st.error(message("Not recorded: {}", exc))
    if done:
        recorded(f"Recorded by {name}: {'; '.join(done)}.")


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
                    st.warning(
                        message(
                            "The note on {} of query {} is not recorded: type a grade in its row "
                            "too (the note is recorded with the grade).",
                            docid,
                            query,
                        )
                    )
                continue
            for column, value in values.items():
                if column in ("grade", "note"):
                    after.loc[after.index[int(row)], column] = value
        changes = changed_judgments(before, after)
        refused = out_of_scale(changes, meeting.scale)
        # none of the table's grades recorded until its cells are corrected (nothing recorded twice)
        if refused:
            st.error(
                message(
                    "Not recorded: {} of query {}. Correct the cell (or clear it) and the table's "
                    "judgments are recorded.",
                    "; ".join(refused),
                    query,
                )
            )
            continue
        if changes:
            del tables[key]
            try:
                judge(meeting, query, changes, file_grades, seen)
            except GradeConflict as exc:  # kept, and shown beside theirs on the query's panel
                kept(meeting, name, "grades")[query] = (changes, exc.conflicts, file_grades)
                renew_grid()  # the grid shows the record as it is now
                continue
            done.append(f"{len(changes)} judgment(s) of query {query}")
    return done


def out_of_scale(changes: list[tuple[str, int, str]], scale) -> list[str]:
    """Why each grade typed in a judging table cannot be recorded (the grid takes any number: a
    typed 44 is refused with the grades allowed, never clamped to a grade nobody typed)."""
    refused = []
    for docid, grade, _ in changes:
        try:
            check_grades([grade], scale)
        except GradeError as exc:
            refused.append(f"{docid}: {exc}")
    return refused


def _pending_tags(meeting) -> list[str]:
    done = []
    for key in _widgets("meeting.new_tag:"):
        tag = _changed(key)
        if tag and tag.strip():
            query = key.split(":", 1)[1]
            try:
                meeting.writer().tag(query, tag.strip())
            except MeetingError as exc:  # the tag typed is said, not lost with its field
                raise MeetingError(f"{exc}; your tag of query {query}: {tag.strip()}") from None
            st.session_state[key + SHOWN] = tag
            done.append(f"the tag {tag.strip()} of query {query}")
            # another tag, or Enter on the empty field: the note
            browser.focus_next(browser.NEW_TAG, leaving=browser.NEW_TAG)
    for key in _widgets("meeting.tags:"):
        tags = _changed(key)
        if tags is None:
            continue
        query, before = key.split(":", 1)[1], set(st.session_state.get(key + SHOWN) or [])
        writer = meeting.writer()
        for tag in sorted(set(tags) - before):
            writer.tag(query, tag)
        for tag in sorted(before - set(tags)):
            writer.tag(query, tag, removed=True)
        st.session_state[key + SHOWN] = tags
        done.append(f"the tags of query {query}")
    return done


def _pending_notes(meeting, name: str) -> list[str]:
    drafts = kept(meeting, name, "note")
    done = []
    for key in _widgets("meeting.note:"):
        note = _changed(key)
        if note is None:
            continue
        query = key.split(":", 1)[1]
        st.session_state[key + SHOWN] = note
        try:
            meeting.writer().set_note(query, note, seen=st.session_state.get(key + SEEN, ""))
        except NoteConflict:
            drafts[query] = note  # kept, and shown beside theirs on the query's panel
            continue
        except MeetingError as exc:  # refused (the lock, the role): the note typed is said
            raise MeetingError(f"{exc}; your note of query {query}: {note}") from None
        drafts.pop(query, None)
        done.append(f"the note of query {query}")
        browser.focus_next(browser.NEXT, leaving=browser.NOTE)  # the note said: the next query
    return done
