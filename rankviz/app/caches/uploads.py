"""The session's uploads: runs and qrels a visitor adds, kept apart from the uploader (a widget of
one page) until they remove them, each parsed once per session (a failure too, remembered as its
message) and decompressed under ``RANKVIZ_MAX_UPLOAD_MB`` (:mod:`rankviz.study.served`)."""

from __future__ import annotations

import os
from typing import cast

import streamlit as st

from rankviz.app.caches.cache import MB, digest, give_back, max_upload_bytes
from rankviz.app.widgets.text import md, message, said
from rankviz.errors import RankvizError
from rankviz.study import Measure, Qrels, Run, served


def _read_with_progress(source: str | bytes, name: str, filename: str | None = None) -> Run:
    """A run read piece by piece under a progress bar when it is large (TREC files; others
    whole)."""
    size = len(source) if isinstance(source, bytes) else os.path.getsize(source)
    bar = None
    done = [0]
    compressed = served.compressed(source)

    def advance(count: int) -> None:
        nonlocal bar
        bar = bar or st.progress(0.0, text=f"Reading the run {name}…")
        done[0] += count
        if not compressed:  # a gzip file's content size is known only at its end
            bar.progress(
                min(done[0] / size, 1.0),
                text=f"Reading the run {name}… {done[0] / MB:,.0f} of {size / MB:,.0f} MB",
            )
        else:
            bar.progress(0.5, text=f"Reading the run {name}… {done[0] / MB:,.0f} MB")

    try:
        run = served.large_run(source, name, filename, advance)
    finally:
        if bar is not None:
            bar.empty()
    if run is not None:
        return run
    with st.spinner(f"Reading the run {name}…"):
        return served.served_run(source, name, filename)


def upload(key: str, data: bytes, filename: str, kind: str) -> Run | Qrels | list[Measure]:
    """An uploaded run, qrels or scores file, parsed once per session (a failure too, remembered as
    its message)."""
    failures = st.session_state.setdefault("rankviz.upload_failures", {})
    if key in failures:
        raise RankvizError(failures[key])
    try:
        return _upload(key, data, filename, kind)
    except RankvizError as exc:
        failures[key] = said(exc)
        raise


@st.cache_resource(show_spinner=False, max_entries=16, scope="session", on_release=give_back)
def _upload(key: str, _data: bytes, filename: str, kind: str) -> Run | Qrels | list[Measure]:
    content = served.upload_content(_data, filename, max_upload_bytes())
    if kind == "run":
        return _read_with_progress(content, served.upload_name(filename), filename)
    if kind == "scores":  # their gaps scored as the frame says (Score.under)
        with st.spinner("Reading the scores…"):
            return served.served_scores(content, filename)
    with st.spinner("Reading the judgments…"):
        return served.served_qrels(content, filename)


UPLOADS_SEEN = "rankviz.uploads_seen"
#: Runs uploaded but not yet in the selection the URL remembers: kept until the selection takes
#: them (:func:`joined`), so a page switch that interrupts the run after the upload loses nothing.
TO_SELECT = "rankviz.uploads_to_select"
#: The session's uploads, kept apart from the uploader (a widget of one page): {"runs": {key: (name,
#: bytes)}, "qrels": (key, name, bytes) or None, "scores": {key: (name, bytes)}}. They stay across
#: page switches until the person removes them.
UPLOADS = "rankviz.uploads"
_UPLOADER = "rankviz.uploader_generation"  # a new uploader once its files are kept


def _kept() -> dict:
    kept = st.session_state.setdefault(UPLOADS, {"runs": {}, "qrels": None})
    kept.setdefault("scores", {})
    return kept


def _take_uploads(run_files, qrels_given, score_files) -> None:
    """Keep what the uploader holds in the session, and give the next run an empty uploader."""
    kept = _kept()
    for kind, files in (("runs", run_files), ("scores", score_files)):
        for given in files or []:
            data = given.getvalue()
            kept[kind][f"upload:{digest(data)}"] = (given.name, data)
    if qrels_given is not None:
        data = qrels_given.getvalue()
        kept["qrels"] = (f"upload:{digest(data)}", qrels_given.name, data)
    if run_files or score_files or qrels_given is not None:
        st.session_state[_UPLOADER] = st.session_state.get(_UPLOADER, 0) + 1


def keep_run(filename: str, data: bytes) -> None:
    """A run made in the session (a fused run) kept as an uploaded one: read, selected and
    removable the same way."""
    _kept()["runs"][f"upload:{digest(data)}"] = (filename, data)


def joined() -> None:
    """The runs uploaded are in the selection the URL remembers: none waits to join it."""
    st.session_state.pop(TO_SELECT, None)


def _remove(key: str) -> None:
    kept = _kept()
    st.session_state.get(TO_SELECT, set()).discard(key)
    kept["runs"].pop(key, None)
    kept["scores"].pop(key, None)
    if kept["qrels"] is not None and kept["qrels"][0] == key:
        kept["qrels"] = None


def uploads() -> tuple[
    list[tuple[str, Run]],
    tuple[str, Qrels] | None,
    list[str],
    list[tuple[str, str]],
    list[Measure],
]:
    """The session's uploads: (key, run) pairs, the qrels if any, the runs uploaded in this rerun,
    the messages (kind, escaped text) about them, which the page shows at its top, and the scores
    uploaded."""
    kept = _kept()
    with st.sidebar.expander(
        "Add your own runs, qrels and scores",
        expanded=bool(kept["runs"] or kept["qrels"] or kept["scores"]),
    ):
        st.caption(
            "TREC run or qrels files, .gz, CSV, TSV or Parquet. Uploaded runs join the runs of the "
            "collection; uploaded per-query scores (any evaluator's, docs/scores.md) join its "
            "measures. They stay on every page of this browser session until you remove them; a "
            "link you share does not carry them."
        )
        generation = st.session_state.get(_UPLOADER, 0)
        run_files = st.file_uploader(
            "Runs", accept_multiple_files=True, key=f"upload_runs:{generation}"
        )
        qrels_given = st.file_uploader(
            "Qrels (replace the collection's)", key=f"upload_qrels:{generation}"
        )
        score_files = st.file_uploader(
            "Per-query scores (beside the runs)",
            accept_multiple_files=True,
            key=f"upload_scores:{generation}",
        )
        _take_uploads(run_files, qrels_given, score_files)
        every = [(key, name) for key, (name, _) in [*kept["runs"].items(), *kept["scores"].items()]]
        every += (
            [(kept["qrels"][0], f"{kept['qrels'][1]} (qrels)")] if kept["qrels"] is not None else []
        )
        for key, name in every:
            st.button(
                message("Remove {}", name), key=f"remove:{key}", on_click=_remove, args=(key,)
            )
    seen = st.session_state.setdefault(UPLOADS_SEEN, set())
    runs: list[tuple[str, Run]] = []
    qrels: tuple[str, Qrels] | None = None
    notes: list[tuple[str, str]] = []
    for key, (filename, data) in kept["runs"].items():
        try:
            run = cast(Run, upload(key, data, filename, "run"))
        except RankvizError as exc:
            notes.append(("error", "Run not loaded: " + md(exc)))
            continue
        runs.append((key, run))
        if key not in seen:
            seen.add(key)
            st.session_state.setdefault(TO_SELECT, set()).add(key)
            notes.append(
                (
                    "success",
                    message(
                        "Added the run {} from {}: {} queries, {} lines; it is selected.",
                        run.name,
                        filename,
                        f"{len(run.query_ids):,}",
                        f"{len(run):,}",
                    ),
                )
            )
    if kept["qrels"] is not None:
        key, filename, data = kept["qrels"]
        try:
            qrels = (key, cast(Qrels, upload(key, data, filename, "qrels")))
            if key not in seen:
                seen.add(key)
                notes.append(
                    (
                        "success",
                        message("Using the judgments of {} instead of the collection's.", filename),
                    )
                )
        except RankvizError as exc:
            notes.append(("error", "Qrels not loaded: " + md(exc)))
    scores: list[Measure] = []
    for key, (filename, data) in kept["scores"].items():
        try:
            read = cast(list[Measure], upload(key, data, filename, "scores"))
        except RankvizError as exc:
            notes.append(("error", "Scores not loaded: " + md(exc)))
            continue
        scores += read
        if key not in seen:
            seen.add(key)
            names = ", ".join(str(s) for s in read)
            notes.append(("success", message("Added the scores {} from {}.", names, filename)))
    pending = st.session_state.get(TO_SELECT, set())
    fresh = [key for key, _ in runs if key in pending]
    return runs, qrels, fresh, notes, scores
