"""Grades typed as text beside the judging grid: ``746 2, 665 0`` and Enter records those
documents' grades of the query in one transaction, as the grid records its cells.

A meeting at a projector runs on a keyboard: Tab reaches this field from the top of the page, where
the grid's cells take a mouse's click before they take a typed grade. What cannot be recorded (a
document not shown, a grade outside the collection's scale) is said under the field and nothing of
the line is recorded; the text stays to be corrected."""

from __future__ import annotations

import re

import pandas as pd
import streamlit as st

from rankviz.app.meeting import drafts
from rankviz.app.meeting.kept import judge, kept, recorded, renew_grid
from rankviz.app.widgets import browser
from rankviz.app.widgets.text import message
from rankviz.study import GradeConflict, MeetingError

LABEL = browser.GRADES
#: The field whose line was recorded: emptied before it is drawn again. Its key stays (a new key
#: is a new field, and the keyboard would leave it between one line and the next).
_RECORDED = "rankviz.typed_grades_recorded"


def parse(text: str, shown: list[str]) -> tuple[list[tuple[str, int]], list[str]]:
    """The (docid, grade) pairs of ``text`` (pairs split by commas, semicolons or new lines) and
    what is wrong with the others; a docid must be among ``shown``, the documents of the grid."""
    pairs, problems = [], []
    for item in re.split(r"[,;\n]+", text):
        words = item.split()
        if not words:
            continue
        if len(words) != 2:
            problems.append(f"{item.strip()!r} is not a docid and a grade")
        elif words[0] not in shown:
            problems.append(f"{words[0]} is not among this query's documents shown")
        elif not re.fullmatch(r"[+-]?\d+", words[1]):
            problems.append(f"{words[0]}: {words[1]} is not a whole grade")
        else:
            pairs.append((words[0], int(words[1])))
    repeated = {d for d, _ in pairs if sum(d == other for other, _ in pairs) > 1}
    problems += [f"{docid} is graded twice" for docid in sorted(repeated)]
    return pairs, problems


def field(
    meeting,
    box,
    query: str,
    before: pd.DataFrame,
    file_grades,
    seen,
    name: str,
    *,
    compact: bool = False,
) -> None:
    """The field, and what it records or refuses (``before``: the grid's table as drawn, ``seen``:
    the meeting's grades in it, told apart from a colleague's newer ones; ``compact``: one line
    beside the buttons of a projector's first screen, its label said by its placeholder)."""
    key = f"meeting.typed_grades:{query}"
    if st.session_state.pop(_RECORDED, None) == key:
        st.session_state[key] = ""
    text = box.text_input(
        LABEL,
        key=key,
        disabled=not name,
        label_visibility="collapsed" if compact else "visible",
        placeholder="Grades: docid grade, ... then Enter" if compact else "e.g. 746 2, 665 0",
        help="Type a document's docid and its grade (several: commas between them) and press "
        "Enter: they are recorded as if typed in the grid's grade cells.",
    )
    if not text.strip() or not name:
        return
    pairs, problems = parse(text, [str(d) for d in before["docid"]])
    changes = [(docid, grade, "") for docid, grade in pairs]
    problems += drafts.out_of_scale(changes, meeting.scale)
    if problems:
        box.error(
            message("Not recorded: {}. Correct the line and press Enter.", "; ".join(problems))
        )
        return
    try:
        judge(meeting, query, changes, file_grades, seen)
    except GradeConflict as exc:  # shown beside the colleague's grades on the query's panel
        kept(meeting, name, "grades")[query] = (changes, exc.conflicts, file_grades)
        renew_grid()
        st.rerun()
    except MeetingError as exc:
        box.error(message("Not recorded: {}", exc))
        return
    st.session_state[_RECORDED] = key
    # the next line of grades, or Enter on the empty field: the tag
    browser.focus_next(LABEL, leaving=LABEL)
    recorded(f"Recorded by {name}: {len(changes)} judgment(s) of query {query}.")
