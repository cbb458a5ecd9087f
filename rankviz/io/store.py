"""Parsed runs kept on disk as Arrow IPC files, keyed on the identity of the file they were read
from.

Reading a 7M-line run takes a second or more; opening its stored columns takes milliseconds (they
are memory-mapped, not read: the operating system pages them in as they are used and shares them
between processes). The store is a cache: deleting the folder loses nothing.

Layout of the folder: ``runs/<sha1 of the file's resolved path and stamp>-<format>.arrow``, one
parsed run each (its columns, its query ids and the docids' key kind in the schema's metadata). A
file's stamp (modification and change time, size, inode) changes with any rewrite, and no tool can
set the change time back, so the key is known without reading the file (a run's bytes are read
once, by its parse). A stamp younger than its file system's resolution names no content (a rewrite
within the same second keeps it: :mod:`rankviz.io.stamps`), so such a file is read and not stored;
it is stored once its stamp has settled. Each stored run carries the stamp it was read under and a
checksum of its columns, both checked when it is opened: a damaged file, or one copied or planted
under another key, is read again, never served. The folder is the user's alone (mode 0700).

A run is written after it is returned, by one writer thread, flushed to disk and then dropped from
the page cache (the process holds the run it parsed; twenty runs' copies would otherwise fill the
machine's memory with pages nobody reads, each first touched at a cost). Every write goes to a
temporary file first and is renamed into place: several servers may share the folder. A temporary
file a killed write left is removed once it is older than :data:`STALE_TEMPORARY` seconds (the
first use of the folder in a process, and every trim). The least recently used runs are removed
past the size budget.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import os
import tempfile
import threading
import time
import zipfile
import zlib
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pyarrow as pa

from rankviz._arrow import from_numpy, to_numpy
from rankviz.io.encoding import DocidKeys
from rankviz.io.model import Run
from rankviz.io.stamps import identity as identity  # the app's caches key files by it
from rankviz.io.stamps import settled_stamp

FORMAT = "3"  # bump when the stored columns or their keys change: older files are then ignored
#: a temporary file untouched this long is a killed write's (a run is written in about a second)
STALE_TEMPORARY = 600
#: at most this many parsed runs wait for the writer (memory held for them) before a reader waits
WAITING_WRITES = 2


def store_folder() -> Path | None:
    """The disk store's folder: ``RANKVIZ_STORE`` (``off``: none), by default ``~/.cache/rankviz``
    (or under ``XDG_CACHE_HOME``). Parsed runs and the documents' side files live there."""
    folder = os.environ.get("RANKVIZ_STORE") or str(
        Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "rankviz"
    )
    return None if folder == "off" else Path(folder)


class RunStore:
    """A folder of parsed runs (see the module's docstring), at most ``budget`` bytes of them."""

    def __init__(self, folder: str | os.PathLike, *, budget: int) -> None:
        self.folder = Path(folder)
        self.budget = budget

    def get(self, path: str | os.PathLike, name: str, read: Callable[[], Run]) -> Run:
        """The run read from ``path`` under ``name``: opened from the store when this file, as it
        is now, was stored before (or is being written), else ``read()`` and stored for next time
        (not while its stamp is younger than the file system's resolution). A store that cannot
        be written (a read-only folder, a full disk) is skipped, never an error."""
        path = Path(path)
        try:
            found = self._stored(path)  # the stamp before reading: a later rewrite is another key
        except OSError:
            return read()  # the reader names what is wrong with the file
        if found is None:  # racy: read, and stored once the stamp names the bytes
            return read()
        stored, seen = found
        waiting = _WRITER.waiting(stored)
        if waiting is not None:
            return dataclasses.replace(waiting, name=name, source=str(path))
        _sweep_once(self.folder / "runs")
        if stored.exists():
            try:
                run = _open(stored, name=name, source=str(path), seen=seen)
                os.utime(stored)  # recently used
                return run
            except (OSError, pa.ArrowInvalid, KeyError, ValueError):
                pass  # damaged, planted or of another format: read again and replace it
        run = read()
        _WRITER.put(stored, run, lambda: self._write(stored, run, seen))
        return run

    def _stored(self, path: Path) -> tuple[Path, str] | None:
        """Where the run of the file as it is now (its resolved path and settled stamp) is stored,
        and that identity; None while the stamp is racy."""
        stamp = settled_stamp(path)
        if stamp is None:
            return None
        seen = "\0".join(map(str, (path.resolve(), *stamp)))
        # the file system's bytes of the path (a name that is not UTF-8 too), as a digest
        seen = hashlib.sha1(seen.encode("utf-8", "surrogateescape")).hexdigest()
        return self.folder / "runs" / f"{seen}-{FORMAT}.arrow", seen

    def _write(self, stored: Path, run: Run, seen: str) -> None:
        table = pa.table(
            {
                "qid_code": from_numpy(run.qid_codes),
                "docid": _one_chunk(run.docids),
                "score": from_numpy(run.score),
                "rank": from_numpy(run.rank),
                "docid_key": from_numpy(run.keys.values),
            }
        )
        metadata = {
            "rankviz": FORMAT,
            "numeric": "1" if run.keys.numeric else "0",
            "query_ids": json.dumps(run.query_ids.tolist()),
            "seen": seen,
        }
        metadata["checksum"] = _checksum(table, metadata)
        table = table.replace_schema_metadata(metadata)

        def write(sink) -> None:
            with pa.ipc.new_file(sink, table.schema) as writer:
                # one batch: every column opens as a view
                writer.write_table(table, max_chunksize=max(len(table), 1))

        atomic_write(stored, write, drop_pages=True)
        trim_to_budget(self.folder / "runs", ".arrow", self.budget)


class _Writer:
    """The store's one writer thread, and the runs waiting for it (by where they go): a run being
    written is served from memory, and at most :data:`WAITING_WRITES` wait at once. Its thread is
    joined when the interpreter exits, so a queued run is written, not lost half-way."""

    def __init__(self) -> None:
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rankviz-store")
        self._lock = threading.Lock()
        self._waiting: dict[Path, tuple[Run, Future]] = {}

    def waiting(self, stored: Path) -> Run | None:
        with self._lock:
            found = self._waiting.get(stored)
        return found[0] if found is not None else None

    def put(self, stored: Path, run: Run, write: Callable[[], None]) -> None:
        with self._lock:
            ahead = [future for _, future in self._waiting.values()]
        for future in ahead[: max(len(ahead) - WAITING_WRITES + 1, 0)]:
            future.result()  # back-pressure: the disk sets the pace, not the memory

        def written() -> None:
            try:
                write()
            except Exception:  # a cache: a run not stored is read again next time
                pass  # (an error here would surface in whichever reader waits for the writer)
            finally:
                with self._lock:
                    self._waiting.pop(stored, None)

        with self._lock:
            self._waiting[stored] = (run, self._pool.submit(written))

    def wait(self) -> None:
        with self._lock:
            futures = [future for _, future in self._waiting.values()]
        for future in futures:
            future.result()


_WRITER = _Writer()


def written() -> None:
    """Wait until every run returned so far is on disk (or skipped)."""
    _WRITER.wait()


class ArrayStore:
    """Small results kept on disk as ``.npz`` files (plain arrays: loading them runs no pickle),
    each under a key that says everything it depends on; at most ``budget`` bytes of them, the least
    recently used removed first. Like the run store, a cache: a damaged file is as good as none."""

    def __init__(self, folder: str | os.PathLike, *, budget: int) -> None:
        self.folder = Path(folder)
        self.budget = budget

    def _path(self, key: str) -> Path:
        return self.folder / f"{hashlib.sha256(key.encode()).hexdigest()}.npz"

    def get(self, key: str) -> dict[str, np.ndarray] | None:
        path = self._path(key)
        try:
            with np.load(path, allow_pickle=False) as found:
                arrays = {name: found[name] for name in found.files}
            os.utime(path)  # recently used
            return arrays
        except (OSError, ValueError, zipfile.BadZipFile, EOFError):
            return None

    def put(self, key: str, arrays: dict[str, np.ndarray]) -> None:
        """Keep ``arrays`` under ``key``; a folder that cannot be written is skipped, never an
        error."""
        buffer = io.BytesIO()
        np.savez(buffer, allow_pickle=False, **arrays)
        try:
            atomic_write(self._path(key), lambda sink: sink.write(buffer.getvalue()))
            trim_to_budget(self.folder, ".npz", self.budget)
        except OSError:
            pass


def trim_to_budget(folder: Path, suffix: str, budget: int) -> None:
    """Remove the least recently used files of ``folder`` ending in ``suffix`` until they fit
    ``budget`` bytes, and the temporary files killed writes left (:func:`_sweep`)."""
    _sweep(folder)
    files = []
    for entry in os.scandir(folder):
        if entry.name.endswith(suffix):
            info = entry.stat()
            files.append((info.st_mtime, info.st_size, entry.path))
    total = sum(size for _, size, _ in files)
    for _, size, file in sorted(files):
        if total <= budget:
            break
        try:
            os.remove(file)
            total -= size
        except OSError:
            pass


_SWEPT: set[Path] = set()


def _sweep_once(folder: Path) -> None:
    """:func:`_sweep` the folder on its first use in this process (a restarted server)."""
    if folder not in _SWEPT:
        _SWEPT.add(folder)
        _sweep(folder)


def _sweep(folder: Path) -> None:
    """Remove the temporary files of writes killed half-way: those untouched for
    :data:`STALE_TEMPORARY` seconds (a write under way, maybe another server's, touches its own
    every moment)."""
    oldest = time.time() - STALE_TEMPORARY
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        try:
            if entry.name.startswith(".tmp-") and entry.stat().st_mtime < oldest:
                os.remove(entry.path)
        except OSError:
            pass


def _checksum(table: pa.Table, metadata: dict[str, str]) -> str:
    """CRC-32 of the metadata (but the checksum) and of every column's values as Arrow writes and
    reads them (a string column's offsets from 0 and the bytes they span; a sliced array's own
    part): the same for the table written and the table opened."""
    crc = zlib.crc32(json.dumps(metadata, sort_keys=True).encode())
    for column in table.columns:
        for chunk in column.chunks:
            crc = zlib.crc32(f"{chunk.type}:{len(chunk)}:{chunk.null_count}".encode(), crc)
            if pa.types.is_string(chunk.type) or pa.types.is_large_string(chunk.type):
                width = np.int64 if pa.types.is_large_string(chunk.type) else np.int32
                buffers = chunk.buffers()
                offsets = (
                    np.frombuffer(buffers[1], dtype=width)[
                        chunk.offset : chunk.offset + len(chunk) + 1
                    ]
                    if buffers[1] is not None
                    else np.zeros(1, dtype=width)
                )
                first, last = int(offsets[0]), int(offsets[-1])
                crc = zlib.crc32(np.ascontiguousarray(offsets - first).tobytes(), crc)
                data = buffers[2]
                if data is not None:
                    crc = zlib.crc32(memoryview(data)[first:last], crc)
            else:
                crc = zlib.crc32(np.ascontiguousarray(to_numpy(chunk)).data, crc)
    return f"{crc:08x}"


def _open(stored: Path, *, name: str, source: str, seen: str) -> Run:
    """A stored run, memory-mapped: its arrays are views of the file's pages; refused (ValueError)
    unless it was read from the file as ``seen`` and its columns are those written."""
    table = pa.ipc.open_file(pa.memory_map(str(stored))).read_all()
    metadata = {k.decode(): v.decode() for k, v in (table.schema.metadata or {}).items()}
    if metadata.get("rankviz") != FORMAT or metadata.get("seen") != seen:
        raise ValueError("another format, or another file's")
    written = metadata.pop("checksum", None)
    if written != _checksum(table, metadata):
        raise ValueError("damaged: its checksum differs")
    column = {
        field: table.column(field).chunk(0)
        if table.num_rows
        else table.column(field).combine_chunks()
        for field in table.column_names
    }
    return Run(
        name=name,
        source=source,
        query_ids=np.asarray(json.loads(metadata["query_ids"]), dtype=object),
        qid_codes=to_numpy(column["qid_code"]),
        docids=column["docid"],
        score=to_numpy(column["score"]),
        rank_column=to_numpy(column["rank"]),
        docid_keys=DocidKeys(to_numpy(column["docid_key"]), metadata["numeric"] == "1"),
    )


def _drop_pages(path: str) -> None:
    """Flush a file to disk and tell the kernel its pages are not needed now (only clean pages can
    be dropped; a system without ``posix_fadvise`` keeps them)."""
    handle = os.open(path, os.O_RDONLY)
    try:
        os.fdatasync(handle)
        if hasattr(os, "posix_fadvise"):
            os.posix_fadvise(handle, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(handle)


def _one_chunk(values: pa.Array | pa.ChunkedArray) -> pa.Array:
    if isinstance(values, pa.ChunkedArray):
        return values.combine_chunks() if values.num_chunks != 1 else values.chunk(0)
    return values


def _private_folder(folder: Path) -> None:
    """``folder`` and each missing folder above it made the user's alone (0700): what a stranger
    could put in a cache is never served as one's own."""
    missing = []
    while not folder.is_dir():
        missing.append(folder)
        folder = folder.parent
    for made in reversed(missing):
        made.mkdir(mode=0o700, exist_ok=True)


def atomic_write(target: Path, write: Callable, *, drop_pages: bool = False) -> None:
    """``write(file)`` into a temporary file beside ``target``, then renamed onto it;
    ``drop_pages``: flushed to disk first and dropped from the page cache (a large file the process
    already holds in memory)."""
    _private_folder(target.parent)
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=".tmp-")
    os.close(handle)
    try:
        with pa.OSFile(temporary, "wb") as out:
            write(out)
        if drop_pages:
            _drop_pages(temporary)
        os.replace(temporary, target)
    except BaseException:
        try:
            os.remove(temporary)
        except OSError:
            pass
        raise
