"""An entry that meets a colleague's newer one for the same thing (a grade of the same document, the
query's note): both shown, and the person records theirs over it (the colleague's stays in the
history) or discards it. Nothing is recorded over a colleague's entry unseen."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from rankviz.app.meeting.kept import judge, kept, recorded
from rankviz.app.widgets.text import message
from rankviz.study import MeetingError


def note_conflict(meeting, query: str, name: str, draft: str, theirs: str) -> None:
    """A note this person wrote while a colleague changed it: both shown, the person chooses."""
    st.warning(
        message(
            "While you wrote, the note of query {} was changed by someone else. Theirs: {}. Yours "
            "is in the box below; record yours to replace theirs, or discard it.",
            query,
            theirs or "(empty)",
        )
    )
    _choose(
        meeting,
        name,
        "note",
        query,
        ("Record my note (replaces theirs)", "Discard my note"),
        lambda: meeting.writer().set_note(query, draft),
        f"Recorded the note of query {query} by {name}.",
    )


def grade_conflict(meeting, query: str, name: str) -> None:
    """Grades this person typed while a colleague graded the same documents otherwise: theirs and
    these shown, nothing recorded until the person chooses (as for a note)."""
    draft = kept(meeting, name, "grades").get(query) if name else None
    if draft is None:
        return
    changes, conflicts, file_grades = draft
    typed = {docid: grade for docid, grade, _ in changes}
    said = "; ".join(
        f"{docid}: {by} gave {theirs}, you typed {typed[docid]}"
        for _, docid, theirs, by in conflicts
    )
    st.warning(
        message(
            "While you judged query {}, someone else graded the same documents: {}. None of your "
            "{} grade(s) is recorded yet: record yours to replace theirs, or discard yours.",
            query,
            said,
            len(changes),
        )
    )
    _choose(
        meeting,
        name,
        "grades",
        query,
        ("Record my grades (replace theirs)", "Discard my grades"),
        lambda: judge(meeting, query, changes, file_grades, None),
        f"Recorded by {name}: {len(changes)} judgment(s) of query {query}.",
    )


def _choose(
    meeting,
    name: str,
    kind: str,
    query: str,
    labels: tuple[str, str],
    record: Callable[[], object],
    said: str,
) -> None:
    """The two choices under a conflict: record this person's draft over the colleague's entry
    (which stays in the history), or discard the draft."""
    keep, drop = st.columns(2)
    if keep.button(labels[0], key=f"meeting.keep_{kind}:{query}", disabled=not name):
        try:
            record()
        except MeetingError as exc:
            st.error(message("Not recorded: {}", exc))
        else:
            kept(meeting, name, kind).pop(query, None)
            recorded(said)
    if drop.button(labels[1], key=f"meeting.drop_{kind}:{query}"):
        kept(meeting, name, kind).pop(query, None)
        st.rerun()
