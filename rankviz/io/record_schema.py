"""The meeting's record's schema, and how a record is made whole: in one transaction (a crash
leaves the file as it was), by the next writer for one whose making was cut short or of an older
version, which readers read as they are (:class:`~rankviz.io.record_file.RecordFile` opens it)."""

from __future__ import annotations

import sqlite3
import time
import uuid

from rankviz.io.entries import TABLES
from rankviz.io.grades import GRADE_RANGE, Scale

# 2: a meta table naming the record (its identity survives a copy, not a new record)
# 3: how each entry's author is known (via), the meeting's locks, and undo entries (undoes)
SCHEMA_VERSION = 3
BUSY_TIMEOUT_S = 60.0
#: a new record's temporary file untouched this long is a crashed maker's (making takes a moment)
STALE_MAKING_S = 600
SCHEMA = """
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


def make_whole(db: sqlite3.Connection, owner: str | None, scale: Scale) -> None:
    """The schema whole in one transaction (a new record, one whose making was cut short, one of
    an older version), with its owner and grades when the first writer names them: a crash at any
    statement leaves the file as it was; a second writer waits for the first, then finds it done
    and changes nothing."""
    write_ahead(db)
    db.execute("BEGIN IMMEDIATE")
    try:
        if db.execute("PRAGMA user_version").fetchone()[0] < SCHEMA_VERSION:
            for statement in SCHEMA.split(";"):
                if statement.strip():
                    db.execute(statement)
            for table in TABLES:  # a record of an older version: its entries say nothing
                if "via" not in columns(db, table):
                    db.execute(f"ALTER TABLE {table} ADD COLUMN via TEXT NOT NULL DEFAULT ''")
            if "undoes" not in columns(db, "judgments"):
                db.execute("ALTER TABLE judgments ADD COLUMN undoes INTEGER")
            db.execute(
                "INSERT OR IGNORE INTO meta (key, value) VALUES ('record', ?)",
                (uuid.uuid4().hex,),
            )
            if owner is not None:
                name_owner(db, owner, scale)
            db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def name_owner(db: sqlite3.Connection, collection: str, scale: Scale) -> None:
    """The collection the record judges and the grades it takes (for a later writer given the
    file alone), in the caller's transaction; a first writer's, kept."""
    db.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('collection', ?)", (collection,))
    if scale != GRADE_RANGE:
        low, high = scale
        db.execute(
            "INSERT OR IGNORE INTO meta (key, value) VALUES ('scale', ?)", (f"{low},{high}",)
        )


#: the tables and indexes a record has, and SQLite's own
_OURS = {
    *TABLES,
    "meta",
    "locks",
    "judgments_pair",
    "tags_query",
    "notes_query",
}


def write_ahead(db: sqlite3.Connection) -> None:
    """The record in WAL mode (persistent: set once, on the file). Switching an older record's
    rollback journal takes the file alone: SQLite answers busy at once, without waiting, while
    another writer's commit waits for this connection's read lock; it is tried again until the
    busy timeout."""
    deadline = time.monotonic() + BUSY_TIMEOUT_S
    while db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
        try:
            db.execute("PRAGMA journal_mode=WAL")
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def unmade(db: sqlite3.Connection) -> bool:
    """Whether a database at version 0 is a record not yet made, or whose creation was cut short:
    empty, or none but a record's own tables (an older version made them one statement at a
    time), none of them holding an entry."""
    names = {row[0] for row in db.execute("SELECT name FROM sqlite_master")} - sqlite_own(db)
    if not names <= _OURS:
        return False
    return not any(
        db.execute(f"SELECT 1 FROM {table} LIMIT 1").fetchone()
        for table in TABLES
        if table in names
    )


def sqlite_own(db: sqlite3.Connection) -> set[str]:
    """SQLite's own entries of its schema (its sequence, the indexes of primary keys)."""
    return {
        row[0]
        for row in db.execute(
            "SELECT name FROM sqlite_master WHERE name LIKE 'sqlite\\_%' ESCAPE '\\'"
        )
    }


def columns(db: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
