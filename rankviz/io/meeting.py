"""The meeting's record: judgments, tags and notes a team makes while it looks at queries together.

One SQLite file (Python's ``sqlite3``), shared by every browser session of a server and by
command-line processes. It is written in WAL mode with ``synchronous=FULL`` (a committed entry
survives a killed process and a power cut), each write in one ``BEGIN IMMEDIATE`` transaction with a
busy timeout (so concurrent writers wait for each other instead of failing or losing entries), and
only through parameterised SQL. Nothing is ever updated or deleted: every entry is a new row that
says who made it, when, what it replaces and why, so the history is complete; the latest entry wins.

The qrels file on disk is never written: :func:`merged_qrels` builds the qrels in force in memory.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime

from rankviz.io.entries import (
    IMPORTED,
    LIMITS,
    STORE_NAME,
    VIA,
    Entry,
    GradeConflict,
    Judgment,
    Lock,
    MeetingError,
    MeetingLocked,
    NoteConflict,
    RecordVersion,
    checked,
    store_path,
    unwritable,
)
from rankviz.io.grades import GradeError, checked_grade
from rankviz.io.in_force_rule import in_force
from rankviz.io.model import Qrels
from rankviz.io.record_views import RecordViews

# the entries' types and checks live in rankviz.io.entries; the record's readers find them here too
__all__ = [
    "LIMITS",
    "STORE_NAME",
    "TAG_JOIN",
    "Entry",
    "GradeConflict",
    "Judgment",
    "Lock",
    "MeetingError",
    "MeetingLocked",
    "MeetingStore",
    "NoteConflict",
    "RecordVersion",
    "checked",
    "store_path",
    "unwritable",
]
TAG_JOIN = " + "  # a query's tags, joined in one group value


UNDONE = "undoes IS NOT NULL"  # an undo entry


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _checked_via(via: str) -> str:
    if via not in VIA:
        raise MeetingError(f"how the author is known must be one of {', '.join(VIA)}, not {via!r}")
    return via


class MeetingStore(RecordViews):
    """The record of one collection's meetings, in the SQLite file ``path``.

    ``create=False`` refuses a file that does not exist (readers never create one). ``scale``: the
    grades the collection accepts (:func:`grade_scale`); a grade outside it is refused when
    recorded, and left out of :meth:`latest_checked` (with the reason) when the record already holds
    one. Each call opens its own connection, so one store object serves every thread of a server.
    """

    # --- judgments -------------------------------------------------------------------------------

    def judge(
        self,
        qid: str,
        docid: str,
        grade: int,
        *,
        by: str,
        via: str,
        note: str = "",
        original: int | None = None,
    ) -> Judgment:
        """Record one grade. ``original``: the qrels' grade of the pair, the previous grade when the
        meeting has not judged it yet."""
        return self.judge_many(
            [(qid, docid, grade)], by=by, via=via, note=note, originals={(qid, docid): original}
        )[0]

    def judge_many(
        self,
        rows: Iterable[tuple[str, str, int]],
        *,
        by: str,
        via: str,
        note: str = "",
        originals: Mapping[tuple[str, str], int | None] | None = None,
        notes: Mapping[tuple[str, str], str] | None = None,
        seen: Mapping[tuple[str, str], int | None] | None = None,
    ) -> list[Judgment]:
        """Record several grades in one transaction (all or none), by ``by``, known through ``via``
        (:data:`~rankviz.io.entries.VIA`). ``notes``: a note per pair (else ``note``). ``seen``:
        the meeting's grade of each pair the writer saw (None: not judged by the meeting); if a
        colleague has given another grade since (and not the one typed), nothing is recorded
        (:class:`GradeConflict`), as a note is never replaced unseen."""
        by, note = checked("name", by), checked("note", note, empty=True)
        via = _checked_via(via)
        entries = [
            (checked("qid", q), checked("docid", d), self._grade(q, d, g)) for q, d, g in rows
        ]
        texts = {pair: checked("note", text, empty=True) for pair, text in (notes or {}).items()}
        originals = originals or {}
        at = _now()
        done, conflicts = [], []
        with self._writing() as db:
            for qid, docid, grade in entries:
                last = db.execute(
                    "SELECT grade, by FROM judgments WHERE qid = ? AND docid = ? "
                    "ORDER BY id DESC LIMIT 1",
                    (qid, docid),
                ).fetchone()
                if seen is not None and (last[0] if last else None) not in (
                    seen.get((qid, docid)),
                    grade,
                ):
                    conflicts.append((qid, docid, last[0], last[1]))
                previous = last[0] if last else originals.get((qid, docid))
                why = texts.get((qid, docid), note)
                cursor = db.execute(
                    "INSERT INTO judgments (qid, docid, grade, previous, by, at, note, via) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (qid, docid, grade, previous, by, at, why, via),
                )
                number = cursor.lastrowid or 0
                done.append(Judgment(qid, docid, grade, previous, by, at, why, via, number))
            if conflicts:
                # the transaction rolls back: nothing of the writer's is recorded
                raise GradeConflict(conflicts)
        return done

    def _grade(self, qid: str, docid: str, grade: object) -> int:
        try:
            return checked_grade(grade, self.scale)
        except GradeError as exc:
            raise MeetingError(f"{qid} {docid}: {exc}") from None

    def import_qrels(
        self, qrels: Qrels, *, by: str, via: str = IMPORTED, note: str = ""
    ) -> list[Judgment]:
        """Every judgment of ``qrels`` (read by :func:`rankviz.io.readers.read_qrels`), in one
        transaction."""
        frame = qrels.to_frame()
        rows = zip(frame["qid"], frame["docid"], map(int, frame["rel"]), strict=True)
        return self.judge_many(rows, by=by, via=via, note=note)

    def restore(self, log: Iterable[Judgment]) -> list[Judgment]:
        """A judgment log (``judgments export --format tsv``) recorded as it was, in one
        transaction: each entry keeps its author, time, note, the grade it replaced and how its
        author was known (``via``); an undo's ``undoes`` names the entry it takes back by its place
        in the log (the log is a whole record's, whose entries are numbered 1, 2, ... in order)."""
        done: list[Judgment] = []
        with self._writing() as db:
            for place, entry in enumerate(log, 1):
                line = f"entry {place} of the log"
                try:
                    datetime.fromisoformat(entry.at.replace("Z", "+00:00"))
                except ValueError:
                    raise MeetingError(f"{line}: {entry.at!r} is not a time") from None
                if entry.undoes is not None and not 1 <= entry.undoes < place:
                    raise MeetingError(
                        f"{line}: it undoes entry {entry.undoes}, not an earlier one"
                    )
                undoes = None if entry.undoes is None else done[entry.undoes - 1].number
                row = (
                    checked("qid", entry.qid),
                    checked("docid", entry.docid),
                    self._grade(entry.qid, entry.docid, entry.grade),
                    entry.previous,
                    checked("name", entry.by),
                    entry.at,
                    checked("note", entry.note, empty=True),
                    _checked_via(entry.via),
                    undoes,
                )
                cursor = db.execute(
                    "INSERT INTO judgments (qid, docid, grade, previous, by, at, note, via, "
                    "undoes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    row,
                )
                done.append(Judgment(*row[:8], number=cursor.lastrowid or 0, undoes=undoes))
        return done

    def judgments(self, qid: str | None = None) -> list[Judgment]:
        """The judgment log, oldest first (of one query, or all), undo entries included."""
        with self._connection() as db:
            sql = self._judgments_sql(db)
            rows = (
                db.execute(sql + " WHERE qid = ? ORDER BY id", (qid,))
                if qid is not None
                else db.execute(sql + " ORDER BY id")
            )
            return [
                Judgment(q, d, g, previous, by, at, note, via, number, undoes)
                for number, q, d, g, previous, by, at, note, via, undoes in rows.fetchall()
            ]

    def queries_judged_after(self, judgment: int, upto: int) -> set[str]:
        """The queries of the judgments recorded after the ``judgment``-th (the version a result was
        built at) up to the ``upto``-th (the version in force): what a revision must recompute.
        Read once per state of the record (those entries change only when edited, which changes
        the files)."""

        def read() -> frozenset[str]:
            with self._connection() as db:
                sql = "SELECT DISTINCT qid FROM judgments WHERE id > ? AND id <= ?"
                return frozenset(qid for (qid,) in db.execute(sql, (judgment, upto)))

        return set(self.per_state(("queries judged", judgment, upto), read))

    def latest(self) -> dict[tuple[str, str], int]:
        """The grade in force of every pair the meeting judged (its latest judgment), in the order
        first judged; entries no qrels file can hold are left out (:meth:`latest_checked` says
        which)."""
        return self.latest_checked()[0]

    def latest_checked(
        self, *, judges: Callable[[str], bool] | None = None
    ) -> tuple[dict[tuple[str, str], int], list[str]]:
        """:meth:`latest`, and why each entry it leaves out (written outside rankviz, or by an older
        version) was left out: record id, then the reason. One read of the record for both.
        ``judges``: only the entries whose ``by`` it accepts (one source of the record's
        judgments)."""
        found, problems = self._in_force(judges=judges)
        return {key: judgment.grade for key, judgment in found.items()}, problems

    def latest_judgments(self, qid: str | None = None) -> dict[tuple[str, str], Judgment]:
        """The judgment in force of every pair (of one query): the latest one a qrels file can hold,
        by the same rule as :meth:`latest_checked`."""
        return self._in_force(qid)[0]

    def _in_force(
        self, qid: str | None = None, *, judges: Callable[[str], bool] | None = None
    ) -> tuple[dict[tuple[str, str], Judgment], list[str]]:
        """:func:`rankviz.io.in_force_rule.in_force` over the record's judgments (of one query)."""
        with self._connection() as db:
            rows = db.execute(
                self._judgments_sql(db)
                + (" WHERE qid = ?" if qid is not None else "")
                + " ORDER BY id",
                (qid,) if qid is not None else (),
            ).fetchall()
        return in_force(rows, self.scale, judges=judges)

    def _judgments_sql(self, db) -> str:
        via, undoes = self._via(db, "judgments"), self._column(db, "judgments", "undoes", "NULL")
        return (
            f"SELECT id, qid, docid, grade, previous, by, at, note, {via}, {undoes} FROM judgments"
        )

    def undo(self, numbers: Iterable[int], *, by: str, via: str, note: str = "") -> list[Judgment]:
        """Take back judgments (by their ids), in one transaction: each counts no more, so the
        pair's judgment before it (else the qrels file's grade) is in force again, unless a later
        judgment of the pair stands. Each undo is a new entry naming the judgment it takes back
        (the history keeps both); a judgment already taken back is left out of what is returned."""
        by, via, note = checked("name", by), _checked_via(via), checked("note", note, empty=True)
        at, done, wanted = _now(), [], set(numbers)
        with self._writing() as db:
            wanted -= {n for (n,) in db.execute(f"SELECT undoes FROM judgments WHERE {UNDONE}")}
            rows = db.execute(
                "SELECT id, qid, docid, grade, previous FROM judgments WHERE undoes IS NULL "
                "ORDER BY id"
            ).fetchall()
            for number, qid, docid, grade, previous in rows:
                if number not in wanted:
                    continue
                cursor = db.execute(
                    "INSERT INTO judgments (qid, docid, grade, previous, by, at, note, via, "
                    "undoes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (qid, docid, grade, previous, by, at, note, via, number),
                )
                entry = (qid, docid, grade, previous, by, at, note, via, cursor.lastrowid or 0)
                done.append(Judgment(*entry, undoes=number))
        return done

    # --- tags and notes --------------------------------------------------------------------------

    def tag(self, qid: str, tag: str, *, by: str, via: str, removed: bool = False) -> None:
        """Add ``tag`` to the query (or remove it, ``removed=True``)."""
        row = (checked("qid", qid), checked("tag", tag), int(removed), checked("name", by), _now())
        with self._writing() as db:
            db.execute(
                "INSERT INTO tags (qid, tag, removed, by, at, via) VALUES (?, ?, ?, ?, ?, ?)",
                (*row, _checked_via(via)),
            )

    def tags(self) -> dict[str, list[str]]:
        """Each tagged query's tags in force, sorted."""
        with self._connection() as db:
            rows = db.execute("SELECT qid, tag, removed FROM tags ORDER BY id").fetchall()
        state: dict[tuple[str, str], bool] = {}
        for qid, tag, removed in rows:
            state[(qid, tag)] = not removed
        found: dict[str, list[str]] = {}
        for (qid, tag), present in state.items():
            if present:
                found.setdefault(qid, []).append(tag)
        return {qid: sorted(tags) for qid, tags in sorted(found.items())}

    def tag_groups(self) -> dict[str, str]:
        """Each tagged query's group: its tags joined (``qrels wrong + tokenisation``)."""
        return {qid: TAG_JOIN.join(tags) for qid, tags in self.tags().items()}

    def set_note(self, qid: str, note: str, *, by: str, via: str, seen: str | None = None) -> None:
        """Replace the query's note (the previous one stays in the history). ``seen``: the note the
        writer saw; if someone else changed it since, nothing is written (:class:`NoteConflict`)."""
        qid, note, by = checked("qid", qid), checked("note", note, empty=True), checked("name", by)
        via = _checked_via(via)
        with self._writing() as db:
            last = db.execute(
                "SELECT note, by FROM notes WHERE qid = ? ORDER BY id DESC LIMIT 1", (qid,)
            ).fetchone()
            if seen is not None and (last[0] if last else "") != seen:
                raise NoteConflict(qid, last[0], last[1])
            db.execute(
                "INSERT INTO notes (qid, note, previous, by, at, via) VALUES (?, ?, ?, ?, ?, ?)",
                (qid, note, last[0] if last else None, by, _now(), via),
            )

    def notes(self) -> dict[str, str]:
        """Each query's note in force (queries whose latest note is empty are left out)."""
        with self._connection() as db:
            rows = db.execute("SELECT qid, note FROM notes ORDER BY id").fetchall()
        latest = dict(rows)
        return {qid: note for qid, note in sorted(latest.items()) if note}

    # --- the lock --------------------------------------------------------------------------------

    def record_draw(self, text: str) -> None:
        """Keep a draw of queries for people to judge (its JSON; the latest replaces an earlier
        one): refused while the meeting is locked, as every entry."""
        with self._writing() as db:
            db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('draw', ?)", (text,))

    def draw(self) -> str | None:
        """The draw kept (its JSON), or None."""
        with self._connection() as db:
            row = db.execute("SELECT value FROM meta WHERE key = 'draw'").fetchone()
        return row[0] if row else None

    def lock(self, *, by: str, via: str, locked: bool = True) -> Lock:
        """Lock the meeting (``locked=False``: unlock it): while locked, every entry is refused
        (:class:`MeetingLocked`), whoever sends it."""
        return self.set_lock(locked, by=checked("name", by), via=_checked_via(via), at=_now())
