"""The meeting's record in the app: judge the query view's documents, tag and note the query, read
its history.

Every entry goes to the collection's :class:`~rankviz.io.meeting.MeetingStore`, which every browser
session of the server shares: the next rerun of any session sees it. Who makes an entry is the
signed-in identity, or without sign-in a name each person gives once per browser session (kept in
the session, never in the URL): :mod:`rankviz.app.meeting.recorder`. Names, tags and
notes are shown in tables and inputs, or escaped, never as markup.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from rankviz.app.frame import answers
from rankviz.app.meeting import conflicts, drafts, recorder, typed_grades
from rankviz.app.meeting.kept import generation, note_draft
from rankviz.app.widgets import browser
from rankviz.plots import export
from rankviz.study.record import LIMITS, scale_text

UNJUDGED = "unjudged"


def judging_table(
    view: pd.DataFrame,
    file_grades: dict[str, int],
    meeting_grades: dict[str, tuple[int, str]],
    *,
    unjudged_first: bool = True,
) -> pd.DataFrame:
    """One row per document of the query view: the documents the qrels file does not judge first (by
    their better rank; else in the view's order), each with its grade in the file, in the meeting,
    and the grade in force."""
    best = view[["baseline rank", "run rank"]].min(axis=1)
    table = pd.DataFrame(
        {
            "docid": view["docid"].astype(str).to_numpy(),
            "baseline rank": view["baseline rank"].to_numpy(),
            "run rank": view["run rank"].to_numpy(),
            "qrels file": [
                str(file_grades[d]) if d in file_grades else UNJUDGED
                for d in view["docid"].astype(str)
            ],
            "meeting": [
                meeting_grades[d][1] if d in meeting_grades else ""
                for d in view["docid"].astype(str)
            ],
        }
    )
    table["grade"] = pd.array(
        [
            meeting_grades[d][0] if d in meeting_grades else file_grades.get(d)
            for d in table["docid"]
        ],
        dtype="Int64",
    )
    table["note"] = ""
    table["_unjudged"] = table["qrels file"] == UNJUDGED
    table["_best"] = best.to_numpy()
    if unjudged_first:
        table = table.sort_values(["_unjudged", "_best"], ascending=[False, True], kind="stable")
    return table.drop(columns=["_unjudged", "_best"]).reset_index(drop=True)


def record_panel(
    ctx,
    query: str,
    view: pd.DataFrame,
    baseline: str,
    run: str,
    *,
    box=st,
    compact: bool = False,
    grades_in=None,
) -> None:
    """The meeting's controls for one query: grades beside its documents, tags, a note, the history.

    ``compact`` (projector mode: ``box`` is the first screen): the documents in the rankings' order
    with the tags and note beside them, no history, the name asked only until it is given;
    ``grades_in``: where grades are typed as text (default: beside the grid)."""
    meeting = ctx.meeting
    if not compact:
        box.subheader("The meeting's record")
    if meeting is None:
        box.info(
            "Uploaded qrels are in force: the meeting's record belongs to the collection's qrels."
        )
        return
    if meeting.problem:
        box.info(
            "Nothing can be recorded: the meeting's record cannot be read (the warning at the "
            "top says why)."
        )
        return
    # compact (a projector): the name is asked beside the grid, on the query's first screen, where
    # the judging is
    grid, beside = box.columns([3, 1]) if compact else (box, box)
    who = recorder.person(meeting, box, compact=compact, ask_in=beside if compact else st)
    if not compact:
        recorder.lock_control(meeting, box, who)
    name = "" if meeting.why_not_recording() else who
    store = meeting.store
    file_grades = _file_grades(meeting.file_qrels, query)
    # what the qrels in force hold, no more
    in_force = store.latest_judgments(query).values() if store else []
    latest = {j.docid: (j.grade, f"{j.grade} ({j.by})") for j in in_force}
    table = judging_table(view, file_grades, latest, unjudged_first=not compact)
    shown_ranks = {
        c: [("" if r != r else str(int(r))) for r in table[c]]
        for c in ("baseline rank", "run rank")
    }
    before = table.assign(**shown_ranks)
    editor_key = f"meeting.judge:{query}:{baseline}:{run}:{len(view)}:{generation()}"
    grid.data_editor(
        before,
        key=editor_key,
        hide_index=True,
        width="stretch",
        disabled=["docid", "baseline rank", "run rank", "qrels file", "meeting"] if name else True,
        column_config={
            "baseline rank": st.column_config.TextColumn(f"{baseline} rank"),
            "run rank": st.column_config.TextColumn(f"{run} rank"),
            "qrels file": st.column_config.TextColumn(
                "qrels file", help="the grade in the qrels file"
            ),
            "meeting": st.column_config.TextColumn(
                "meeting", help="the meeting's latest grade and who gave it"
            ),
            "grade": st.column_config.NumberColumn(
                "grade",
                help="the grade in force (empty: unjudged); type a grade "
                f"({scale_text(meeting.scale)}) to judge the document",
                step=1,
                format="%d",
            ),
            "note": st.column_config.TextColumn(
                "note", help="why (optional), recorded with the grade", max_chars=LIMITS["note"]
            ),
        },
        height=min(38 + 35 * len(before), 560)
        if not compact
        else min(46 + 29 * len(before), 46 + 29 * 10),
        row_height=29 if compact else None,
        placeholder="",  # an empty grade reads empty (unjudged), not "None"
    )
    if not compact:
        _judging_caption(ctx, meeting)
    if not who and not meeting.read_only:
        box.info(
            f"Give your name {'at the right' if compact else 'above'} to judge, tag and note: "
            "every entry says who made it."
        )
    seen = {docid: latest[docid][0] if docid in latest else None for docid in before["docid"]}
    # what save_pending records from
    drafts.table_shown(editor_key, query, before, file_grades, seen)
    typed_grades.field(
        meeting, grades_in or beside, query, before, file_grades, seen, name, compact=compact
    )
    conflicts.grade_conflict(meeting, query, name)
    _tags_and_note(meeting, store, query, name, *((beside, beside) if compact else box.columns(2)))
    _report_button(ctx, box, baseline, run)
    history = store.history(query) if store and not compact else []
    if history:
        box.markdown("**History of this query**")
        box.dataframe(
            pd.DataFrame([vars(e) for e in reversed(history)])[
                ["at", "by", "via", "kind", "what", "previous", "note"]
            ].rename(columns={"via": "known by"}),
            hide_index=True,
            width="stretch",
        )


def _report_button(ctx, box, baseline: str, run: str) -> None:
    """The meeting's report to take away, of the pair this page discusses (made when clicked)."""
    if ctx.meeting is None or ctx.meeting.store is None:
        return
    box.download_button(
        "Meeting report (HTML)",
        lambda: export.meeting_html(answers.meeting_report(ctx, (baseline, run))),
        file_name="meeting-report.html",
        mime="text/html",
        help=f"one page to take away: {baseline} against {run}, the means under both qrels with "
        "their verdicts, and every query the meeting discussed with both rankings, grades, tags, "
        "notes and history",
    )


def _judging_caption(ctx, meeting) -> None:
    st.caption(
        "Documents the qrels file does not judge come first. Type a grade in the grade column to "
        "judge a document "
        f"(relevant from grade {ctx.settings.rel}); a note typed in the same row is kept with it. "
        "Judgments are "
        "recorded at once for everyone on this server; the qrels file on disk is never changed. "
        + (
            "Choose 'meeting' under Qrels in force at the top of the page to compute every number "
            "with them."
            if meeting.mode != "meeting"
            else "Every number on every page is computed with them."
        )
    )


def _tags_and_note(meeting, store, query: str, name: str, left, right) -> None:
    tags_key, note_key, new_tag_key = (
        f"meeting.tags:{query}",
        f"meeting.note:{query}",
        f"meeting.new_tag:{query}",
    )
    every_tag = store.tags() if store else {}
    noted = store.notes().get(query, "") if store else ""
    draft = note_draft(meeting, name, query)
    drafts.show(tags_key, every_tag.get(query, []))
    drafts.show(note_key, noted if draft is None else draft)
    drafts.show(new_tag_key, "")
    if draft is None:
        drafts.note_seen(note_key, noted)  # the note this person's edit replaces
    else:
        conflicts.note_conflict(meeting, query, name, draft, noted)
    # the tags in use (this query's too)
    offered = sorted({tag for tags in every_tag.values() for tag in tags})
    left.multiselect(
        "Tags of this query",
        offered,
        disabled=not name,
        key=tags_key,
        help="What went wrong: pick tags already used. Tags are query groups: group by tag in the "
        "sidebar.",
    )
    left.text_input(
        browser.NEW_TAG,
        max_chars=LIMITS["tag"],
        disabled=not name,
        key=new_tag_key,
        help="Type a tag nobody used yet; it is recorded on this query when you press Enter, leave "
        "the field, or go to another query.",
    )
    right.text_area(
        browser.NOTE, max_chars=LIMITS["note"], disabled=not name, key=note_key, height=100
    )
    browser.walk_by_keyboard([browser.GRADES, browser.NEW_TAG, browser.NOTE])


def _file_grades(qrels, query: str) -> dict[str, int]:
    frame = qrels.restricted([query]).to_frame()
    return dict(zip(frame["docid"].astype(str), map(int, frame["rel"]), strict=True))
