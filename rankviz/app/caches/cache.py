"""The app's memory: what a cached result is known by, and the caches that keep it.

A file is known by its path and its stamp (:func:`stamp`), so an edited, replaced or re-copied file
is read again; a collection's stamp covers every file it reads and the listing of its folders, so an
added run or an edited collection.toml is seen on the next rerun. An upload is known by the SHA-256
of its bytes (:func:`digest`). Results are keyed on those keys plus the settings as text, never on
object ids, so a cache can never serve one run's numbers for another's.

Memory on a shared server is bounded twice: what is built from files lives in one LRU cache bounded
in bytes (:data:`SHARED`, ``RANKVIZ_CACHE_MB``, default 8192 on a 24 GiB machine: room for about ten
MS MARCO-sized runs with their tables); what is built from an upload lives in session-scoped caches,
freed when its browser session ends (:func:`give_back`). Parsed runs are also kept on disk
(:func:`store`, ``RANKVIZ_STORE``), so a restarted server opens them in milliseconds.
"""

from __future__ import annotations

import dataclasses
import functools
import gc
import hashlib
import os
import re
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import cachetools
import numpy as np
import pyarrow as pa

from rankviz.io.store import ArrayStore, RunStore, identity, store_folder
from rankviz.study import STORE_NAME

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
    return [
        f"{name}={os.environ[name][:40]!r} is not a whole number of megabytes (1 or more): "
        f"using {default:,}"
        for name, default in SIZE_SETTINGS.items()
        if name in os.environ and _given_megabytes(name) is None
    ]


def cache_bytes() -> int:
    return megabytes("RANKVIZ_CACHE_MB")


def max_upload_bytes() -> int:
    return megabytes("RANKVIZ_MAX_UPLOAD_MB")


def stamp(path: Path) -> str:
    """What names the file's content as it is now (:func:`rankviz.io.stamps.identity`): its
    stamp (modification time, size, inode and change time: tools that keep the modification time,
    such as ``rsync -t``, ``cp -p`` or ``tar x``, still set the change time, which no tool can set
    back), or, while the stamp is younger than the file system's resolution, the digest of its
    bytes (git's rule for racy entries: a rewrite within the same second keeps the stamp)."""
    return identity(path)


def folder_stamp(root: Path) -> tuple[tuple[str, str | None], ...]:
    """The stamps of every file of a collection folder and of its runs/ and scores/ folders (the
    listings included), but the meeting's record, whose changes are followed by its own version
    (:func:`rankviz.study.served.open_record`)."""
    entries: list[tuple[str, str | None]] = []
    for folder in (root, root / "runs", root / "scores"):
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        for name in names:
            # the meeting's record (and its -wal, -shm) changes with every entry
            if name.startswith(STORE_NAME):
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
    """The memory an object's arrays hold (NumPy, Arrow), through dataclass fields, dicts and
    sequences."""
    if isinstance(value, np.ndarray):
        return value.nbytes
    if isinstance(value, (pa.Array, pa.ChunkedArray)):
        return value.nbytes
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return sum(nbytes(getattr(value, f.name)) for f in dataclasses.fields(value)) + 1024
    if isinstance(value, Mapping):
        return sum(nbytes(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        first = value[0] if value else None
        if isinstance(first, tuple) and first:
            first = first[0]
        if isinstance(first, (str, int, float)):
            # plain values (a run's query ids, its facts' pairs): no array inside
            return 64 * len(value)
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


def give_back(_value: Any) -> None:
    """When a session's upload results go (its session ended), give their memory back to the system
    once the cache has dropped them: Arrow's allocator keeps freed memory until asked."""

    def release() -> None:
        gc.collect()
        pa.default_memory_pool().release_unused()

    threading.Timer(1.0, release).start()


def store() -> RunStore | None:
    """The disk store of parsed runs (``RANKVIZ_STORE``: a folder, or ``off``), bounded by
    ``RANKVIZ_STORE_MB`` (default 20480)."""
    folder = store_folder()
    return None if folder is None else RunStore(folder, budget=megabytes("RANKVIZ_STORE_MB"))


def passes_store() -> ArrayStore | None:
    """Each run's pass (:mod:`rankviz.study.run_pass`: its values, chance level and facts) kept on
    disk beside the parsed runs, so that a restarted server shows twenty runs without ordering any;
    a few hundred KB a run, bounded by ``RANKVIZ_STORE_MB`` too."""
    folder = store_folder()
    return (
        None
        if folder is None
        else ArrayStore(folder / "passes", budget=megabytes("RANKVIZ_STORE_MB"))
    )


@functools.cache
def code_stamp() -> str:
    """The rankviz code this process runs (each module's name, size and modification time): what an
    older version, or a checkout edited since, kept on disk is never served."""
    package = Path(__file__).resolve().parents[2]
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        info = path.stat()
        digest.update(f"{path.relative_to(package)}:{info.st_size}:{info.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def shared(*keys: str) -> bool:
    """Whether results built from inputs of these keys may be shared by every session (no upload
    among them)."""
    return not any(k.startswith("upload:") for k in keys)
