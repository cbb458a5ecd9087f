"""Document texts at any size: a collection's ``docs.jsonl[.gz]``, ``docs.tsv[.gz]`` or
``docs.parquet``,
looked up by id through a one-time index.

The first lookup of a file reads it once, in batches, into an SQLite side file (id, title, text;
an index on the id) in the disk store (``RANKVIZ_STORE``, :func:`rankviz.io.store.store_folder`);
every later lookup, in this process or another, is a read of that file: milliseconds for any id,
on Cranfield's 1,400 abstracts as on MS MARCO's 8.8M passages, in memory that does not grow with
the file. The side file is named after the file's path and stamp (size, modification and change
time, inode), so a rewritten file is indexed again and never served stale; it is written under a
temporary name and renamed into place, so two processes may build it at once.

Formats: JSON lines with ``doc_id`` (or ``docid``, ``id``, ``_id``, as BEIR's corpora), ``text`` and
an optional ``title``; TSV lines ``id<TAB>text`` (MS MARCO's ``collection.tsv``; a first line
``id<TAB>text`` is a header), an optional third column the title; Parquet with those columns.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import sqlite3
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Protocol

from rankviz.errors import FormatError
from rankviz.io.stamps import identity

DOCS_NAMES = ("docs.jsonl", "docs.jsonl.gz", "docs.tsv", "docs.tsv.gz", "docs.parquet")
ID_FIELDS = ("doc_id", "docid", "id", "_id")
FORMAT = "1"  # bump when the side file's tables change: older side files are then ignored
BATCH = 50_000  # documents per insert: the memory a build needs
LOOKUP = 500  # ids per query (SQLite's bound on parameters is far above)
_BUILDING: dict[str, threading.Lock] = {}
_BUILDING_LOCK = threading.Lock()

#: ``progress(done, total)``: bytes of the file read so far and its size (rows, for Parquet).
Progress = Callable[[int, int], None]


class Documents(Protocol):
    """What a collection's document texts answer: a file's (:class:`DocumentTexts`) or a dataset's
    (:class:`rankviz.io.irds.IrdsDocuments`)."""

    path: Path

    def ready(self) -> bool: ...

    def build(self, progress: Progress | None = None) -> Path: ...

    def get(self, doc_ids: Iterable[str], progress: Progress | None = None) -> dict[str, dict]: ...


def index_folder() -> Path:
    """Where side files go: the disk store's ``docs/`` (a temporary folder when the store is
    off)."""
    from rankviz.io.store import store_folder

    folder = store_folder()
    return (
        folder if folder is not None else Path(tempfile.gettempdir()) / f"rankviz-{os.getuid()}"
    ) / "docs"


class DocumentTexts:
    """A documents file, looked up by id (see the module's docstring)."""

    def __init__(self, path: str | os.PathLike, *, folder: str | os.PathLike | None = None) -> None:
        self.path = Path(path)
        self._folder = Path(folder) if folder is not None else None
        self._where = hashlib.sha1(str(self.path.resolve()).encode()).hexdigest()[:16]

    def side_file(self) -> Path:
        """The side file of the file as it is now (another name once the file changes; keyed on
        its bytes while its stamp is younger than the file system's resolution)."""
        where = self._where
        stamp = hashlib.sha1(f"{FORMAT}:{identity(self.path)}".encode()).hexdigest()[:16]
        return (self._folder or index_folder()) / f"{where}-{stamp}.sqlite"

    def ready(self) -> bool:
        """Whether lookups need no build first."""
        return self.side_file().is_file()

    def build(self, progress: Progress | None = None) -> Path:
        """The side file, built if it is not there yet (once at a time per file in this process)."""
        target = self.side_file()
        if target.is_file():
            return target
        with _BUILDING_LOCK:
            lock = _BUILDING.setdefault(str(target), threading.Lock())
        with lock:
            if not target.is_file():
                target.parent.mkdir(parents=True, exist_ok=True)
                _write_side_file(self.path, target, progress)
                for stale in target.parent.glob(f"{target.name.split('-')[0]}-*.sqlite"):
                    if stale != target:
                        stale.unlink(missing_ok=True)  # the same file's index before it changed
        return target

    def get(self, doc_ids: Iterable[str], progress: Progress | None = None) -> dict[str, dict]:
        """``{doc_id: {"title": ..., "text": ...}}`` for the ids found; unknown ids are left out."""
        wanted = list(dict.fromkeys(str(d) for d in doc_ids))
        if not wanted:
            return {}
        db = _reader(self.build(progress))
        found: dict[str, dict] = {}
        for start in range(0, len(wanted), LOOKUP):
            part = wanted[start : start + LOOKUP]
            rows = db.execute(
                f"SELECT id, title, text FROM docs WHERE id IN ({','.join('?' * len(part))})", part
            )
            for doc_id, title, text in rows:
                found.setdefault(doc_id, {"title": title, "text": text})
        return {d: found[d] for d in wanted if d in found}


# per thread (an SQLite connection stays in its thread): side file -> connection
_READERS = threading.local()


def _reader(side: Path) -> sqlite3.Connection:
    """A read-only connection to a side file, kept for the thread's next lookups (a side file is
    never rewritten in place: a changed documents file gets another name, so a kept connection is
    never stale)."""
    readers = _READERS.__dict__.setdefault("open", {})
    db = readers.get(side)
    if db is None:
        db = readers[side] = sqlite3.connect(f"file:{side}?mode=ro", uri=True)
    return db


def _write_side_file(path: Path, target: Path, progress: Progress | None) -> None:
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=".building-", suffix=".sqlite")
    os.close(handle)
    try:
        db = sqlite3.connect(temporary)
        try:
            db.executescript(
                "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; CREATE TABLE docs (id TEXT, "
                "title TEXT, text TEXT);"
            )
            for batch in _batches(path, progress):
                db.executemany("INSERT INTO docs VALUES (?, ?, ?)", batch)
            db.execute("CREATE INDEX docs_id ON docs (id)")
            db.commit()
        finally:
            db.close()
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _batches(path: Path, progress: Progress | None) -> Iterator[list[tuple[str, str, str]]]:
    """The file's documents, :data:`BATCH` at a time, as (id, title, text)."""
    name = path.name.lower()
    if name.endswith(".parquet"):
        yield from _parquet_batches(path, progress)
        return
    total = path.stat().st_size
    with open(path, "rb") as raw:
        stream = gzip.GzipFile(fileobj=raw) if name.endswith(".gz") else raw
        text = io.TextIOWrapper(stream, encoding="utf-8", newline="")
        parse = _json_line if ".jsonl" in name else _tsv_line
        batch: list[tuple[str, str, str]] = []
        try:
            for number, line in enumerate(text, start=1):
                if not line.strip():
                    continue
                row = parse(path, number, line)
                if row is not None:
                    batch.append(row)
                if len(batch) >= BATCH:
                    yield batch
                    batch = []
                    if progress is not None:
                        progress(raw.tell(), total)
        except UnicodeDecodeError:
            raise FormatError(str(path), 0, None, "not UTF-8 text") from None
        except (OSError, EOFError) as exc:  # a damaged gzip stream
            raise FormatError(str(path), 0, None, f"cannot be read: {exc}") from None
        if batch:
            yield batch
        if progress is not None:
            progress(total, total)


def _json_line(path: Path, number: int, line: str) -> tuple[str, str, str]:
    try:
        record = json.loads(line)
        doc_id = next(record[f] for f in ID_FIELDS if f in record)
        return str(doc_id), str(record.get("title") or ""), str(record.get("text") or "")
    except (json.JSONDecodeError, StopIteration, TypeError, AttributeError):
        raise FormatError(
            str(path), number, line.strip()[:200], 'expected a JSON object with "doc_id" and "text"'
        ) from None


def _tsv_line(path: Path, number: int, line: str) -> tuple[str, str, str] | None:
    fields = line.rstrip("\r\n").split("\t")
    if len(fields) < 2:
        raise FormatError(
            str(path),
            number,
            line.strip()[:200],
            "expected id<TAB>text (and optionally <TAB>title)",
        )
    if (
        number == 1
        and fields[0].strip().lower() in ID_FIELDS
        and fields[1].strip().lower() == "text"
    ):
        return None  # a header
    return fields[0].strip(), fields[2] if len(fields) > 2 else "", fields[1]


def _parquet_batches(path: Path, progress: Progress | None) -> Iterator[list[tuple[str, str, str]]]:
    import pyarrow.parquet as pq

    try:
        table = pq.ParquetFile(path)
    except Exception as exc:  # pyarrow raises several kinds for a file that is not Parquet
        raise FormatError(str(path), 0, None, f"not a Parquet file ({exc})") from None
    columns = table.schema_arrow.names
    id_column = next((c for c in ID_FIELDS if c in columns), None)
    if id_column is None or "text" not in columns:
        raise FormatError(
            str(path),
            0,
            None,
            f"expected columns doc_id (or id) and text; found {', '.join(columns)}",
        )
    wanted = [id_column, "text", *(["title"] if "title" in columns else [])]
    done, total = 0, table.metadata.num_rows
    for batch in table.iter_batches(batch_size=BATCH, columns=wanted):
        ids, texts = batch.column(0).to_pylist(), batch.column(1).to_pylist()
        titles = batch.column(2).to_pylist() if len(wanted) == 3 else [""] * len(ids)
        yield [(str(d), t or "", x or "") for d, t, x in zip(ids, titles, texts, strict=True)]
        done += len(ids)
        if progress is not None:
            progress(done, total)
