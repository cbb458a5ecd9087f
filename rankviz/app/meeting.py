"""The meeting's record in the app: judge the query view's documents, tag and note the query, read its history.

Every entry goes to the collection's :class:`~rankviz.io.meeting.MeetingStore`, which every browser
session of the server shares: the next rerun of any session sees it. Who makes an entry is a name
each person gives once per browser session (kept in the session, never in the URL). Names, tags and
notes are shown in tables and inputs, or escaped, never as markup.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from rankviz import export
from rankviz.app.text import md, message
from rankviz.io.grades import GradeError, checked_grade, scale_text
from rankviz.io.judges import qrels_lines
from rankviz.io.meeting import LIMITS, MeetingError, NoteConflict

NAME = "rankviz.meeting_name"  # the person's name, for this browser session
_RECORDED = "rankviz.meeting_recorded"  # what the last rerun recorded, said once on the next
UNJUDGED = "unjudged"
_GENERATION = "rankviz.meeting_generation"  # this session's editors start afresh after it records
_TABLES = "rankviz.meeting_tables"  # judging editor key -> (query, the table it showed, the file's grades)
_DRAFTS = "rankviz.meeting_drafts"  # query -> this person's note, kept while it conflicts with a colleague's
#: Suffixes of a widget's companions in the session: what it was shown, the note an edit replaces. A line
#: break cannot be in a query id, so a query's widget key ("meeting.note:" + qid) never ends like one.
SHOWN, SEEN = "\nshown", "\nseen"


def person(container) -> str:
    """The name entries are recorded under, asked once per browser session."""
    name = container.text_input(
        "Your name (for the meeting's record; kept for this browser session)",
        value=st.session_state.get(NAME, ""),
        max_chars=LIMITS["name"],
        key="meeting.name",
        placeholder="e.g. Ann",
    )
    st.session_state[NAME] = name.strip()
    return name.strip()


def _recorded(text: str) -> None:
    """Say what was recorded on the next rerun, start this session's editors afresh, rerun (every number
    of the page is computed again with the new entry)."""
    st.session_state[_RECORDED] = text
    st.session_state[_GENERATION] = st.session_state.get(_GENERATION, 0) + 1
    st.rerun()


def _show(key: str, value) -> None:
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


def judging_table(view: pd.DataFrame, file_grades: dict[str, int], meeting_grades: dict[str, tuple[int, str]], *,
                  unjudged_first: bool = True) -> pd.DataFrame:  # fmt: skip
    """One row per document of the query view: the documents the qrels file does not judge first (by
    their better rank; else in the view's order), each with its grade in the file, in the meeting,
    and the grade in force."""
    best = view[["baseline rank", "run rank"]].min(axis=1)
    table = pd.DataFrame(
        {
            "docid": view["docid"].astype(str).to_numpy(),
            "baseline rank": view["baseline rank"].to_numpy(),
            "run rank": view["run rank"].to_numpy(),
            "qrels file": [str(file_grades[d]) if d in file_grades else UNJUDGED for d in view["docid"].astype(str)],
            "meeting": [meeting_grades[d][1] if d in meeting_grades else "" for d in view["docid"].astype(str)],
        }
    )
    table["grade"] = pd.array(
        [meeting_grades[d][0] if d in meeting_grades else file_grades.get(d) for d in table["docid"]], dtype="Int64"
    )
    table["note"] = ""
    table["_unjudged"] = table["qrels file"] == UNJUDGED
    table["_best"] = best.to_numpy()
    if unjudged_first:
        table = table.sort_values(["_unjudged", "_best"], ascending=[False, True], kind="stable")
    return table.drop(columns=["_unjudged", "_best"]).reset_index(drop=True)


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
    for key, (query, before, file_grades) in list(tables.items()):
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
            writable = meeting.writable()
            for docid, grade, note in changes:
                writable.judge(query, docid, grade, by=name, note=note, original=file_grades.get(docid))
            done.append(f"{len(changes)} judgment(s) of query {query}")
            del tables[key]
    return done


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
    drafts = st.session_state.setdefault(_DRAFTS, {})
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


def record_panel(ctx, query: str, view: pd.DataFrame, baseline: str, run: str, *, box=st, compact: bool = False) -> None:
    """The meeting's controls for one query: grades beside its documents, tags, a note, the history.

    ``compact`` (projector mode: ``box`` is the first screen): the documents in the rankings' order
    with the tags and note beside them, no history, the name asked only until it is given."""
    meeting = ctx.meeting
    if not compact:
        box.subheader("The meeting's record")
    if meeting is None:
        box.info("Uploaded qrels are in force: the meeting's record belongs to the collection's qrels.")
        return
    if meeting.problem:
        box.info("Nothing can be recorded: the meeting's record cannot be read (the warning at the top says why).")
        return
    if meeting.read_only:
        box.info(message("Read only: {}. Every page computes with its judgments; nothing can be recorded. To record, "
                         "start the app with --notes PATH naming a writable copy.", meeting.read_only))  # fmt: skip
    name = "" if meeting.read_only else person(st)  # compact: below the first screen, which stays for the query
    store = meeting.store
    file_grades = _file_grades(meeting.file_qrels, query)
    in_force = store.latest_judgments(query).values() if store else []  # what the qrels in force hold, no more
    latest = {j.docid: (j.grade, f"{j.grade} ({j.by})") for j in in_force}
    table = judging_table(view, file_grades, latest, unjudged_first=not compact)
    shown_ranks = {c: [("" if r != r else str(int(r))) for r in table[c]] for c in ("baseline rank", "run rank")}
    before = table.assign(**shown_ranks)
    editor_key = f"meeting.judge:{query}:{baseline}:{run}:{len(view)}:{st.session_state.get(_GENERATION, 0)}"
    grid, beside = box.columns([3, 1]) if compact else (box, box)
    grid.data_editor(
        before,
        key=editor_key,
        hide_index=True,
        width="stretch",
        disabled=["docid", "baseline rank", "run rank", "qrels file", "meeting"] if name else True,
        column_config={
            "baseline rank": st.column_config.TextColumn(f"{baseline} rank"),
            "run rank": st.column_config.TextColumn(f"{run} rank"),
            "qrels file": st.column_config.TextColumn("qrels file", help="the grade in the qrels file"),
            "meeting": st.column_config.TextColumn("meeting", help="the meeting's latest grade and who gave it"),
            "grade": st.column_config.NumberColumn(
                "grade",
                help=f"the grade in force (empty: unjudged); type a grade ({scale_text(meeting.scale)}) to judge the document",
                step=1,
                format="%d",
            ),  # fmt: skip
            "note": st.column_config.TextColumn(
                "note", help="why (optional), recorded with the grade", max_chars=LIMITS["note"]
            ),  # fmt: skip
        },
        height=min(38 + 35 * len(before), 560) if not compact else min(46 + 29 * len(before), 46 + 29 * 10),
        row_height=29 if compact else None,
    )
    if not compact:
        _judging_caption(ctx, meeting)
    if not name and not meeting.read_only:
        box.info("Give your name " + ("below" if compact else "above") + " to judge, tag and note: every entry says who made it.")
    st.session_state.setdefault(_TABLES, {})[editor_key] = (query, before, file_grades)  # read by save_pending
    _tags_and_note(meeting, store, query, name, *((beside, beside) if compact else box.columns(2)))
    history = store.history(query) if store and not compact else []
    if history:
        box.markdown("**History of this query**")
        box.dataframe(
            pd.DataFrame([vars(e) for e in reversed(history)])[["at", "by", "kind", "what", "previous", "note"]],
            hide_index=True,
            width="stretch",
        )


def _judging_caption(ctx, meeting) -> None:
    st.caption(
        "Documents the qrels file does not judge come first. Type a grade in the grade column to judge a document "
        f"(relevant from grade {ctx.settings.rel}); a note typed in the same row is kept with it. Judgments are "
        "recorded at once for everyone on this server; the qrels file on disk is never changed. "
        + (
            "Choose 'meeting' under Qrels in force at the top of the page to compute every number with them."
            if meeting.mode != "meeting"
            else "Every number on every page is computed with them."
        )  # fmt: skip
    )


def _tags_and_note(meeting, store, query: str, name: str, left, right) -> None:
    tags_key, note_key, new_tag_key = f"meeting.tags:{query}", f"meeting.note:{query}", f"meeting.new_tag:{query}"
    every_tag = store.tags() if store else {}
    noted = store.notes().get(query, "") if store else ""
    draft = st.session_state.setdefault(_DRAFTS, {}).get(query)
    _show(tags_key, every_tag.get(query, []))
    _show(note_key, noted if draft is None else draft)
    _show(new_tag_key, "")
    if draft is None:
        st.session_state[note_key + SEEN] = noted  # the note this person's edit replaces
    else:
        _conflict(meeting, query, name, draft, noted)
    offered = sorted({tag for tags in every_tag.values() for tag in tags})  # the tags in use (this query's too)
    left.multiselect("Tags of this query", offered, disabled=not name, key=tags_key,
                     help="What went wrong: pick tags already used. Tags are query groups: group by tag in the "
                          "sidebar.")  # fmt: skip
    left.text_input("New tag", max_chars=LIMITS["tag"], disabled=not name, key=new_tag_key,
                    help="Type a tag nobody used yet; it is recorded on this query when you press Enter, leave the "
                         "field, or go to another query.")  # fmt: skip
    right.text_area("Note on this query", max_chars=LIMITS["note"], disabled=not name, key=note_key, height=100)


def _conflict(meeting, query: str, name: str, draft: str, theirs: str) -> None:
    """A note this person wrote while a colleague changed it: both shown, the person chooses."""
    st.warning(message("While you wrote, the note of query {} was changed by someone else. Theirs: {}. Yours is in the "
                       "box below; record yours to replace theirs, or discard it.", query, theirs or "(empty)"))  # fmt: skip
    keep, drop = st.columns(2)
    if keep.button("Record my note (replaces theirs)", key=f"meeting.keep_note:{query}"):
        try:
            meeting.writable().set_note(query, draft, by=name)
        except MeetingError as exc:
            st.error(message("Not recorded: {}", exc))
        else:
            st.session_state[_DRAFTS].pop(query, None)
            _recorded(f"Recorded the note of query {query} by {name}.")
    if drop.button("Discard my note", key=f"meeting.drop_note:{query}"):
        st.session_state[_DRAFTS].pop(query, None)
        st.rerun()


def _file_grades(qrels, query: str) -> dict[str, int]:
    frame = qrels.restricted([query]).to_frame()
    return dict(zip(frame["docid"].astype(str), map(int, frame["rel"]), strict=True))


def summary(ctx) -> None:
    """On the Overview: how much each run's mean moves with the meeting's judgments, and the exports."""
    meeting = ctx.meeting
    if meeting is None or meeting.store is None or meeting.merged is None:
        return
    st.subheader("The meeting's judgments")
    before = ctx.with_qrels("file").evaluation().means()
    after = ctx.with_qrels("meeting").evaluation().means()
    moved = pd.concat({"qrels file": before.stack(), "with the meeting's": after.stack()}, axis=1)
    moved["change"] = moved["with the meeting's"] - moved["qrels file"]
    moved.index.names = ["run", "measure"]
    st.dataframe((after - before).style.format("{:+.4f}"), width="stretch")
    with st.expander("Both means of every run and measure"):
        st.dataframe(moved.style.format("{:.4f}").format("{:+.4f}", subset=["change"]), width="stretch")
    st.caption(
        message(
            "How much each run's mean moves from the qrels file to the qrels with the {} document(s) the meeting "
            "judged in force (the latest judgment of each). Now in force: {}.",
            meeting.judgments,
            meeting.in_force(),
        )
    )
    store = meeting.store

    def log() -> bytes:
        frame = pd.DataFrame([vars(j) for j in store.judgments()]).rename(columns={"previous": "previous grade"})
        return export.csv(frame, index=False)

    def tags_and_notes() -> bytes:
        tags, notes = store.tags(), store.notes()
        queries = sorted({*tags, *notes})
        record = pd.DataFrame({"qid": queries, "tags": [", ".join(tags.get(q, [])) for q in queries],
                               "note": [notes.get(q, "") for q in queries]})  # fmt: skip
        return export.csv(record, index=False)

    merged = meeting.merged
    one, two, three, four = st.columns(4)  # each file made when asked for: a large record costs nothing per rerun
    one.download_button("Merged qrels (TREC)", lambda: qrels_lines(merged), file_name="qrels-with-meeting.txt",
                        mime="text/plain")  # fmt: skip
    two.download_button("Judgment log (CSV)", log, file_name="meeting-judgments.csv", mime="text/csv")
    three.download_button("Tags and notes (CSV)", tags_and_notes, file_name="meeting-tags-notes.csv", mime="text/csv")
    if len(ctx.selected) > 1:  # made when asked for: the report evaluates both qrels and reads every discussed query
        four.download_button("Meeting report (HTML)", lambda: export.meeting_html(ctx.meeting_report()),
                             file_name="meeting-report.html", mime="text/html",
                             help="one page to take away: the means under both qrels with their verdicts, and every "
                             "query the meeting discussed with both rankings, grades, tags, notes and history")  # fmt: skip
    where = "The record is the file {} on the server (beside the collection unless the server names another place); "
    st.caption(message(where + "the command line reads it too: rankviz judgments export FILE.", store.path.name))
