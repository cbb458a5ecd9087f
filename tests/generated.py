"""Generated qrels and runs (hypothesis) with many equal scores, and the files they are written
to."""

from __future__ import annotations

import itertools
from pathlib import Path

from hypothesis import strategies as st

DOCIDS = st.text(alphabet="aAbB019_-é", min_size=1, max_size=4)


# "01" and "1": one integer, two docids
NUMERIC_DOCIDS = st.text(alphabet="012", min_size=1, max_size=3)


LAYOUTS = ("as drawn", "score order", "interleaved")  # how the run file lists its lines


QIDS = st.text(alphabet="qQ12x", min_size=1, max_size=3)


@st.composite
def collections(draw, numeric_qids: bool = False, min_grade: int = -2):
    """qrels and a run: judged queries (some missing from the run), run-only queries, many ties."""
    qid_strategy = st.integers(1, 60).map(str) if numeric_qids else QIDS
    qids = draw(st.lists(qid_strategy, min_size=1, max_size=5, unique=True))
    tie_heavy = draw(st.booleans())
    scores = st.integers(0, 3).map(float) if tie_heavy else st.floats(-50, 50, width=16)
    numeric = draw(st.booleans())
    docids, unretrieved = (NUMERIC_DOCIDS, ["0001", "22"]) if numeric else (DOCIDS, ["zz", "u1"])
    qrels, run = {}, {}
    for qid in qids:
        docs = draw(st.lists(docids, min_size=1, max_size=14, unique=True))
        judged = draw(st.lists(st.sampled_from(docs + unretrieved), max_size=10, unique=True))
        grades = {d: draw(st.integers(min_grade, 4)) for d in judged}
        # trec_eval crashes on such a topic (-2: always; -1: in bpref)
        if judged and max(grades.values()) < 0:
            grades[judged[0]] = 0
        if grades:
            qrels[qid] = grades
        if draw(st.integers(0, 5)) > 0:
            run[qid] = {d: draw(scores) for d in docs}
    if not qrels:
        qrels[qids[0]] = {"zz": 1}
    return qrels, run


def write_files(tmp: Path, qrels: dict, run: dict, layout: str = "as drawn") -> tuple[Path, Path]:
    """Files for pytrec_eval's dicts; ``layout`` lists each query's lines as drawn or by score (ties
    as drawn, so the tie-breaking still has work), or interleaves the queries line by line."""
    qrels_path, run_path = tmp / "qrels.txt", tmp / "run.txt"
    qrels_path.write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items())
    )
    per_query = {q: list(docs.items()) for q, docs in run.items()}
    if layout == "score order":
        per_query = {q: sorted(items, key=lambda item: -item[1]) for q, items in per_query.items()}
    lines = [
        [f"{q} Q0 {d} {i} {s!r} tag\n" for i, (d, s) in enumerate(items)]
        for q, items in per_query.items()
    ]
    if layout == "interleaved":
        lines = [
            [line for group in itertools.zip_longest(*lines) for line in group if line is not None]
        ]
    run_path.write_text(
        "".join(line for group in lines for line in group) or "999 Q0 d 1 1.0 tag\n"
    )
    return qrels_path, run_path


def version_2_record(path: Path, *, docid: str = "d1", tagged: bool = False) -> None:
    """A meeting record as version 2 made it (no ``via``, no locks) with one judgment of ``q1``
    ``docid`` (and the tag ``old`` on ``q1``): what an upgrade starts from."""
    import contextlib
    import sqlite3

    tag = "INSERT INTO tags (qid, tag, by, at) VALUES ('q1', 'old', 'Ann', '2026-01-02');"
    with contextlib.closing(sqlite3.connect(path)) as db:
        db.executescript(
            f"""
            CREATE TABLE judgments (id INTEGER PRIMARY KEY AUTOINCREMENT, qid TEXT NOT NULL,
              docid TEXT NOT NULL, grade INTEGER NOT NULL, previous INTEGER, by TEXT NOT NULL,
              at TEXT NOT NULL, note TEXT NOT NULL DEFAULT '');
            CREATE TABLE tags (id INTEGER PRIMARY KEY AUTOINCREMENT, qid TEXT NOT NULL,
              tag TEXT NOT NULL, removed INTEGER NOT NULL DEFAULT 0, by TEXT NOT NULL,
              at TEXT NOT NULL);
            CREATE TABLE notes (id INTEGER PRIMARY KEY AUTOINCREMENT, qid TEXT NOT NULL,
              note TEXT NOT NULL, previous TEXT, by TEXT NOT NULL, at TEXT NOT NULL);
            CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
            INSERT INTO judgments (qid, docid, grade, by, at)
              VALUES ('q1', '{docid}', 2, 'Ann', '2026-01-01');
            {tag if tagged else ""}
            PRAGMA user_version=2;
            """
        )
