"""Parsed runs kept on disk as Arrow IPC files, keyed on the content of the file they were read
from.

Reading a 7M-line run takes a second or more; opening its stored columns takes milliseconds (they
are memory-mapped, not read: the operating system pages them in as they are used and shares them
between processes). The store is a cache: deleting the folder loses nothing.

Layout of the folder: ``runs/<sha256 of the file's bytes>.arrow``, one parsed run each (its
columns, its query ids and the docids' key kind in the schema's metadata, with the format's
version), and ``stamps/<sha1 of path and stamp>``, the content hash of a file as it was when last
seen, so that an unchanged file is found without hashing its bytes again. A file's stamp
(modification and change time, size, inode) changes with any rewrite, so a stale hash is never used.
Every write goes to a temporary file first and is renamed into place: several servers may share
the folder. The least recently used runs are removed past the size budget.
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import os
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pyarrow as pa

from rankviz._arrow import from_numpy, to_numpy
from rankviz.io.encoding import DocidKeys
from rankviz.io.model import Run
from rankviz.io.sources import whole_file

FORMAT = "1"  # bump when the stored columns change: older files are then ignored


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

    def get(
        self,
        path: str | os.PathLike,
        name: str,
        read: Callable[[], Run],
        *,
        parse: Callable[[bytes], Run] | None = None,
    ) -> Run:
        """The run read from ``path`` under ``name``: opened from the store when its content was
        stored before, else ``read()`` and stored for next time. ``parse``: the run from the file's
        bytes; given, a file not seen before is read once, for its hash and its parse both (not
        twice, and never stored under the hash of other bytes than those parsed). A store that
        cannot be written (a read-only folder, a full disk) is skipped, never an error."""
        path = Path(path)
        data = None
        try:
            # the stamp before reading: bytes read later are never noted under it
            note = self._note(path)
            content = _read_note(note)
            if content is None:
                data = _whole(path) if parse is not None else None
                content = _write_note(
                    note,
                    hashlib.sha256(data).hexdigest() if data is not None else _file_digest(path),
                )
        except OSError:
            return read()  # the reader names what is wrong with the file
        if data is not None and parse is not None:
            read = functools.partial(parse, data)
        stored = self.folder / "runs" / f"{content}.arrow"
        if stored.exists():
            try:
                run = _open(stored, name=name, source=str(path))
                os.utime(stored)  # recently used
                return run
            except (OSError, pa.ArrowInvalid, KeyError, ValueError):
                pass  # damaged or of another format: read again and replace it
        run = read()
        try:
            self._write(stored, run)
        except OSError:
            pass
        return run

    def _note(self, path: Path) -> Path:
        """Where the content hash of the file as it is now (its stamp) is noted."""
        info = path.stat()
        stamp = (info.st_mtime_ns, info.st_ctime_ns, info.st_size, info.st_ino)
        seen = "\0".join(map(str, (path.resolve(), *stamp)))
        return self.folder / "stamps" / hashlib.sha1(seen.encode()).hexdigest()

    def _write(self, stored: Path, run: Run) -> None:
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
        }
        table = table.replace_schema_metadata(metadata)

        def write(sink) -> None:
            with pa.ipc.new_file(sink, table.schema) as writer:
                # one batch: every column opens as a view
                writer.write_table(table, max_chunksize=max(len(table), 1))

        _atomic_write(stored, write)
        _trim(self.folder / "runs", ".arrow", self.budget)


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
            _atomic_write(self._path(key), lambda sink: sink.write(buffer.getvalue()))
            _trim(self.folder, ".npz", self.budget)
        except OSError:
            pass


def _trim(folder: Path, suffix: str, budget: int) -> None:
    """Remove the least recently used files of ``folder`` ending in ``suffix`` until they fit
    ``budget`` bytes."""
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


def _open(stored: Path, *, name: str, source: str) -> Run:
    """A stored run, memory-mapped: its arrays are views of the file's pages."""
    table = pa.ipc.open_file(pa.memory_map(str(stored))).read_all()
    metadata = {k.decode(): v.decode() for k, v in (table.schema.metadata or {}).items()}
    if metadata.get("rankviz") != FORMAT:
        raise ValueError("another format")
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


def _file_digest(path: Path) -> str:
    """The SHA-256 of a file's bytes, read in blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 22), b""):
            digest.update(block)
    return digest.hexdigest()


def _read_note(note: Path) -> str | None:
    """The content hash noted for a stamp, or None."""
    try:
        return note.read_text().strip()
    except OSError:
        return None


def _write_note(note: Path, digest: str) -> str:
    """Note the content hash of a stamp (skipped when the store cannot be written); the store's key
    for it."""
    content = f"{digest}-{FORMAT}"
    try:
        _atomic_write(note, lambda sink: sink.write(content.encode()))
    except OSError:
        pass
    return content


def _whole(path: Path) -> bytes:
    """The file's bytes, read once (an OSError when it changed while being read: the reader then
    says so)."""
    data = whole_file(path)
    if data is None:
        raise OSError("the file changed while it was being read")
    return data


def _one_chunk(values: pa.Array | pa.ChunkedArray) -> pa.Array:
    if isinstance(values, pa.ChunkedArray):
        return values.combine_chunks() if values.num_chunks != 1 else values.chunk(0)
    return values


def _atomic_write(target: Path, write: Callable) -> None:
    """``write(file)`` into a temporary file beside ``target``, then renamed onto it."""
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=".tmp-")
    os.close(handle)
    try:
        with pa.OSFile(temporary, "wb") as out:
            write(out)
        os.replace(temporary, target)
    except BaseException:
        try:
            os.remove(temporary)
        except OSError:
            pass
        raise
