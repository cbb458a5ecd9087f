"""The meeting's record as a file: its SQLite connection, schema, owner, identity and version.

:class:`RecordFile` opens the file and says which record it is and what it holds now; the entries
themselves are written and read by :class:`~rankviz.io.meeting.MeetingStore`, which is one.
"""

from __future__ import annotations

import contextlib
import hashlib
import sqlite3
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
    file_stamp,
    rows_digest,
    store_path,
)
from rankviz.io.grades import GRADE_RANGE, Scale

T = TypeVar("T")
_UNREAD = object()

# 2: a meta table naming the record (its identity survives a copy, not a new record)
# 3: how each entry's author is known (via), the meeting's locks, and undo entries (undoes)
SCHEMA_VERSION = 3
BUSY_TIMEOUT_S = 60.0
_SCHEMA = """
CREATE TABLE IF NOT EXISTS judgments (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    qid TEXT NOT NULL, docid TEXT NOT NULL, grade INTEGER NOT NULL, previous INTEGER,
    by TEXT NOT NULL, at TEXT NOT NULL, note TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS judgments_pair ON judgments (qid, docid, id);
CREATE TABLE IF NOT EXISTS tags (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    qid TEXT NOT NULL, tag TEXT NOT NULL, removed INTEGER NOT NULL DEFAULT 0,
    by TEXT NOT NULL, at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS tags_query ON tags (qid, tag, id);
CREATE TABLE IF NOT EXISTS notes (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    qid TEXT NOT NULL, note TEXT NOT NULL, previous TEXT,
    by TEXT NOT NULL, at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS notes_query ON notes (qid, id);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS locks (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    locked INTEGER NOT NULL, by TEXT NOT NULL, at TEXT NOT NULL, via TEXT NOT NULL DEFAULT ''
);
"""


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
        with self._connection() as db:
            found = db.execute("PRAGMA user_version").fetchone()[0]
            # a reader never writes: an older record is read as it is
            if found < SCHEMA_VERSION and not create:
                if found == 0:
                    raise MeetingError(
                        f"{self.path} is not a meeting record (an empty file, or "
                        "another kind of file)"
                    )
            elif found < SCHEMA_VERSION:
                db.execute("PRAGMA journal_mode=WAL")  # persistent: set once, on the file
                db.executescript(_SCHEMA)
                for table in TABLES:  # a record of an older version: its entries say nothing
                    if "via" not in _columns(db, table):
                        db.execute(f"ALTER TABLE {table} ADD COLUMN via TEXT NOT NULL DEFAULT ''")
                if "undoes" not in _columns(db, "judgments"):
                    db.execute("ALTER TABLE judgments ADD COLUMN undoes INTEGER")
                db.execute(
                    "INSERT OR IGNORE INTO meta (key, value) VALUES ('record', ?)",
                    (uuid.uuid4().hex,),
                )
                db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        if collection is not None:
            self._belongs_to(collection, create)

    def _via(self, db: sqlite3.Connection, table: str) -> str:
        """The SQL of an entry's ``via`` (a record of an older version read as it is: "")."""
        return self._column(db, table, "via", "''")

    def _column(self, db: sqlite3.Connection, table: str, column: str, default: str) -> str:
        """The SQL of a column a record of an older version may not have (then ``default``)."""
        return column if column in _columns(db, table) else default

    @contextlib.contextmanager
    def _connection(self) -> Iterator[sqlite3.Connection]:
        try:
            db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
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
                db.execute(
                    "INSERT OR IGNORE INTO meta (key, value) VALUES ('collection', ?)",
                    (collection,),
                )
                # the grades it takes, for a later writer given the file alone
                if self.scale != GRADE_RANGE:
                    low, high = self.scale
                    db.execute(
                        "INSERT OR IGNORE INTO meta (key, value) VALUES ('scale', ?)",
                        (f"{low},{high}",),
                    )

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


def _columns(db: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in db.execute(f"PRAGMA table_info({table})")}


def _lock(db: sqlite3.Connection) -> Lock:
    """The latest lock or unlock (a record of an older version has none: unlocked)."""
    try:
        sql = "SELECT locked, by, at, via FROM locks ORDER BY id DESC LIMIT 1"
        row = db.execute(sql).fetchone()
    except sqlite3.OperationalError:
        row = None
    return Lock(bool(row[0]), row[1], row[2], row[3]) if row else Lock(False, "", "", "")
