"""The meeting's record as both front ends change and export it: who owns it, a judgment added or a
qrels file imported after every grade is checked, the record exported as TREC lines.

The command line's ``judgments`` commands and the app's meeting panel write through here, so a
grade is refused with the same words everywhere and the qrels a meeting exports are the qrels in
force.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rankviz.errors import OptionError
from rankviz.io.access import Role, refusal
from rankviz.io.collection import open_collection
from rankviz.io.entries import COMMAND_LINE, IMPORTED, LIMITS, SIGNED_IN, TYPED
from rankviz.io.grades import Scale, checked_grade, scale_text
from rankviz.io.judges import is_source_label, judgment_lines, merged_qrels, qrels_lines
from rankviz.io.meeting import Judgment, Lock, MeetingError, MeetingStore, store_path
from rankviz.io.model import Qrels
from rankviz.io.readers import read_qrels

if TYPE_CHECKING:
    from rankviz.analyses.query_draw import QueryDraw

# the app's fields, grade names and ways of knowing an author come from the record's rules
__all__ = ["COMMAND_LINE", "LIMITS", "SIGNED_IN", "TYPED", "scale_text"]
LOG_COLUMNS = ("qid", "docid", "grade", "previous_grade", "by", "at", "note", "via", "undoes")


def qrels_text(qrels: Qrels) -> str:
    """TREC qrels lines (``qid 0 docid grade``) of ``qrels``, in its order: the qrels in force, as
    a meeting downloads them."""
    return qrels_lines(qrels)


def check_grades(grades: Iterable[object], scale: Scale) -> None:
    """Every grade allowed by the collection's ``scale``, else a GradeError naming the first one
    that is not (checked before the record is touched: a refused grade leaves it as it was)."""
    for grade in grades:
        checked_grade(grade, scale)


def is_source(by: str) -> bool:
    """Whether ``by`` names a source of judgments (``llm:NAME``, ``human:NAME``), not a person."""
    return is_source_label(by)


def owner(db: str, collection: str | None) -> tuple[str, Scale, str | None]:
    """The collection a record written to belongs to, the grades it takes, and its folder when
    known: ``db``'s own folder, ``collection``, or what the record's first writer recorded. A record
    that knows none of them is refused: its judgments would move any collection's numbers."""
    where = Path(db)
    if not where.exists() and not where.suffix:  # a collection folder that is not there
        raise OptionError(f"{db}: no such folder (DB is a collection folder, or a .sqlite file)")
    if not where.exists() and not where.parent.is_dir():
        raise OptionError(f"{where.parent}: no such folder (for the record {where.name})")
    folder = db if where.is_dir() else collection
    if folder is not None:
        if collection is not None and Path(db).is_dir():
            if Path(collection).resolve() != Path(db).resolve():
                raise OptionError(
                    f"--collection {collection}: DB is the collection folder {db} already"
                )
        opened = open_collection(folder)
        return opened.config.name, opened.grade_scale(opened.read_qrels()), folder
    found = MeetingStore(db, create=False).owner() if Path(db).is_file() else (None, None)
    if found[0] is None or found[1] is None:
        raise OptionError(
            f"{db}: a record must know the collection it judges: give --collection DIR (the "
            "collection folder), or the folder itself as DB (its rankviz-notes.sqlite)"
        )
    return found[0], found[1], None


def judge(
    db: str, qid: str, docid: str, grade: int, *, by: str, note: str, collection: str | None
) -> tuple[Judgment, str]:
    """One grade recorded, and what it replaced in words (the meeting's, the qrels', or nothing)."""
    name, scale, folder = owner(db, collection)
    check_grades([grade], scale)
    store = MeetingStore(db, scale=scale, collection=name)
    original = _qrels_grade(folder, qid, docid) if folder is not None else None
    done = store.judge(qid, docid, grade, by=by, via=COMMAND_LINE, note=note, original=original)
    if done.previous is not None:
        return done, f"was {done.previous}"
    if folder is not None:
        return done, "unjudged before: neither the qrels nor the meeting graded it"
    return (
        done,
        f"the meeting had not judged it; give --collection DIR to compare with {name}'s qrels",
    )


def import_file(
    db: str, path: str, *, by: str, source: str | None, collection: str | None
) -> tuple[list[Judgment], str]:
    """Every judgment of a qrels file recorded, under ``source`` (a label: ``llm:NAME``) when
    given, else under ``by``; the judgments and who they are recorded under."""
    name, scale, _ = owner(db, collection)
    log = read_log(path)
    if log is not None:  # a record's own log: restored as it was
        if source is not None:
            raise OptionError(
                f"{path} is a judgment log, whose entries name their authors: no --source"
            )
        store = MeetingStore(db, scale=scale, collection=name)
        Writer(store, by, COMMAND_LINE).allowed("import")
        return store.restore(log), "their authors, as the log says"
    qrels = read_qrels(path)
    check_grades(sorted(set(qrels.grade.tolist())), scale)
    store = MeetingStore(db, scale=scale, collection=name)
    return Writer(store, by, COMMAND_LINE).import_qrels(qrels, source=source, filename=path)


def read_log(path: str) -> list[Judgment] | None:
    """The entries of a judgment log (``judgments export --format tsv``: a header of
    :data:`LOG_COLUMNS`), or None when the file is not one (qrels)."""
    import csv

    header = "\t".join(LOG_COLUMNS).encode()
    with open(path, "rb") as handle:  # a gzip'd or binary qrels file is no log
        if handle.readline(len(header) + 2).rstrip(b"\r\n") != header:  # no more than it
            return None
    with open(path, encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle, delimiter="\t"))[1:]
    entries = []
    for line, row in enumerate(rows, 2):
        if len(row) != len(LOG_COLUMNS):
            raise OptionError(f"{path}, line {line}: {len(row)} fields where the log has 9")
        qid, docid, grade, previous, by, at, note, via, undoes = row
        try:
            entries.append(
                Judgment(
                    qid,
                    docid,
                    int(grade),
                    int(previous) if previous else None,
                    by,
                    at,
                    note,
                    via,
                    undoes=int(undoes) if undoes else None,
                )
            )
        except ValueError:
            raise OptionError(
                f"{path}, line {line}: grade, previous_grade and undoes are whole numbers"
            ) from None
    return entries


def export(store: MeetingStore, *, qrels: Qrels | str | None = None) -> str:
    """TREC qrels lines: the meeting's grades in force alone, or ``qrels`` (a file, or qrels
    read) with them in force."""
    if qrels is None:
        return judgment_lines(store.latest())
    base = read_qrels(qrels) if isinstance(qrels, str) else qrels
    return qrels_lines(merged_qrels(base, store.latest()))


def log_rows(store: MeetingStore) -> list[tuple[object, ...]]:
    """The record's judgments, every one, as rows of :data:`LOG_COLUMNS`."""
    return [
        (
            j.qid,
            j.docid,
            j.grade,
            "" if j.previous is None else j.previous,
            j.by,
            j.at,
            j.note,
            j.via,
            "" if j.undoes is None else j.undoes,
        )
        for j in store.judgments()
    ]


def _qrels_grade(folder: str, qid: str, docid: str) -> int | None:
    """The collection's qrels grade of the pair (the grade a judgment replaces)."""
    frame = open_collection(folder).read_qrels().to_frame()
    found = frame[(frame["qid"] == qid) & (frame["docid"] == docid)]["rel"]
    return int(found.iloc[0]) if len(found) else None


def record_file(db: str) -> Path:
    """The record's file: ``db`` itself, or a collection folder's ``rankviz-notes.sqlite``."""
    return store_path(db)


@dataclass(frozen=True)
class Writer:
    """One person recording in a meeting's record: every entry goes under their name, with how
    they are known (``via``: signed in, a typed name, the command line), and only what their
    ``role`` allows is written, whatever a page sends. The front ends write through one."""

    store: MeetingStore
    by: str
    via: str
    role: Role = Role.OWNER

    def allowed(self, change: str) -> None:
        """A MeetingError saying why, when the role does not allow ``change`` (access.NEEDS)."""
        refused = refusal(self.role, change)
        if refused:
            raise MeetingError(refused)

    def judge_many(
        self,
        rows: Iterable[tuple[str, str, int]],
        *,
        originals: Mapping[tuple[str, str], int | None] | None = None,
        notes: Mapping[tuple[str, str], str] | None = None,
        seen: Mapping[tuple[str, str], int | None] | None = None,
    ) -> list[Judgment]:
        self.allowed("judge")
        return self.store.judge_many(
            rows, by=self.by, via=self.via, originals=originals, notes=notes, seen=seen
        )

    def tag(self, qid: str, tag: str, *, removed: bool = False) -> None:
        self.allowed("judge")
        self.store.tag(qid, tag, by=self.by, via=self.via, removed=removed)

    def set_note(self, qid: str, note: str, *, seen: str | None = None) -> None:
        self.allowed("judge")
        self.store.set_note(qid, note, by=self.by, via=self.via, seen=seen)

    def import_qrels(
        self, qrels: Qrels, *, source: str | None, filename: str
    ) -> tuple[list[Judgment], str]:
        """Every judgment of ``qrels`` in one transaction, as imported entries: under ``source``
        (``llm:NAME``, ``human:NAME``) with a note of who imported which file, else under this
        person's name; the judgments and who they are recorded under."""
        self.allowed("import")
        if source is not None and not is_source_label(source):
            raise OptionError(
                f"--source {source!r}: a source label is llm:NAME or human:NAME, e.g. llm:umbrela"
            )
        check_grades(sorted(set(qrels.grade.tolist())), self.store.scale)
        named = Path(filename).name
        who, note = (
            (source, f"imported by {self.by} ({self.via}) from {named}")
            if source
            else (
                self.by,
                f"imported from {named}",
            )
        )
        return self.store.import_qrels(qrels, by=who, via=IMPORTED, note=note), who

    def undo(self, numbers: Iterable[int], *, note: str = "") -> list[Judgment]:
        """Take back judgments by their ids (:meth:`MeetingStore.undo`): what was in force before
        each is in force again."""
        self.allowed("undo")
        return self.store.undo(numbers, by=self.by, via=self.via, note=note)

    def record_draw(self, draw: QueryDraw) -> None:
        """Keep ``draw`` (the queries drawn for people to judge) with who drew it and when: the
        corrections then weight the queries judged by it."""
        self.allowed("draw")
        held = json.loads(draw.to_json())
        held.update(drawn_by=self.by, via=self.via, at=time.strftime("%Y-%m-%d %H:%M:%S"))
        self.store.record_draw(json.dumps(held))

    def lock(self, locked: bool) -> Lock:
        self.allowed("lock" if locked else "unlock")
        return self.store.lock(by=self.by, via=self.via, locked=locked)


def record_draw(folder: str, draw: QueryDraw, *, by: str) -> Path:
    """Keep a draw of queries in a collection folder's record (made if need be) from the command
    line; the record's file."""
    name, scale, _ = owner(folder, None)
    store = MeetingStore(folder, scale=scale, collection=name)
    Writer(store, by, COMMAND_LINE).record_draw(draw)
    return record_file(folder)


def undo_last_import(db: str, *, by: str) -> tuple[list[Judgment], str]:
    """Take back the record's latest import from the command line: the judgments undone, and the
    import in words (who it is recorded under, when)."""
    store = _existing(db)
    imports = store.imports()
    if not imports:
        raise OptionError(f"{db}: the record holds no import to undo")
    under, at, _, numbers = imports[0]
    done = Writer(store, by, COMMAND_LINE).undo(numbers, note=f"undo of the import of {at}")
    return done, f"the import recorded as {under} at {at}"


def lock(db: str, locked: bool, *, by: str) -> Lock:
    """Lock (or unlock) a record from the command line: whoever can write its file owns it."""
    return Writer(_existing(db), by, COMMAND_LINE).lock(locked)


def _existing(db: str) -> MeetingStore:
    """A record that exists, opened to be written (an older version's brought up to date)."""
    MeetingStore(db, create=False)  # refuses a record that does not exist
    return MeetingStore(db)
