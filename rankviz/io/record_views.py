"""What a meeting's record says about itself, read only: a query's history (every judgment, undo,
tag and note, oldest first), how its entries' authors are known, and the imports it holds."""

from __future__ import annotations

from rankviz.io.entries import IMPORTED, TABLES, Entry
from rankviz.io.record_file import RecordFile


class RecordViews(RecordFile):
    """The record's read-only views (:class:`~rankviz.io.meeting.MeetingStore` is one)."""

    def imports(self) -> list[tuple[str, str, str, list[int]]]:
        """Each import of a qrels file with judgments not taken back (its judgments recorded
        together, ``via`` import), newest first: who it is recorded under, when, its note, and the
        ids of its judgments not taken back."""
        groups: dict[tuple[str, str, str], list[int]] = {}
        with self._connection() as db:
            if "undoes" not in self._column(db, "judgments", "undoes", ""):
                return []  # an older record: no import is known as one
            rows = db.execute(
                "SELECT id, by, at, note FROM judgments WHERE via = ? AND undoes IS NULL AND id "
                "NOT IN (SELECT undoes FROM judgments WHERE undoes IS NOT NULL) ORDER BY id",
                (IMPORTED,),
            )
            for number, by, at, note in rows:
                groups.setdefault((by, at, note), []).append(number)
        return [(*key, ids) for key, ids in reversed(groups.items())]

    def history(self, qid: str) -> list[Entry]:
        """Everything recorded about one query, oldest first."""
        with self._connection() as db:
            undoes = self._column(db, "judgments", "undoes", "NULL")
            judged = db.execute(
                f"SELECT id, CASE WHEN {undoes} IS NULL THEN 'judgment' ELSE 'undo' END, "
                "docid || ' = ' || grade, COALESCE(previous, ''), by, at, "
                f"note, {self._via(db, 'judgments')} FROM judgments WHERE qid = ?",
                (qid,),
            ).fetchall()
            tagged = db.execute(
                "SELECT id, CASE removed WHEN 1 THEN 'untag' ELSE 'tag' END, tag, '', by, at, '', "
                f"{self._via(db, 'tags')} FROM tags WHERE qid = ?",
                (qid,),
            ).fetchall()
            noted = db.execute(
                "SELECT id, 'note', note, COALESCE(previous, ''), by, at, '', "
                f"{self._via(db, 'notes')} FROM notes WHERE qid = ?",
                (qid,),
            ).fetchall()
        rows = sorted([*judged, *tagged, *noted], key=lambda r: (r[5], r[1], r[0]))
        return [
            Entry(kind, what, str(previous), by, at, note, via)
            for _, kind, what, previous, by, at, note, via in rows
        ]

    def provenance(self) -> dict[str, int]:
        """How many entries (judgments, tags, notes) were made by each way of knowing their author
        (:data:`~rankviz.io.entries.VIA`; "" for entries recorded before rankviz kept it)."""
        counts: dict[str, int] = {}
        with self._connection() as db:
            for table in TABLES:
                via = self._via(db, table)
                for how, n in db.execute(f"SELECT {via}, COUNT(*) FROM {table} GROUP BY 1"):
                    counts[how] = counts.get(how, 0) + n
        return counts
