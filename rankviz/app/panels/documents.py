"""The query view's documents: their texts with the query's words marked, one a click away (or
every one at once), each said with its two ranks and its grade."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from rankviz.app.caches import inputs
from rankviz.app.frame.context import Context
from rankviz.app.widgets.text import highlighted, highlighted_html, md, message, query_terms


def show_text(found: dict | None, terms: list[str]) -> None:
    """A document's title and text with the query's words marked (escaped: no markup of the
    collection's)."""
    if found is None:
        st.caption("No text for this document in the collection's docs.jsonl.gz.")
        return
    if found["title"]:
        st.html("<strong>" + highlighted_html(highlighted(found["title"], terms)) + "</strong>")
    st.html(highlighted_html(highlighted(found["text"], terms)))


def documents_panel(
    ctx: Context,
    query: str,
    text: str,
    view: pd.DataFrame,
    shown: pd.DataFrame,
    document: str | None,
    *,
    show_all: bool,
    reader,
    baseline: str,
    run: str,
) -> None:
    """The documents of the query view (``view``: the aligned rankings, ``shown``: as displayed)."""
    docids = list(view["docid"])
    documents = inputs.document_texts(ctx.collection)
    if documents is None:
        st.info(
            md(
                ctx.collection.config.documents
                or "This collection has no document texts (docs.jsonl.gz, docs.tsv.gz or "
                "docs.parquet in its folder)."
            )
        )
    else:
        terms = query_terms(text)
        wanted = docids if show_all else [d for d in [document] if d]
        texts = documents.get(wanted)
        # one screen per query: every text of the top documents a click away, over the page
        if reader is not None:
            with reader.popover("Read a document", width="stretch"):
                ranks = dict(
                    zip(
                        docids,
                        zip(shown["baseline rank"], shown["run rank"], strict=True),
                        strict=True,
                    )
                )
                read = st.selectbox(
                    "Document",
                    docids,
                    key=f"deltas.read:{query}",
                    format_func=lambda d: message("{} (ranks {} / {})", d, *ranks[d]),
                )
                show_text(documents.get([read]).get(read), terms)
        if not wanted:
            st.caption(
                "Click a document's row to read it here with the query's words marked, or show "
                "every text at once."
            )
        for docid in wanted:
            cells = shown.loc[view.index[view["docid"] == docid][0]]
            title = message(
                "{} · {} rank {} · {} rank {} · grade {}",
                docid,
                baseline,
                cells["baseline rank"] or "-",
                run,
                cells["run rank"] or "-",
                cells["grade"],
            )
            with st.expander(title, expanded=True):
                show_text(texts.get(docid), terms)
