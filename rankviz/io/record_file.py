"""The meeting's record as a file: its SQLite connection, schema, owner, identity and version.

:class:`RecordFile` opens the file and says which record it is and what it holds now; the entries
themselves are written and read by :class:`~rankviz.io.meeting.MeetingStore`, which is one.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

from rankviz.io.entries import (
    DIGESTS,
    STATE_READS,
    TABLES,
    Lock,
    MeetingError,
    MeetingLocked,
    RecordVersion,
    UnmadeRecord,
    file_stamp,
    rows_digest,
    store_path,
)
from rankviz.io.grades import GRADE_RANGE, Scale
from rankviz.io.record_schema import (
    BUSY_TIMEOUT_S,
    SCHEMA_VERSION,
    STALE_MAKING_S,
    columns,
    make_whole,
    name_owner,
    unmade,
)

T = TypeVar("T")
_UNREAD = object()


class RecordFile:
    """One meeting record's SQLite file (see :class:`~rankviz.io.meeting.MeetingStore`)."""

    def __init__(
        self,
        path: str | Path,
        *,
        create: bool = True,
        scale: Scale = GRADE_RANGE,
        collection: str | None = None,
    ) -> None:
        self.path = store_path(path)
        self._resolved = self.path.resolve()
        self.scale = scale
        if not create and not self.path.is_file():
            raise MeetingError(f"no meeting store at {self.path}")
        if create and not self.path.exists():
            self._create(collection)
        with self._connection() as db:
            found = db.execute("PRAGMA user_version").fetchone()[0]
            if found == 0 and not unmade(db):
                raise MeetingError(
                    f"{self.path} is not a meeting record (another kind of file, or a database "
                    "with other tables)"
                )
            if found == 0 and not create:  # a reader never writes: it says what the file is
                raise UnmadeRecord(
                    f"{self.path}: a meeting record whose making was cut short (a crash, or an "
                    "empty file): it holds no entry yet; the next entry (rankviz judgments add, "
                    "or a grade in the app) completes it"
                )
            # one whose making was cut short (it holds nothing: entries come after), or one of an
            # older version, made whole by the next writer; a reader reads an older one as it is
            if found < SCHEMA_VERSION and create:
                make_whole(db, collection, self.scale)
        if collection is not None:
            self._belongs_to(collection, create)

    def _create(self, owner: str | None) -> None:
        """A new record, made whole in a temporary file beside it and linked into place: a crash
        leaves no record (and a temporary file the next creator removes), never half of one; a
        record another writer linked there first stands, and this one is dropped."""
        folder, name = self.path.parent, self.path.name
        for stale in folder.glob(f".{name}.*.making"):
            with contextlib.suppress(OSError):
                if time.time() - stale.stat().st_mtime > STALE_MAKING_S:
                    stale.unlink()
        making = folder / f".{name}.{uuid.uuid4().hex}.making"
        try:
            with self._connection(making) as db:
                make_whole(db, owner, self.scale)
            try:
                os.link(making, self.path)  # never over a record another writer made meanwhile
            except FileExistsError:
                pass
            except OSError:  # a file system without hard links: renamed, unless one is there now
                if not self.path.exists():
                    os.replace(making, self.path)
        except OSError as exc:
            raise MeetingError(f"cannot make the meeting store {self.path}: {exc}") from None
        finally:
            for leftover in (making, Path(f"{making}-wal"), Path(f"{making}-shm")):
                with contextlib.suppress(OSError):
                    leftover.unlink()

    def _via(self, db: sqlite3.Connection, table: str) -> str:
        """The SQL of an entry's ``via`` (a record of an older version read as it is: "")."""
        return self._column(db, table, "via", "''")

    def _column(self, db: sqlite3.Connection, table: str, column: str, default: str) -> str:
        """The SQL of a column a record of an older version may not have (then ``default``)."""
        return column if column in columns(db, table) else default

    @contextlib.contextmanager
    def _connection(self, path: Path | None = None) -> Iterator[sqlite3.Connection]:
        """A connection to the record (or to ``path``, the file a new record is made in)."""
        try:
            db = sqlite3.connect(path or self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
        except sqlite3.Error as exc:
            raise MeetingError(f"cannot open the meeting store {self.path}: {exc}") from None
        try:
            db.execute("PRAGMA synchronous=FULL")
            yield db
        except sqlite3.Error as exc:
            if "readonly" in str(exc):
                raise MeetingError(
                    f"the meeting store {self.path} is read-only: nothing can be recorded in it"
                ) from None
            raise MeetingError(f"the meeting store {self.path} cannot be used: {exc}") from None
        finally:
            db.close()

    @contextlib.contextmanager
    def _writing(self, *, entry: bool = True) -> Iterator[sqlite3.Connection]:
        """One write transaction: taken at once (BEGIN IMMEDIATE), so writers queue instead of
        failing. ``entry``: it records an entry, refused while the meeting is locked (checked in
        the same transaction, so no entry slips in after a lock)."""
        with self._connection() as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                if entry and (lock := _lock(db)).locked:
                    raise MeetingLocked(lock)
                yield db
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    def _belongs_to(self, collection: str, create: bool) -> None:
        """A record belongs to one collection: the first to record in it names it; another is
        refused (its judgments would move that collection's numbers)."""
        with self._connection() as db:
            try:
                row = db.execute("SELECT value FROM meta WHERE key = 'collection'").fetchone()
            except sqlite3.OperationalError:  # made by an older version: no owner recorded
                return
        if row is not None and row[0] != collection:
            raise MeetingError(
                f"the record {self.path.name} belongs to the collection {row[0]!r}, "
                f"not {collection!r}: "
                "give each collection its own record (--notes FOLDER keeps one file per collection)"
            )
        if row is None and create:
            with self._writing() as db:
                name_owner(db, collection, self.scale)

    def lock_state(self) -> Lock:
        """Whether the meeting is locked now (its latest lock or unlock), by whom and when."""
        with self._connection() as db:
            return _lock(db)

    def set_lock(self, locked: bool, *, by: str, via: str, at: str) -> Lock:
        """Lock the meeting (nothing is recorded until it is unlocked) or unlock it; each is an
        entry of the record, so who locked and unlocked it stays in its history."""
        with self._writing(entry=False) as db:
            db.execute(
                "INSERT INTO locks (locked, by, at, via) VALUES (?, ?, ?, ?)",
                (int(locked), by, at, via),
            )
        return Lock(locked, by, at, via)

    def owner(self) -> tuple[str | None, Scale | None]:
        """The collection the record belongs to and the grades it takes, as its first writer
        recorded them (None where not recorded: a new record, or one made by an older version)."""
        with self._connection() as db:
            try:
                found = dict(
                    db.execute(
                        "SELECT key, value FROM meta WHERE key IN ('collection', 'scale')"
                    ).fetchall()
                )
            except sqlite3.OperationalError:
                return None, None
        low_high = found.get("scale")
        scale = (int(low_high.split(",")[0]), int(low_high.split(",")[1])) if low_high else None
        return found.get("collection"), scale

    def identity(self) -> str:
        """Which record this is: a name drawn when it was made (a copy keeps it, a new record gets
        another), or for a record made before names, its file's device and inode."""
        with self._connection() as db:
            try:
                row = db.execute("SELECT value FROM meta WHERE key = 'record'").fetchone()
            except sqlite3.OperationalError:  # no meta table: made by an older version
                row = None
        if row is not None:
            return str(row[0])
        info = self.path.stat()
        return f"file:{info.st_dev}:{info.st_ino}"

    def version(self) -> RecordVersion:
        """What the record holds now, read in one transaction: the last ids of judgments, tags and
        notes (they grow with every entry), and a digest of every row and the record's name, which
        also changes when the file is replaced by a copy or edited by hand. A cache key of the
        record.

        The digest reads every row (0.4 s for 100,000 judgments): it is computed again only when the
        files' stamps (device, inode, size, modification time of the record and its WAL, taken
        before the read) or the last ids have changed since it was last computed."""
        stamp = file_stamp(self._resolved)
        with self._connection() as db:
            db.execute("BEGIN")
            try:
                last = [
                    db.execute(f"SELECT COALESCE(MAX(id), 0) FROM {table}").fetchone()[0]
                    for table in TABLES
                ]
                known = DIGESTS.get((stamp, *last))
                if known is None:
                    identity = self.identity().encode()
                    digest = hashlib.blake2b(digest_size=16)
                    tags = hashlib.blake2b(digest_size=16)
                    for table, upto in zip(TABLES, last):
                        rows = rows_digest(db, table, upto).encode()
                        if table == "judgments":
                            _keep(STATE_READS, (stamp, "judgments", upto), rows.decode())
                        digest.update(rows)
                        if table == "tags":
                            tags.update(rows)
                    digest.update(identity)
                    tags.update(identity)
                    known = (digest.hexdigest(), tags.hexdigest())
            finally:
                db.execute("COMMIT")
        _keep(DIGESTS, (stamp, *last), known)
        return RecordVersion(last[0], last[1], last[2], *known)

    def judgments_digest(self, upto: int) -> str:
        """A digest of the judgments with ids up to ``upto``: equal before and after a later
        judgment is added, different when one of them was edited or the record replaced (then
        nothing built on them may be revised, only rebuilt)."""

        def read() -> str:
            with self._connection() as db:
                return rows_digest(db, "judgments", upto)

        return self.per_state(("judgments", upto), read)

    def per_state(self, what: tuple, read: Callable[[], T]) -> T:
        """``read()`` once per state of the record's files (their stamps, taken before the read,
        change with any write) and ``what`` it reads: every table a judgment revises asks the
        same questions of the record."""
        key = (file_stamp(self._resolved), *what)
        known = STATE_READS.get(key, _UNREAD)
        if known is _UNREAD:
            known = read()
            _keep(STATE_READS, key, known)
        return known  # type: ignore[return-value]


def _keep(digests: dict, key: tuple, value) -> None:
    """``value`` kept under ``key``; past 256 entries every one is forgotten (they are cheap to
    read again)."""
    if len(digests) >= 256:
        digests.clear()
    digests[key] = value


def _lock(db: sqlite3.Connection) -> Lock:
    """The latest lock or unlock (a record of an older version has none: unlocked)."""
    try:
        sql = "SELECT locked, by, at, via FROM locks ORDER BY id DESC LIMIT 1"
        row = db.execute(sql).fetchone()
    except sqlite3.OperationalError:
        row = None
    return Lock(bool(row[0]), row[1], row[2], row[3]) if row else Lock(False, "", "", "")
