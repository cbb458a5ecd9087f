"""An owner imports a qrels file into the meeting's record (an LLM judge's labels, another
assessor's): every grade checked against the collection's scale, all recorded in one transaction
or none, as imported entries, under a source label or the owner's name."""

from __future__ import annotations

import streamlit as st

from rankviz import served
from rankviz.app.cache import max_upload_bytes
from rankviz.app.kept import recorded
from rankviz.app.text import message
from rankviz.errors import RankvizError
from rankviz.io.access import Role


def import_panel(ctx) -> None:
    """The owners' import, on the Judgments page (nothing for viewers and judges, nothing while
    the record cannot be written or is locked)."""
    meeting = ctx.meeting
    if meeting is None or meeting.visitor.role < Role.OWNER or meeting.why_not_recording():
        return
    with st.expander("Import judgments into the meeting's record (owners)"):
        upload = st.file_uploader(
            "A qrels file (TREC lines: qid iter docid grade; .gz too)", key="import.file"
        )
        source = st.text_input(
            "Record them as the source",
            key="import.source",
            placeholder="llm:umbrela",
            help="llm:NAME or human:NAME: the entries are that source's, compared with the "
            "meeting's own on this page (meeting:llm:NAME); empty: recorded under your name",
        ).strip()
        who = meeting.visitor.name
        if not who:
            st.info("Give your name on Per-query deltas first: the import says who made it.")
        if st.button("Import", key="import.go", disabled=upload is None or not who):
            assert upload is not None  # the button is disabled without one
            try:
                content = served.upload_content(upload.getvalue(), upload.name, max_upload_bytes())
                qrels = served.served_qrels(content, upload.name)
                done, under = meeting.writer().import_qrels(
                    qrels, source=source or None, filename=upload.name
                )
            except RankvizError as exc:
                st.error(message("Not imported: {}", exc))
            else:
                recorded(f"Imported {len(done):,} judgments of {upload.name}, recorded as {under}.")
