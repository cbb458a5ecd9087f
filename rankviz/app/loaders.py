"""Cached loaders and computations at the app's boundary, keyed on content, never on object ids.

A file is known by its path and its stamp (:func:`stamp`), so an edited, replaced or re-copied file
is read again; a collection's stamp covers every file it reads and the listing of its folders, so an
added run or an edited collection.toml is seen on the next rerun. An upload is known by the SHA-256
of its bytes. Cached functions take those keys (plus the settings as text); the objects they need
come as ``_underscored`` arguments, which Streamlit does not hash, so a cache can never serve one
run's numbers for another's.

A collection's parsed runs are also kept on disk (:class:`~rankviz.io.store.RunStore`, in
``RANKVIZ_STORE``, default ``~/.cache/rankviz``), so a restarted server opens them in milliseconds
instead of parsing them again; large runs are read under a progress bar.

Memory on a shared server is bounded twice: what is built from files lives in one LRU cache bounded
in bytes (``RANKVIZ_CACHE_MB``, default 8192 on a 24 GiB machine: room for about ten MS MARCO-sized
runs with their tables); what is built from an upload lives in session-scoped caches, freed when its
browser session ends, and an upload may not decompress to more than ``RANKVIZ_MAX_UPLOAD_MB`` (1024).
A bad upload's error is remembered for the session, so it is not parsed again on every rerun.
"""

from __future__ import annotations

import dataclasses
import gc
import hashlib
import os
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cachetools
import numpy as np
import pandas as pd
import pyarrow as pa
import streamlit as st

from rankviz.errors import RankvizError
from rankviz.evaluate import Evaluation, evaluate_tables, revised
from rankviz.io.blocks import read_in_pieces
from rankviz.io.collection import Collection, open_collection
from rankviz.io.groups import QueryGroups
from rankviz.io.meeting import STORE_NAME, MeetingError, MeetingStore, merged_qrels
from rankviz.io.model import Qrels, Run
from rankviz.io.readers import read_qrels, read_run, run_name_from_path
from rankviz.io.sources import decompressed, is_gzip
from rankviz.io.store import RunStore
from rankviz.measures import Measure
from rankviz.ranking import RankingTable, chance_table, rank, regrade
from rankviz.settings import EvalSettings, TestSettings
from rankviz.tie_policy import BOUNDS, policy

Stamp = tuple[int, int, int, int]
MB = 2**20


#: The server's size settings (environment variable -> default megabytes), read in one place.
SIZE_SETTINGS = {"RANKVIZ_CACHE_MB": 8192, "RANKVIZ_MAX_UPLOAD_MB": 1024, "RANKVIZ_STORE_MB": 20480}


def _given_megabytes(name: str) -> int | None:
    """The environment's whole number of megabytes (1 or more) for ``name``, else None."""
    text = os.environ.get(name, "").strip()
    return int(text) if re.fullmatch(r"[0-9]{1,9}", text) and int(text) >= 1 else None


def megabytes(name: str) -> int:
    """The environment's size setting in bytes; its default when unset or not a whole number of at
    least 1 (:func:`environment_problems` says so on every page)."""
    return (_given_megabytes(name) or SIZE_SETTINGS[name]) * MB


def environment_problems() -> list[str]:
    """A sentence for each size setting the environment gets wrong (the default is used instead)."""
    return [f"{name}={os.environ[name][:40]!r} is not a whole number of megabytes (1 or more): using {default:,}"
            for name, default in SIZE_SETTINGS.items() if name in os.environ and _given_megabytes(name) is None]  # fmt: skip


def cache_bytes() -> int:
    return megabytes("RANKVIZ_CACHE_MB")


def max_upload_bytes() -> int:
    return megabytes("RANKVIZ_MAX_UPLOAD_MB")


def stamp(path: Path) -> Stamp:
    """Modification time (ns), size, inode and change time (ns). Tools that keep the modification
    time (``rsync -t``, ``cp -p``, ``tar x``) still set the change time, which no tool can set back,
    so any rewrite of the content changes the stamp."""
    info = path.stat()
    return info.st_mtime_ns, info.st_size, info.st_ino, info.st_ctime_ns


def folder_stamp(root: Path) -> tuple:
    """The stamps of every file of a collection folder and of its runs/ folder (the listing included),
    but the meeting's record, whose changes are followed by its own version (:func:`meeting`)."""
    entries = []
    for folder in (root, root / "runs"):
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        for name in names:
            if name.startswith(STORE_NAME):  # the meeting's record (and its -wal, -shm) changes with every entry
                continue
            try:
                entries.append((str(folder / name), stamp(folder / name)))
            except OSError:  # a broken symlink or a file removed meanwhile: part of the state too
                entries.append((str(folder / name), None))
    return tuple(entries)


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def file_key(path: Path) -> str:
    return f"file:{path}:{stamp(path)}"


def nbytes(value: Any) -> int:
    """The memory an object's arrays hold (NumPy, Arrow), through dataclass fields, dicts and sequences."""
    if isinstance(value, np.ndarray):
        return value.nbytes
    if isinstance(value, (pa.Array, pa.ChunkedArray)):
        return value.nbytes
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return sum(nbytes(getattr(value, f.name)) for f in dataclasses.fields(value)) + 1024
    if isinstance(value, Mapping):
        return sum(nbytes(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return sum(nbytes(v) for v in value)
    return 64


class BoundedCache:
    """An LRU cache bounded by the bytes of its values (cachetools), shared by every session.

    One build per key at a time: a second session asking for a run being read waits for it
    instead of reading it again (and doubling the memory).
    """

    def __init__(self, budget: Callable[[], int]) -> None:
        self._budget = budget
        self._cache: cachetools.LRUCache | None = None
        self._lock = threading.Lock()
        self._building: dict[Any, threading.Lock] = {}

    def _store(self) -> cachetools.LRUCache:
        if self._cache is None:
            self._cache = cachetools.LRUCache(maxsize=self._budget(), getsizeof=nbytes)
        return self._cache

    def get(self, key: Any, build: Callable[[], Any]) -> Any:
        with self._lock:
            if key in self._store():
                return self._store()[key]
            building = self._building.setdefault(key, threading.Lock())
        with building:
            with self._lock:
                if key in self._store():
                    return self._store()[key]
            try:
                value = build()
            except BaseException:
                with self._lock:
                    self._building.pop(key, None)
                raise
            with self._lock:
                try:
                    self._store()[key] = value
                except ValueError:  # larger than the whole budget: used, not kept
                    pass
                self._building.pop(key, None)
            pa.default_memory_pool().release_unused()  # what eviction freed, back to the system
            return value

    def peek(self, key: Any) -> Any:
        """The value kept for ``key``, or None (never builds it)."""
        with self._lock:
            return self._store().get(key)

    @property
    def size(self) -> int:
        return int(self._store().currsize)

    def clear(self) -> None:
        with self._lock:
            self._store().clear()


SHARED = BoundedCache(cache_bytes)


def _give_back(_value: Any) -> None:
    """When a session's upload results go (its session ended), give their memory back to the system
    once the cache has dropped them: Arrow's allocator keeps freed memory until asked."""

    def release() -> None:
        gc.collect()
        pa.default_memory_pool().release_unused()

    threading.Timer(1.0, release).start()


def collection(path: str, stamp: tuple) -> Collection:
    return SHARED.get(("collection", path, stamp), lambda: open_collection(path, confined=True))


def qrels_file(key: str, path: str) -> Qrels:
    with st.spinner("Reading the judgments…"):
        return SHARED.get(("qrels", key), lambda: read_qrels(path))


def meeting(path: Path) -> tuple[MeetingStore | None, str]:
    """The meeting's record at ``path`` if it exists (reading never creates it), else why not."""
    try:
        if not path.exists():
            return None, ""
        return MeetingStore(path, create=False), ""
    except MeetingError as exc:
        return None, str(exc).replace(str(path), path.name)  # the server's paths are not the visitors' business
    except OSError as exc:  # a name too long, a folder not readable: the record cannot be reached
        return None, f"the record's path cannot be used ({exc.strerror or exc})"


def meeting_qrels(qrels_key: str, qrels: Qrels, store: MeetingStore, version: int) -> tuple[Qrels, int, bool, list[str]]:
    """The qrels with the meeting's judgments in force, how many pairs the meeting judged, whether
    they judge the same queries as the file (then every ranking keeps its order), and the entries
    left out as unreadable; rebuilt when a judgment is added (``version``)."""

    def build() -> tuple[Qrels, int, bool, list[str]]:
        grades, left_out = store.latest_checked()
        merged = merged_qrels(qrels, grades)
        return merged, len(grades), set(merged.query_ids) == set(qrels.query_ids), left_out

    return SHARED.get(("meeting qrels", qrels_key, str(store.path), version), build)


def store() -> RunStore | None:
    """The disk store of parsed runs (``RANKVIZ_STORE``: a folder, or ``off``), bounded by
    ``RANKVIZ_STORE_MB`` (default 20480)."""
    folder = os.environ.get("RANKVIZ_STORE") or str(Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "rankviz")
    if folder == "off":
        return None
    return RunStore(folder, budget=megabytes("RANKVIZ_STORE_MB"))


def run_file(key: str, path: str, name: str) -> Run:
    """A collection's run: from memory, else from the disk store, else read (with a progress bar)."""
    return SHARED.get(("run", key, name), lambda: _stored_or_read(path, name))


def _stored_or_read(path: str, name: str) -> Run:
    disk = store()
    if disk is None:
        return _read_with_progress(path, name)
    with st.spinner(f"Opening the run {name}…"):
        return disk.get(path, name, lambda: _read_with_progress(path, name))


def _read_with_progress(source: str | bytes, name: str, filename: str | None = None) -> Run:
    """A run read piece by piece under a progress bar when it is large (TREC files; others whole)."""
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
            bar.progress(min(done[0] / size, 1.0), text=f"Reading the run {name}… {done[0] / MB:,.0f} of {size / MB:,.0f} MB")
        else:
            bar.progress(0.5, text=f"Reading the run {name}… {done[0] / MB:,.0f} MB")

    try:
        return read_in_pieces(source, name=name, filename=filename, progress=advance)
    finally:
        bar.empty()


PROGRESS_ABOVE = 128 * MB


def upload(key: str, data: bytes, filename: str, kind: str) -> Run | Qrels:
    """An uploaded run or qrels file, parsed once per session (a failure too, remembered as its message)."""
    failures = st.session_state.setdefault("rankviz.upload_failures", {})
    if key in failures:
        raise RankvizError(failures[key])
    try:
        return _upload(key, data, filename, kind)
    except RankvizError as exc:
        failures[key] = str(exc)
        raise


@st.cache_resource(show_spinner=False, max_entries=16, scope="session", on_release=_give_back)
def _upload(key: str, _data: bytes, filename: str, kind: str) -> Run | Qrels:
    content = decompressed(_data, filename, limit=max_upload_bytes())
    if kind == "run":
        return _read_with_progress(content, run_name_from_path(filename), filename)
    with st.spinner("Reading the judgments…"):
        return read_qrels(content, filename=filename)


def _shared(*keys: str) -> bool:
    """Whether results built from these inputs may be shared by every session (no upload among them)."""
    return not any(k.startswith("upload:") for k in keys)


@st.cache_resource(show_spinner="Ordering the rankings…", max_entries=64, scope="session", on_release=_give_back)
def _ranking_session(run_key: str, qrels_key: str, ties: str, _run: Run, _qrels: Qrels) -> RankingTable:
    return rank(_run, _qrels, ties=ties)


def ranking(run_key: str, qrels_key: str, ties: str, run: Run, qrels: Qrels, *,
            regrade_from: tuple[str, Qrels] | None = None) -> RankingTable:  # fmt: skip
    """One run's ranking table under a tie policy (random orders are drawn from trec_eval's).

    ``regrade_from``: the key and qrels of a table these qrels only re-grade (the qrels file, when the
    meeting's judgments are in force): that table's order is kept and only its grades are looked up
    again (:func:`rankviz.ranking.regrade`), which a new judgment needs instead of a new ordering."""
    ties = policy(ties).ranked_as  # random orders are drawn from trec_eval's table
    rule = policy(ties)
    if rule.table_order != ties:  # expected: trec_eval's order, measured with the closed forms: the same arrays
        base = ranking(run_key, qrels_key, rule.table_order, run, qrels, regrade_from=regrade_from)
        return dataclasses.replace(base, ties=ties, _cache={})
    if not _shared(run_key, qrels_key):
        return _ranking_session(run_key, qrels_key, ties, run, qrels)

    def build() -> RankingTable:
        if regrade_from is None or regrade_from[0] == qrels_key or not rule.regradable:
            return rank(run, qrels, ties=ties)
        return regrade(ranking(run_key, regrade_from[0], ties, run, regrade_from[1]), run, qrels)

    with st.spinner(f"Ordering the rankings of {run.name}…"):
        return SHARED.get(("ranking", run_key, qrels_key, ties), build)


@st.cache_resource(show_spinner="Computing the measures…", max_entries=128, scope="session", on_release=_give_back)
def _evaluation_session(
    run_keys: tuple[str, ...], qrels_key: str, measures: tuple[str, ...], settings: tuple, grouping: str, _inputs: tuple
) -> Evaluation:
    return _evaluate(*_inputs)


@dataclass(frozen=True)
class Lineage:
    """Qrels that follow a meeting's record: the qrels file (``base``) with its judgments up to ``version``.

    An evaluation under a newer version is the newest one kept, revised for the queries judged since
    (:func:`rankviz.evaluate.revised`): a new judgment costs a few queries, not a whole evaluation."""

    base: str
    version: int
    store: MeetingStore


_NEWEST: dict[tuple, tuple[int, tuple]] = {}  # (what, lineage base) -> (version, cache key) of the newest result built
_NEWEST_LOCK = threading.Lock()


def _revising(key: tuple, what: tuple, lineage: Lineage | None, tables: Mapping[str, RankingTable],
              build: Callable[[], Evaluation]) -> Callable[[], Evaluation]:  # fmt: skip
    """``build``, or with a lineage, the newest kept evaluation of ``what`` revised for the queries judged since."""
    if lineage is None:
        return build

    def revise() -> Evaluation:
        with _NEWEST_LOCK:
            newest = _NEWEST.get((what, lineage.base))
        result = None
        if newest is not None and newest[0] < lineage.version:
            previous = SHARED.peek(newest[1])
            if previous is not None:
                result = revised(previous, tables, lineage.store.queries_judged_after(newest[0]))
        result = build() if result is None else result
        with _NEWEST_LOCK:
            if newest is None or _NEWEST.get((what, lineage.base), (-1,))[0] < lineage.version:
                _NEWEST[(what, lineage.base)] = (lineage.version, key)
        return result

    return revise


def _evaluate(tables, measures, settings, groups, weights) -> Evaluation:
    return evaluate_tables(tables, measures, settings, groups=groups, weights=weights)


def evaluation(
    run_keys: Sequence[str],
    qrels_key: str,
    tables: Mapping[str, RankingTable],
    measures: Sequence[Measure],
    settings: EvalSettings,
    *,
    grouping: str,
    groups: QueryGroups | None,
    weights: Mapping[str, float] | None,
    lineage: Lineage | None = None,
) -> Evaluation:
    """An evaluation of the given tables; ``grouping`` names the groups and weights in force (their
    source's key), which the result depends on; ``lineage``: the qrels follow a meeting's record."""
    key = (tuple(run_keys), qrels_key, tuple(map(str, measures)), tuple(sorted(settings.to_text().items())), grouping)
    inputs = (dict(tables), list(measures), settings, groups, weights)
    if not _shared(*run_keys, qrels_key):
        return _evaluation_session(*key, _inputs=inputs)
    what = ("evaluation", key[0], *key[2:])
    return SHARED.get(("evaluation", *key), _revising(("evaluation", *key), what, lineage, inputs[0], lambda: _evaluate(*inputs)))


def chance_evaluation(run_keys: Sequence[str], qrels_key: str, tables: Mapping[str, RankingTable], measures: Sequence[Measure],
                      settings: EvalSettings, *, grouping: str, groups: QueryGroups | None,
                      weights: Mapping[str, float] | None, lineage: Lineage | None = None) -> Evaluation:  # fmt: skip
    """The chance level of each run (its documents of each query in a random order, exactly)."""
    chance = settings.replace(ties="expected")
    key = ("chance", tuple(run_keys), qrels_key, tuple(map(str, measures)), tuple(sorted(chance.to_text().items())), grouping)
    chance_tables = {n: chance_table(t) for n, t in tables.items()}

    def build() -> Evaluation:
        return evaluate_tables(chance_tables, measures, chance, groups=groups, weights=weights)

    if not _shared(*run_keys, qrels_key):
        return _chance_session(*key[1:], _build=build)
    return SHARED.get(key, _revising(key, (key[0], key[1], *key[3:]), lineage, chance_tables, build))


@st.cache_resource(show_spinner=False, max_entries=64, scope="session", on_release=_give_back)
def _chance_session(run_keys: tuple, qrels_key: str, measures: tuple, settings: tuple, grouping: str, _build) -> Evaluation:
    return _build()


def overlap(run_keys: tuple[str, str], qrels_key: str, ties: str, baseline: RankingTable, run: RankingTable) -> pd.Series:
    """Rank-biased overlap of two runs' rankings of every query (top 100, p = 0.9)."""
    from rankviz.analyses.query_view import rank_biased_overlap

    key = ("rbo", run_keys, qrels_key, ties)
    if not _shared(*run_keys, qrels_key):
        return _overlap_session(*key, _inputs=(baseline, run))
    return SHARED.get(key, lambda: rank_biased_overlap(baseline, run))


@st.cache_resource(show_spinner=False, max_entries=64, scope="session", on_release=_give_back)
def _overlap_session(name: str, run_keys: tuple, qrels_key: str, ties: str, _inputs: tuple) -> pd.Series:
    from rankviz.analyses.query_view import rank_biased_overlap

    return rank_biased_overlap(*_inputs)


# --- analyses (small results, keyed on the content of their inputs) ---------------------------


@st.cache_data(max_entries=256, show_spinner="Testing…")
def comparison(values: pd.DataFrame, measure: str, settings: tuple, baseline: str) -> pd.DataFrame:
    """:func:`rankviz.analyses.comparisons.compare_runs` on a queries x runs matrix."""
    from rankviz.analyses.comparisons import compare_runs

    return compare_runs(values, TestSettings.from_text(dict(settings), baseline=baseline), measure=measure)


@st.cache_data(max_entries=64, show_spinner="Testing each group…")
def comparison_by_group(values: pd.DataFrame, groups: pd.Series, measure: str, settings: tuple, baseline: str) -> pd.DataFrame:
    from rankviz.analyses.comparisons import compare_by_group

    return compare_by_group(values, groups, TestSettings.from_text(dict(settings), baseline=baseline), measure=measure)


@st.cache_data(max_entries=64, show_spinner="Testing under each tie policy…")
def verdict_changes(matrices: dict[str, pd.DataFrame], measure: str, settings: tuple, baseline: str) -> pd.DataFrame:
    from rankviz.analyses.ties import verdict_changes as changes

    return changes(matrices, measure, TestSettings.from_text(dict(settings), baseline=baseline))


def test_key(settings: TestSettings) -> tuple:
    """A test's settings as a cache key (the baseline goes separately)."""
    return tuple(sorted(settings.to_text().items()))


@st.cache_resource(max_entries=32, show_spinner="Comparing the measures…")
def _metric_report(run_keys: tuple, qrels_key: str, measures: tuple, settings: tuple, k: int, test: str, grouping: str,
                   _inputs: tuple):  # fmt: skip
    from rankviz.analyses.metric_choice import metric_report

    tables, measure_list, eval_settings, groups, weights = _inputs
    return metric_report(tables, measure_list, eval_settings, top_k=k, test=test, rng=0, groups=groups, weights=weights,
                         every_candidate=True)  # fmt: skip


def metric_report(ctx, test: str):
    """The Metric choice evidence of the frame's runs and measures, and of every measure some answer
    about the task would recommend, so a changed answer needs no new computation (seeded: the page
    is reproducible)."""
    tables = {name: ctx.tables(ties=name) for name in BOUNDS}
    key = (
        tuple(ctx.run_keys[n] for n in ctx.selected),
        ctx.qrels_key,
        tuple(map(str, ctx.measures)),
        tuple(sorted(ctx.settings.to_text().items())),
        ctx.k,
        test,
        ctx.grouping,
    )
    return _metric_report(*key, _inputs=(tables, list(ctx.measures), ctx.settings, ctx.groups, ctx.weights))


@st.cache_resource(max_entries=32, show_spinner="Judging the holes…")
def _unjudged_report(run_keys: tuple, qrels_key: str, measures: tuple, settings: tuple, test: tuple, baseline: str, k: int,
                     grade: int, grouping: str, _inputs: tuple):  # fmt: skip
    from rankviz.analyses.unjudged import report_from_tables

    tables, measure_list, eval_settings, tests, groups, weights = _inputs
    return report_from_tables(tables, measure_list, eval_settings, tests, k=k, grade=grade, groups=groups, weights=weights)


def unjudged_report(ctx, grade: int):
    """The Unjudged documents report of the frame's runs and measures at the frame's K."""
    tests = ctx.test_settings()
    key = (
        tuple(ctx.run_keys[n] for n in ctx.selected),
        ctx.qrels_key,
        tuple(map(str, ctx.measures)),
        tuple(sorted(ctx.settings.to_text().items())),
        test_key(tests),
        tests.baseline,
        ctx.k,
        grade,
        ctx.grouping,
    )
    inputs = (ctx.tables(), list(ctx.measures), ctx.settings, tests, ctx.groups, ctx.weights)
    return _unjudged_report(*key, _inputs=inputs)
