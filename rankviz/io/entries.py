"""What a meeting's record holds, entry by entry, and the checks every entry passes on its way in:
the judgment and history-line types, the limits on text, the record's errors, where a record lives,
and the version that says what a record holds (a cache key of its content)."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from rankviz.errors import RankvizError
from rankviz.io.encoding import id_problem

#: The store's file name in a collection folder (the default place of a collection's record).
STORE_NAME = "rankviz-notes.sqlite"
#: Longest accepted text of each kind (characters): enough for any real use, bounded for a shared
#: server.
LIMITS = {"qid": 200, "docid": 200, "name": 80, "tag": 60, "note": 2000}


class MeetingError(RankvizError, ValueError):
    """The meeting store cannot be opened or written, or an entry is not acceptable (too long,
    empty)."""


class UnmadeRecord(MeetingError):
    """A record whose making was cut short (a crash while an older version made it one statement
    at a time, or an empty file): it holds no entry; the next writer completes it, and a reader
    treats it as no record yet."""


class MeetingLocked(MeetingError):
    """The meeting is locked: nothing is recorded until an owner unlocks it."""

    def __init__(self, lock: Lock) -> None:
        super().__init__(
            f"the meeting is locked (by {lock.by} at {lock.at}): it is read-only until an owner "
            "unlocks it"
        )
        self.lock = lock


class NoteConflict(MeetingError):
    """A note was changed by someone else after the writer saw it: theirs is ``note``, by ``by``."""

    def __init__(self, qid: str, note: str, by: str) -> None:
        super().__init__(f"{by} changed the note of query {qid} meanwhile")
        self.qid, self.note, self.by = qid, note, by


class GradeConflict(MeetingError):
    """Grades a colleague changed after the writer saw them: ``conflicts`` holds (qid, docid, their
    grade, who gave it) for each; nothing of the writer's was recorded."""

    def __init__(self, conflicts: list[tuple[str, str, int, str]]) -> None:
        said = "; ".join(
            f"{by} graded {docid} of query {qid} {grade}" for qid, docid, grade, by in conflicts
        )
        super().__init__(f"meanwhile {said}")
        self.conflicts = conflicts


#: How an entry's author is known: signed in through the server's provider (the identity is the
#: provider's), a name typed in the app without sign-in, ``--by`` on the command line, or a qrels
#: file imported. "" for entries recorded before rankviz kept it.
SIGNED_IN, TYPED, COMMAND_LINE, IMPORTED = "sign-in", "typed name", "command line", "import"
VIA = (SIGNED_IN, TYPED, COMMAND_LINE, IMPORTED)
UNSAID = "not recorded"  # how an older entry's author is known


@dataclass(frozen=True)
class Judgment:
    """One grade given in the meeting; ``previous``: the grade in force before it (none: unjudged,
    or not known); ``via``: how its author is known (:data:`VIA`). An undo entry names the judgment
    it takes back (``undoes``), and holds that judgment's pair and grade."""

    qid: str
    docid: str
    grade: int
    previous: int | None
    by: str
    at: str
    note: str
    via: str = ""
    number: int = 0  # its id in the record (0: not known)
    undoes: int | None = None  # an undo entry: the judgment it takes back


@dataclass(frozen=True)
class Entry:
    """One line of a query's history: a judgment, a tag added or removed, or a note."""

    kind: str  # "judgment", "tag", "untag", "note"
    what: str
    previous: str
    by: str
    at: str
    note: str
    via: str = ""


class Lock(NamedTuple):
    """Whether the meeting is locked, by whom, when and how they were known."""

    locked: bool
    by: str
    at: str
    via: str


def store_path(location: str | Path) -> Path:
    """The store of ``location``: a collection folder's :data:`STORE_NAME`, or the file itself."""
    path = Path(location).expanduser()
    return path / STORE_NAME if path.is_dir() else path


def checked(kind: str, text: str, *, empty: bool = False) -> str:
    """``text`` if it may be stored as a ``kind`` (qid, docid, name, tag, note), else a MeetingError
    saying why."""
    if not isinstance(text, str):
        raise MeetingError(f"a {kind} must be text, not {type(text).__name__}")
    value = text if kind == "note" else text.strip()
    if not value and not empty:
        raise MeetingError(f"a {kind} cannot be empty")
    if len(value) > LIMITS[kind]:
        raise MeetingError(
            f"a {kind} is at most {LIMITS[kind]} characters; this one has {len(value):,}"
        )
    allowed = "\n\t" if kind == "note" else ""
    if any(unicodedata.category(c) == "Cc" and c not in allowed for c in value):
        raise MeetingError(
            f"a {kind} cannot contain control characters such as a tab or a line "
            f"break: {value[:60]!r}"
        )
    if kind in ("qid", "docid") and (problem := id_problem(value, kind)):
        raise MeetingError(problem)
    return value


def unwritable(path: str | Path) -> str:
    """Why nothing can be recorded at ``path`` (a read-only record, or a read-only folder to make
    one in), else "": the record is then opened for reading only, and says so before anyone
    types."""
    try:
        path = store_path(path)
        if path.exists():
            return "" if os.access(path, os.W_OK) else f"the record {path.name} is read-only"
        if not path.parent.is_dir():
            return f"the folder of the record {path.name} does not exist"
    except OSError as exc:  # a path the file system refuses (too long, ...)
        return f"the record's path cannot be used ({exc.strerror or exc})"
    return (
        ""
        if os.access(path.parent, os.W_OK)
        else (f"the folder of the record {path.name} is read-only")
    )


class RecordVersion(NamedTuple):
    """:meth:`MeetingStore.version`: the last id of each table, a digest of the record's content,
    and one of its tags alone (what groups queries by tag depends on: a judgment leaves it)."""

    judgments: int
    tags: int
    notes: int
    content: str
    tags_content: str = ""

    @classmethod
    def empty(cls) -> RecordVersion:
        """A record with no entry yet (or none to read)."""
        return cls(0, 0, 0, "", "")


#: The record's tables, in the order its version lists their last ids.
TABLES = ("judgments", "tags", "notes")
#: (the record's file stamps, its last ids) -> the digests of its content and of its tags, computed
#: once for them
DIGESTS: dict[tuple, tuple[str, str]] = {}
#: (the record's file stamps, what was read) -> what was read (:meth:`RecordFile.per_state`)
STATE_READS: dict[tuple, object] = {}


def file_stamp(path: Path) -> tuple:
    """Device, inode, size and modification time of a record and of its WAL: what any write
    changes (``path`` resolved by the caller: resolving costs a system call per folder)."""
    found: list[tuple | None] = []
    for suffix in ("", "-wal"):
        try:
            info = os.stat(f"{path}{suffix}")
        except FileNotFoundError:
            found.append(None)
            continue
        found.append((info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns))
    return (str(path), *found)


def rows_digest(db: sqlite3.Connection, table: str, upto: int) -> str:
    """A digest of one table's rows with ids up to ``upto``."""
    digest = hashlib.blake2b(table.encode(), digest_size=16)
    try:
        for row in db.execute(f"SELECT * FROM {table} WHERE id <= ? ORDER BY id", (upto,)):
            digest.update(repr(row).encode())
    except sqlite3.OperationalError:  # a record made before this table
        pass
    return digest.hexdigest()
