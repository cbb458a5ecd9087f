"""What the meeting's controls keep between reruns and sessions: what the last rerun recorded, the
judging grid's generation, a person's drafts (kept by the server under the person's name, so that a
reload, a new session, finds them), and the one way a table's grades are recorded."""

from __future__ import annotations

import threading
from time import monotonic
from typing import Any

import streamlit as st

from rankviz.app.widgets.text import md

_RECORDED = "rankviz.meeting_recorded"  # what the last rerun recorded, said on the next
_SAID = "rankviz.meeting_said"  # what this run said of it
SAY_FOR = 10.0  # seconds a recorded entry is said for (as long as the notice shows on its own)
_GENERATION = "rankviz.meeting_generation"  # this session's editors start afresh after it records
#: (record, person, kind) -> query -> a draft: "note" (the person's note, kept while it conflicts
#: with a colleague's) or "grades" (the person's grades and the colleagues' they conflict with).
#: Kept by the server, not the browser session, so that a reload (a new session, the name remembered
#: by the browser) finds them.
_KEPT: dict[tuple[str, str, str], dict[str, Any]] = {}
_KEPT_LOCK = threading.Lock()


def recorded(text: str) -> None:
    """Say what was recorded on the next rerun, start this session's editors afresh, rerun (every
    number of the page is computed again with the new entry)."""
    st.session_state[_RECORDED] = (text, monotonic(), False)
    renew_grid()
    st.rerun()


def generation() -> int:
    """Changes when this session records: the judging grid's key follows it, so the grid starts
    afresh."""
    return st.session_state.get(_GENERATION, 0)


def renew_grid() -> None:
    """The judging grid starts afresh on this run: it shows the record as it is, not what was
    typed."""
    st.session_state[_GENERATION] = generation() + 1


def say_recorded() -> None:
    """What the last run recorded, in a notice over the page's corner (a banner at its top would
    push the judging grid down between one grade and the next). Said by every run until one that
    said it has drawn the whole page (:func:`run_finished`: a newer rerun, a click during this one,
    drops what this run had not yet sent to the browser), and for :data:`SAY_FOR` seconds: the
    browser takes a notice away when a run that does not say it finishes, and a click's reruns
    would otherwise take it before anyone could read it."""
    entry = st.session_state.get(_RECORDED)
    if entry is None:
        return
    text, at, finished = entry
    if finished and monotonic() - at >= SAY_FOR:
        del st.session_state[_RECORDED]
        return
    st.toast(md(text), icon=":material/check_circle:", duration="long")
    st.session_state[_SAID] = text


def run_finished() -> None:
    """The page was drawn to its end: what it said of the record has reached the browser."""
    said = st.session_state.pop(_SAID, None)
    entry = st.session_state.get(_RECORDED)
    if said is not None and entry is not None and entry[0] == said:
        st.session_state[_RECORDED] = (entry[0], entry[1], True)


def kept(meeting, name: str, kind: str) -> dict[str, Any]:
    """This person's drafts of one kind on the meeting's record (query -> draft)."""
    with _KEPT_LOCK:
        return _KEPT.setdefault((str(meeting.path), name, kind), {})


def note_draft(meeting, name: str, query: str) -> str | None:
    """This person's note of ``query`` kept while it conflicts with a colleague's, else None."""
    return kept(meeting, name, "note").get(query) if name else None


def judge(
    meeting,
    query: str,
    changes: list[tuple[str, int, str]],
    file_grades: dict[str, int],
    seen: dict[str, int | None] | None,
) -> None:
    """Record a table's grades in one transaction, by this session's person; with ``seen`` (the
    meeting's grades the person saw), none if a colleague has graded one of the documents
    otherwise since (:class:`GradeConflict`)."""
    pairs = [(query, docid) for docid, _, _ in changes]
    meeting.writer().judge_many(
        [(query, docid, grade) for docid, grade, _ in changes],
        originals={pair: file_grades.get(pair[1]) for pair in pairs},
        notes={(query, docid): note for docid, _, note in changes},
        seen=None if seen is None else {pair: seen.get(pair[1]) for pair in pairs},
    )
