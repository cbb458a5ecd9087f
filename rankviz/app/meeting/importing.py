"""An owner imports a qrels file into the meeting's record (an LLM judge's labels, another
assessor's): every grade checked against the collection's scale, all recorded in one transaction
or none, as imported entries, under a source label or the owner's name; and undoes an import, so
that what was in force before it is in force again (the history keeps both)."""

from __future__ import annotations

import streamlit as st

from rankviz.app.caches.cache import max_upload_bytes
from rankviz.app.meeting.kept import recorded
from rankviz.app.widgets.text import message
from rankviz.errors import RankvizError
from rankviz.study import Role, served


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
        _undo_imports(meeting)


def _undo_imports(meeting) -> None:
    """The five latest imports not taken back, each with its undo."""
    store = meeting.store
    if store is None:
        return
    for under, at, note, numbers in store.imports()[:5]:
        label = f"Undo the import recorded as {under} at {at} ({len(numbers):,} judgments)"
        if st.button(label, key=f"import.undo:{at}:{under}", help=note or None):
            try:
                done = meeting.writer().undo(numbers, note=f"undo of the import of {at}")
            except RankvizError as exc:
                st.error(message("Not undone: {}", exc))
            else:
                recorded(f"Undone: {len(done):,} judgments of the import recorded as {under}.")
