"""What the app serves, read: collection folders, their qrels and runs, the meeting's record,
uploads.

A collection's runs are opened when a page asks for them (:class:`Runs`), from the disk store when
it holds them (memory-mapped), else read once and stored; the frame's progress bar counts them. A
large upload is read under a progress bar of its own, parsed once per session (a failure too,
remembered as its message) and may not decompress to more than ``RANKVIZ_MAX_UPLOAD_MB`` (1024).
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import cast

import streamlit as st

from rankviz.app.cache import MB, SHARED, digest, give_back, max_upload_bytes, store
from rankviz.app.pages import ROOT
from rankviz.app.text import md, message
from rankviz.errors import RankvizError
from rankviz.io.blocks import read_in_pieces
from rankviz.io.collection import Collection, open_collection
from rankviz.io.docs import Documents
from rankviz.io.grades import Scale
from rankviz.io.irds import is_irds
from rankviz.io.meeting import STORE_NAME, MeetingError, MeetingStore, unwritable
from rankviz.io.model import Qrels, Run
from rankviz.io.readers import read_qrels, read_run, run_name_from_path
from rankviz.io.sources import decompressed, is_gzip

#: The sample collections: a checkout's three, else the one an installed package ships (Cranfield).
SAMPLE_DATA = (
    ROOT / "sample_data"
    if (ROOT / "pyproject.toml").is_file()
    else Path(__file__).resolve().parents[1] / "sample_data"
)
PROGRESS_ABOVE = 128 * MB


def collection_folders(extra: list[str]) -> dict[str, Path]:
    """Sample collections plus folders given with --data, by display key."""
    found = (
        {p.name: p for p in sorted(SAMPLE_DATA.iterdir()) if (p / "runs").is_dir()}
        if SAMPLE_DATA.is_dir()
        else {}
    )
    for folder in extra:
        # irds:ID names a dataset
        path = Path(folder) if is_irds(folder) else Path(folder).expanduser().resolve()
        name, n = folder if is_irds(folder) else path.name, 1
        # two folders of one name: numbered, never the server's path
        while name in found and found[name] != path:
            n += 1
            name = f"{folder if is_irds(folder) else path.name} ({n})"
        found[name] = path
    return found


def _app_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--data", action="append", default=[])
    parser.add_argument("--notes", default=None)
    known, _ = parser.parse_known_args(sys.argv[1:])
    return known


def data_dirs() -> list[str]:
    return _app_args().data


def notes_path(folder: Path) -> Path:
    """Where a collection's meeting record lives: ``--notes PATH`` (or ``RANKVIZ_NOTES``): a
    ``.sqlite``
    file for every collection served, or a folder with one ``<collection folder>.sqlite`` each;
    by default ``rankviz-notes.sqlite`` in the collection folder."""
    given = _app_args().notes or os.environ.get("RANKVIZ_NOTES")
    if not given:
        return folder / STORE_NAME
    path = Path(given).expanduser()
    return path if path.suffix == ".sqlite" else path / f"{folder.name}.sqlite"


def served_text(text: str, folder: Path) -> str:
    """A message about a served collection with the server's paths to it shortened to the folder's
    name: a visitor learns which file is wrong, not where the server keeps it."""
    for prefix in sorted(
        {str(folder.resolve()), str(folder.absolute()), str(folder)}, key=len, reverse=True
    ):
        text = text.replace(prefix, folder.name)
    return text


def collection(path: str, stamp: tuple) -> Collection:
    return SHARED.get(("collection", path, stamp), lambda: open_collection(path, confined=True))


def qrels_file(key: str, path: str) -> Qrels:
    with st.spinner("Reading the judgments…"):
        return SHARED.get(("qrels", key), lambda: read_qrels(path))


def meeting(path: Path, scale: Scale, collection: str) -> tuple[MeetingStore | None, str, str]:
    """The meeting's record at ``path`` if it exists (reading never creates it), else why not; and
    why nothing can be recorded there ("" when something can)."""
    read_only = unwritable(path)
    try:
        if not path.exists():
            return None, "", read_only
        return MeetingStore(path, create=False, scale=scale, collection=collection), "", read_only
    except (MeetingError, OSError) as exc:
        return None, served_problem(exc, path), read_only


def served_problem(exc: Exception, path: Path) -> str:
    """Why the record at ``path`` cannot be used, without the server's paths (not the visitors'
    business)."""
    if isinstance(exc, MeetingError):
        return str(exc).replace(str(path), path.name)
    return f"the record's path cannot be used ({getattr(exc, 'strerror', None) or exc})"


def document_texts(collection: Collection) -> Documents | None:
    """The collection's document texts, indexed first under a progress bar when this is their first
    use (:mod:`rankviz.io.docs`: a one-time read of the file, then every lookup takes
    milliseconds)."""
    docs = collection.docs
    if docs is None or docs.ready():
        return docs
    bar = st.progress(0.0, text="Indexing the document texts, once…")

    def advance(done: int, total: int) -> None:
        bar.progress(
            min(done / max(total, 1), 1.0),
            text=f"Indexing the document texts, once… {done / max(total, 1):.0%}",
        )

    try:
        docs.build(advance)
    finally:
        bar.empty()
    return docs


class Runs(Mapping[str, Run]):
    """The served runs by name, each opened when asked for: a page of twenty runs shows the first of
    them without reading the rest, and no run stays in memory for being listed."""

    def __init__(self) -> None:
        self._open: dict[str, Callable[[], Run]] = {}

    def add(self, name: str, open_run: Callable[[], Run]) -> None:
        self._open[name] = open_run

    def only(self, names: list[str]) -> Runs:
        """These runs alone, still opened when asked for."""
        view = Runs()
        view._open = {name: self._open[name] for name in names}
        return view

    def __getitem__(self, name: str) -> Run:
        return self._open[name]()

    def __iter__(self) -> Iterator[str]:
        return iter(self._open)

    def __len__(self) -> int:
        return len(self._open)


def run_file(key: str, path: str, name: str) -> Run:
    """A collection's run, safe to call from worker threads (no widget): with the disk store, from
    it (memory-mapped: milliseconds, and pages the system may drop, not the process's memory), read
    and stored first if it is not there yet, one reading per file at a time across sessions, a
    failure remembered for the file as it is; without the store, read once and kept in memory."""
    disk = store()
    read = functools.partial(_read_alone, path, name)
    if disk is None:
        return SHARED.get(("run", key, name), read)
    parse = functools.partial(_parse_alone, path, name)

    opened: list[Run] = []

    def stored() -> str:
        try:
            opened.append(disk.get(path, name, read, parse=parse))
            return ""
        except RankvizError as exc:
            return str(exc)

    problem = SHARED.get(("stored run", key), stored)
    if problem:
        raise RankvizError(problem)
    return opened[0] if opened else disk.get(path, name, read)  # as read, if read here


_READING = threading.Lock()


def _read_alone(path: str, name: str) -> Run:
    """One run file parsed at a time: Arrow's reader already keeps every core busy, and the other
    runs' passes (single-threaded ordering) go on meanwhile."""
    with _READING:
        return read_run(path, name=name)


def _parse_alone(path: str, name: str, data: bytes) -> Run:
    """The run from the bytes the store read of its file (named by its path in messages), one at a
    time."""
    with _READING:
        return read_run(data, name=name, filename=path)


def _read_with_progress(source: str | bytes, name: str, filename: str | None = None) -> Run:
    """A run read piece by piece under a progress bar when it is large (TREC files; others
    whole)."""
    size = len(source) if isinstance(source, bytes) else os.path.getsize(source)
    label = filename or str(source)
    if size < PROGRESS_ABOVE or label.lower().endswith((".csv", ".tsv", ".parquet")):
        with st.spinner(f"Reading the run {name}…"):
            return read_run(source, name=name, filename=filename)
    bar = st.progress(0.0, text=f"Reading the run {name}…")
    done = [0]
    compressed = is_gzip(source)

    def advance(count: int) -> None:
        done[0] += count
        if not compressed:  # a gzip file's content size is known only at its end
            bar.progress(
                min(done[0] / size, 1.0),
                text=f"Reading the run {name}… {done[0] / MB:,.0f} of {size / MB:,.0f} MB",
            )
        else:
            bar.progress(0.5, text=f"Reading the run {name}… {done[0] / MB:,.0f} MB")

    try:
        return read_in_pieces(source, name=name, filename=filename, progress=advance)
    finally:
        bar.empty()


def upload(key: str, data: bytes, filename: str, kind: str) -> Run | Qrels:
    """An uploaded run or qrels file, parsed once per session (a failure too, remembered as its
    message)."""
    failures = st.session_state.setdefault("rankviz.upload_failures", {})
    if key in failures:
        raise RankvizError(failures[key])
    try:
        return _upload(key, data, filename, kind)
    except RankvizError as exc:
        failures[key] = str(exc)
        raise


@st.cache_resource(show_spinner=False, max_entries=16, scope="session", on_release=give_back)
def _upload(key: str, _data: bytes, filename: str, kind: str) -> Run | Qrels:
    content = decompressed(_data, filename, limit=max_upload_bytes())
    if kind == "run":
        return _read_with_progress(content, run_name_from_path(filename), filename)
    with st.spinner("Reading the judgments…"):
        return read_qrels(content, filename=filename)


UPLOADS_SEEN = "rankviz.uploads_seen"
#: The session's uploads, kept apart from the uploader (a widget of one page): {"runs": {key: (name,
#: bytes)}, "qrels": (key, name, bytes) or None}. They stay across page switches until the person
#: removes them.
UPLOADS = "rankviz.uploads"
_UPLOADER = "rankviz.uploader_generation"  # a new uploader once its files are kept


def _kept() -> dict:
    return st.session_state.setdefault(UPLOADS, {"runs": {}, "qrels": None})


def _take_uploads(run_files, qrels_given) -> None:
    """Keep what the uploader holds in the session, and give the next run an empty uploader."""
    kept = _kept()
    for given in run_files or []:
        data = given.getvalue()
        kept["runs"][f"upload:{digest(data)}"] = (given.name, data)
    if qrels_given is not None:
        data = qrels_given.getvalue()
        kept["qrels"] = (f"upload:{digest(data)}", qrels_given.name, data)
    if run_files or qrels_given is not None:
        st.session_state[_UPLOADER] = st.session_state.get(_UPLOADER, 0) + 1


def _remove(key: str) -> None:
    kept = _kept()
    kept["runs"].pop(key, None)
    if kept["qrels"] is not None and kept["qrels"][0] == key:
        kept["qrels"] = None


def uploads() -> tuple[
    list[tuple[str, Run]], tuple[str, Qrels] | None, list[str], list[tuple[str, str]]
]:
    """The session's uploads: (key, run) pairs, the qrels if any, the runs uploaded in this rerun,
    and the messages (kind, escaped text) about them, which the page shows at its top."""
    kept = _kept()
    with st.sidebar.expander(
        "Add your own runs and qrels", expanded=bool(kept["runs"] or kept["qrels"])
    ):
        st.caption(
            "TREC run or qrels files, .gz, CSV, TSV or Parquet. Uploaded runs join the runs "
            "of the collection. "
            "They stay on every page of this browser session until you remove them; a link "
            "you share does not "
            "carry them."
        )
        generation = st.session_state.get(_UPLOADER, 0)
        run_files = st.file_uploader(
            "Runs", accept_multiple_files=True, key=f"upload_runs:{generation}"
        )
        qrels_given = st.file_uploader(
            "Qrels (replace the collection's)", key=f"upload_qrels:{generation}"
        )
        _take_uploads(run_files, qrels_given)
        every = [(key, name) for key, (name, _) in kept["runs"].items()]
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
    fresh: list[str] = []
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
            fresh.append(key)
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
    return runs, qrels, fresh, notes
