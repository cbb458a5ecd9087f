"""What the app serves, read: collection folders, their qrels and runs, the meeting's record,
uploads.

A collection's runs are opened when a page asks for them
(:class:`~rankviz.io.runs_when_asked.RunsWhenAsked`), from the disk store when
it holds them (memory-mapped), else read once and stored; the frame's progress bar counts them. A
large upload is read under a progress bar of its own, parsed once per session (a failure too,
remembered as its message) and may not decompress to more than ``RANKVIZ_MAX_UPLOAD_MB`` (1024).
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import os
import sys
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

import streamlit as st

from rankviz.app.caches.cache import SHARED, stamp, store
from rankviz.app.widgets.text import said
from rankviz.errors import RankvizError
from rankviz.settings.eval_settings import EvalSettings
from rankviz.study import Collection, Documents, Qrels, Run, Score, ScoreRules, served
from rankviz.study.opening import beside_paths
from rankviz.study.reading import read_beside, read_scores_beside

# a checkout's root (app.py, pages/, sample_data/), or site-packages
_ROOT = Path(__file__).resolve().parents[3]
#: The sample collections: a checkout's three, else the one an installed package ships (Cranfield).
SAMPLE_DATA = (
    _ROOT / "sample_data"
    if (_ROOT / "pyproject.toml").is_file()
    else Path(__file__).resolve().parents[2] / "sample_data"
)


def _app_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--data", action="append", default=[])
    parser.add_argument("--notes", default=None)
    parser.add_argument("--scheduler", default=None)
    known, _ = parser.parse_known_args(sys.argv[1:])
    return known


def scheduler() -> str | None:
    """The Dask scheduler the passes go to: ``--scheduler ADDRESS`` (or ``RANKVIZ_SCHEDULER``);
    None: this server takes them."""
    return _app_args().scheduler or os.environ.get("RANKVIZ_SCHEDULER") or None


def data_dirs() -> list[str]:
    return _app_args().data


def collection_folders(extra: list[str]) -> dict[str, Path]:
    """Sample collections plus folders given with --data, by display key."""
    return served.collection_folders(SAMPLE_DATA, extra)


def notes_path(folder: Path) -> Path:
    """Where a collection's meeting record lives: ``--notes PATH`` (or ``RANKVIZ_NOTES``), see
    :func:`rankviz.study.served.record_path`."""
    return served.record_path(folder, _app_args().notes or os.environ.get("RANKVIZ_NOTES"))


def collection(path: str, stamp: tuple) -> Collection:
    return SHARED.get(("collection", path, stamp), lambda: served.open_served(path))


def collection_scores(collection: Collection) -> dict[str, Score]:
    """The collection's per-query scores (``scores.*``, ``scores/``) by name
    (:func:`scores_read`)."""
    found = scores_read(collection.score_paths, collection.config.scores)
    return {str(s): s for s in found}


def scores_read(paths: Sequence[Path | str], rules: ScoreRules) -> list[Score]:
    """The per-query scores of these files as measures under ``rules``, a query without a value
    left out (``Score.under`` scores it 0), read once per content of the files (their stamps key
    it)."""
    if not paths:
        return []
    key = ("scores", tuple((str(p), stamp(Path(p))) for p in paths), repr(rules))

    def read() -> list[Score]:
        found = read_scores_beside(paths, EvalSettings(), rules)
        return [s for s in found if isinstance(s, Score)]

    return SHARED.get(key, read)


def with_beside(collection: Collection, qrels: Qrels, key: str) -> tuple[Qrels, str]:
    """The qrels with the judgments beside them that the collection keeps (its ``subtopics.txt``,
    ``qrels_jg.txt``, ``prefs.txt``: :func:`rankviz.study.opening.judgments_beside`), read once
    per content of those files (:func:`beside_read`), and a key that names the files' contents too
    (a cache keyed on it never serves values of other judgments)."""
    paths = beside_paths(collection)
    if not paths:
        return qrels, key
    return qrels.with_beside(**beside_read(paths)), f"{key}+beside:{_beside_stamps(paths)!r}"


def beside_read(paths: Mapping[str, Path | str]) -> dict[str, object]:
    """The judgments beside the qrels in these files, by kind, read once per content of the
    files."""
    with st.spinner("Reading the judgments beside the qrels…"):
        return SHARED.get(
            ("beside", _beside_stamps(paths)),
            lambda: {kind: read_beside(kind, p) for kind, p in paths.items()},
        )


def _beside_stamps(paths: Mapping[str, Path | str]) -> tuple:
    return tuple((kind, str(p), stamp(Path(p))) for kind, p in paths.items())


def with_uploaded(own: dict[str, Score], uploaded: list) -> dict[str, Score]:
    """The collection's scores and the session's uploaded ones (``NAME (upload)`` where the
    collection has a score of that name)."""
    found = dict(own)
    for score in uploaded:
        name = str(score) if str(score) not in found else f"{score} (upload)"
        found[name] = score if name == str(score) else dataclasses.replace(score, name=name)
    return found


def qrels_file(key: str, path: str) -> Qrels:
    with st.spinner("Reading the judgments…"):
        return SHARED.get(("qrels", key), lambda: served.served_qrels(path))


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


def run_file(key: str, path: str, name: str) -> Run:
    """A collection's run, safe to call from worker threads (no widget): with the disk store, from
    it (memory-mapped: milliseconds, and pages the system may drop, not the process's memory), read
    and stored first if it is not there yet, one reading per file at a time across sessions, a
    failure remembered for the file as it is; without the store, read once and kept in memory."""
    disk = store()
    read = functools.partial(_read_alone, path, name)
    if disk is None:
        return SHARED.get(("run", key, name), read)

    opened: list[Run] = []

    def stored() -> str:
        try:
            opened.append(disk.get(path, name, read))
            return ""
        except RankvizError as exc:
            return said(exc)

    problem = SHARED.get(("stored run", key), stored)
    if problem:
        raise RankvizError(problem)
    return opened[0] if opened else disk.get(path, name, read)  # as read, if read here


_READING = threading.Lock()


def _read_alone(path: str, name: str) -> Run:
    """One run file parsed at a time: Arrow's reader already keeps every core busy, and the other
    runs' passes (single-threaded ordering) go on meanwhile."""
    with _READING:
        return served.served_run(path, name)
