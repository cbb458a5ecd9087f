"""The one rule for what a meeting's record holds in force, per pair of query and document: its
latest judgment whose ids a qrels file can hold and whose grade is on the scale. A judgment an
owner took back (an undo entry naming it) counts no more: the pair's judgment before it is in
force again, or, with none, the qrels file's grade; a later judgment of the pair stands. Entries
are only ever added: an undo is an entry too, and the history keeps both."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from rankviz.io.entries import Judgment, MeetingError, checked
from rankviz.io.grades import GradeError, Scale, checked_grade

Row = tuple  # id, qid, docid, grade, previous, by, at, note, via, undoes


def in_force(
    rows: Iterable[Row], scale: Scale, *, judges: Callable[[str], bool] | None = None
) -> tuple[dict[tuple[str, str], Judgment], list[str]]:
    """Each pair's judgment in force (in the order first judged), and why each entry left out was
    left out. ``rows`` in the record's order; ``judges``: only the judgments whose ``by`` it
    accepts (one source of the record's judgments; an undo takes back what it names, whoever made
    the undo)."""
    rows = list(rows)
    # a judgment taken back counts no more: the latest one left of its pair is in force
    undone = {row[9] for row in rows if row[9] is not None}
    found: dict[tuple[str, str], Judgment] = {}
    # by pair: a later grade of the pair in the scale corrects it
    problems: dict[object, str] = {}
    for number, qid, docid, grade, previous, by, at, note, via, undoes in rows:
        if undoes is not None or number in undone or (judges is not None and not judges(by)):
            continue
        try:
            key = (checked("qid", qid), checked("docid", docid))
        except MeetingError as exc:
            problems[number] = f"judgment {number} left out: {exc}"
            continue
        try:
            judged = checked_grade(grade, scale)
        except GradeError as exc:
            problems[key] = (
                f"judgment {number} ({qid} {docid}) left out: {exc}; judge the document again to "
                "correct it"
            )
            continue
        found[key] = Judgment(*key, judged, previous, by, at, note, via, number=number)
        problems.pop(key, None)
    return found, list(problems.values())
