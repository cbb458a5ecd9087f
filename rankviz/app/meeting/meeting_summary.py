"""What the meeting did so far, below the Overview: the record's counts, the moved numbers, the
downloads."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from rankviz.app.widgets import number_tables
from rankviz.app.widgets.text import message
from rankviz.plots import export
from rankviz.study.record import qrels_text


def summary(ctx) -> None:
    """On the Overview: how much each run's mean moves with the meeting's judgments, and the
    exports."""
    meeting = ctx.meeting
    if meeting is None or meeting.store is None or meeting.merged is None:
        return
    st.subheader("The meeting's judgments")
    before = ctx.with_qrels("file").evaluation().means()
    after = ctx.with_qrels("meeting").evaluation().means()
    moved = pd.concat({"qrels file": before.stack(), "with the meeting's": after.stack()}, axis=1)
    moved["change"] = moved["with the meeting's"] - moved["qrels file"]
    moved.index.names = ["run", "measure"]
    number_tables.numbers(after - before, "%+.4f")
    with st.expander("Both means of every run and measure"):
        number_tables.numbers(moved, formats={"change": "%+.4f"})
    st.caption(
        message(
            "How much each run's mean moves from the qrels file to the qrels with the {} "
            "document(s) the meeting "
            "judged in force (the latest judgment of each). Now in force: {}.",
            meeting.judgments,
            meeting.in_force(),
        )
    )
    store = meeting.store

    def log() -> bytes:
        frame = pd.DataFrame([vars(j) for j in store.judgments()]).rename(
            columns={"previous": "previous grade"}
        )
        return export.csv(frame, index=False)

    def tags_and_notes() -> bytes:
        tags, notes = store.tags(), store.notes()
        queries = sorted({*tags, *notes})
        record = pd.DataFrame(
            {
                "qid": queries,
                "tags": [", ".join(tags.get(q, [])) for q in queries],
                "note": [notes.get(q, "") for q in queries],
            }
        )
        return export.csv(record, index=False)

    merged = meeting.merged
    # each file made when asked for: a large record costs nothing per rerun
    one, two, three = st.columns(3)
    one.download_button(
        "Merged qrels (TREC)",
        lambda: qrels_text(merged),
        file_name="qrels-with-meeting.txt",
        mime="text/plain",
    )
    two.download_button(
        "Judgment log (CSV)", log, file_name="meeting-judgments.csv", mime="text/csv"
    )
    three.download_button(
        "Tags and notes (CSV)", tags_and_notes, file_name="meeting-tags-notes.csv", mime="text/csv"
    )
    where = (
        "The record is the file {} on the server (beside the collection unless the server "
        "names another place); "
    )
    st.caption(
        message(
            where + "the command line reads it too: rankviz judgments export FILE.", store.path.name
        )
    )
