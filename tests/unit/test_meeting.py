"""The meeting store: concurrent writers lose nothing, a killed writer loses nothing acknowledged,
text is data, the qrels in force are the file's with the latest judgments; the CLI's exact
interface."""

import contextlib
import csv
import hashlib
import io
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import CRANFIELD, DL_HARD, ROOT, run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from rankviz.cli import main
from rankviz.errors import RankvizError
from rankviz.io.frames import qrels_from_dict
from rankviz.io.judges import merged_qrels
from rankviz.io.meeting import LIMITS, MeetingError, MeetingStore
from rankviz.io.readers import read_qrels

HOSTILE = [
    "<script>alert('x')</script>",
    "**bold** [link](http://evil.example) ![img](http://evil.example/i.png)",
    'it\'s "quoted"',
    "$$x^2$$ =1+1 @SUM(A1)",
    "ünïcödé 日本語",
]


def cli(*args: str) -> subprocess.CompletedProcess:
    return run_cli(*args)


def test_latest_judgment_wins_and_remembers_what_it_replaced(tmp_path: Path) -> None:
    store = MeetingStore(tmp_path / "m.sqlite")
    first = store.judge("q1", "d1", 2, by="Ann", via="typed name", original=0)
    second = store.judge("q1", "d1", 1, by="Bob", via="typed name", note="off topic")
    store.judge("q2", "d9", 3, by="Ann", via="typed name")
    assert (first.previous, second.previous) == (0, 2)
    assert store.latest() == {("q1", "d1"): 1, ("q2", "d9"): 3}
    assert [(j.by, j.grade, j.note) for j in store.judgments("q1")] == [
        ("Ann", 2, ""),
        ("Bob", 1, "off topic"),
    ]
    assert (
        store.judgments()[0].at.endswith("Z")
        and store.judgments()[0].at <= store.judgments()[-1].at
    )


def test_tags_added_and_removed_notes_replaced_history_complete(tmp_path: Path) -> None:
    store = MeetingStore(tmp_path)  # a folder: its rankviz-notes.sqlite
    assert store.path == tmp_path / "rankviz-notes.sqlite"
    store.tag("q1", "qrels wrong", by="Ann", via="typed name")
    store.tag("q1", "needs reasoning", by="Bob", via="typed name")
    store.tag("q2", "qrels wrong", by="Bob", via="typed name")
    store.tag("q1", "qrels wrong", by="Ann", via="typed name", removed=True)
    store.set_note("q1", "first", by="Ann", via="typed name")
    store.set_note("q1", "second", by="Bob", via="typed name")
    assert store.tags() == {"q1": ["needs reasoning"], "q2": ["qrels wrong"]}
    assert store.notes() == {"q1": "second"}
    history = store.history("q1")
    assert [e.kind for e in history] == ["tag", "tag", "untag", "note", "note"]
    assert history[-1].previous == "first" and history[-1].by == "Bob"


def test_hostile_text_round_trips_literally(tmp_path: Path) -> None:
    store = MeetingStore(tmp_path / "m.sqlite")
    for i, text in enumerate(HOSTILE):
        store.judge(f"q{i}", f"d{i}", 1, by=text[:80], via="typed name", note=text)
        store.tag(f"q{i}", text[:60], by=text[:80], via="typed name")
        store.set_note(f"q{i}", text + "\nline two", by="Ann", via="typed name")
    for i, text in enumerate(HOSTILE):
        assert (
            store.judgments(f"q{i}")[0].note == text and store.judgments(f"q{i}")[0].by == text[:80]
        )
        assert store.tags()[f"q{i}"] == [text[:60].strip()]
        assert store.notes()[f"q{i}"] == text + "\nline two"
    done = cli("judgments", "export", str(store.path), "--format", "tsv")
    rows = list(csv.reader(io.StringIO(done.stdout), delimiter="\t"))
    assert rows[0] == [
        "qid",
        "docid",
        "grade",
        "previous_grade",
        "by",
        "at",
        "note",
        "via",
        "undoes",
    ]
    assert [row[6] for row in rows[1:]] == HOSTILE
    assert {row[7] for row in rows[1:]} == {"typed name"}


@pytest.mark.parametrize(
    ("kind", "call", "says"),
    [
        ("name", lambda s: s.judge("q", "d", 1, by="", via="typed name"), "a name cannot be empty"),
        (
            "tag",
            lambda s: s.tag("q", "x" * (LIMITS["tag"] + 1), by="Ann", via="typed name"),
            f"a tag is at most {LIMITS['tag']} characters",
        ),
        (
            "note",
            lambda s: s.set_note("q", "x" * 5000, by="Ann", via="typed name"),
            "a note is at most 2000 characters; this one has 5,000",
        ),
        (
            "docid",
            lambda s: s.judge("q", "d 1", 1, by="Ann", via="typed name"),
            "a docid cannot contain spaces",
        ),
        (
            "name",
            lambda s: s.tag("q", "t", by="A\tB", via="typed name"),
            "a name cannot contain control characters",
        ),
        (
            "grade",
            lambda s: s.judge("q", "d", "high", by="Ann", via="typed name"),
            "a grade must be a whole number",
        ),
        (
            "grade",
            lambda s: s.judge("q", "d", 10**6, by="Ann", via="typed name"),
            "is not one of the grades: -1000 to 1000",
        ),
    ],
)
def test_unacceptable_entries_are_refused_with_a_reason(tmp_path: Path, kind, call, says) -> None:
    store = MeetingStore(tmp_path / "m.sqlite")
    with pytest.raises(MeetingError, match=says.replace("(", r"\(").replace("[", r"\[")):
        call(store)
    assert store.version()[:3] == (0, 0, 0)  # nothing half-written


def test_a_store_that_cannot_be_created_or_read_says_so(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(MeetingError, match="cannot open the meeting store"):
        MeetingStore(blocker / "m.sqlite")
    with pytest.raises(MeetingError, match="no meeting store at"):
        MeetingStore(tmp_path / "absent.sqlite", create=False)
    assert not (tmp_path / "absent.sqlite").exists()
    garbage = tmp_path / "garbage.sqlite"
    garbage.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(MeetingError, match="cannot be used"):
        MeetingStore(garbage)


pairs = st.tuples(st.sampled_from(["q1", "q2", "q3"]), st.sampled_from(["a", "b", "c", "d"]))


@settings(max_examples=60, deadline=None)
@given(
    file=st.dictionaries(pairs, st.integers(-1, 3), min_size=1, max_size=12),
    meeting=st.lists(st.tuples(pairs, st.integers(0, 4)), max_size=15),
)
@pytest.mark.slow
def test_merged_qrels_are_the_file_with_the_latest_grades(tmp_path_factory, file, meeting) -> None:
    store = MeetingStore(tmp_path_factory.mktemp("m") / "m.sqlite")
    for (qid, docid), grade in meeting:
        store.judge(qid, docid, grade, by="Ann", via="typed name")
    nested: dict = {}
    for (qid, docid), grade in file.items():
        nested.setdefault(qid, {})[docid] = grade
    expected = dict(file)
    for pair, grade in meeting:
        expected[pair] = grade
    qrels = qrels_from_dict(nested)
    encoded = merged_qrels(qrels, store.latest())
    merged = encoded.to_frame()
    assert (
        dict(
            zip(
                zip(merged["qid"], merged["docid"], strict=True),
                merged["rel"].tolist(),
                strict=True,
            )
        )
        == expected
    )
    assert len(merged) == len(expected)
    # the same arrays as reading the merged lines: the file's pairs in its order, then the new ones
    # in the order first judged
    order = list(zip(qrels.to_frame()["qid"], qrels.to_frame()["docid"], strict=True))
    order += [pair for pair in dict.fromkeys(p for p, _ in meeting) if pair not in file]
    text = "".join(f"{q} 0 {d} {expected[q, d]}\n" for q, d in order)
    read = read_qrels(text.encode(), filename="merged.txt")
    assert read.query_ids.tolist() == encoded.query_ids.tolist()
    assert read.docids.to_pylist() == encoded.docids.to_pylist()
    for name in ("qid_codes", "grade"):
        assert getattr(read, name).tolist() == getattr(encoded, name).tolist(), name


@pytest.mark.slow
def test_eight_processes_importing_at_once_lose_nothing(tmp_path: Path) -> None:
    db = tmp_path / "m.sqlite"
    # the collection and grades each writer then finds there
    MeetingStore(db, scale=(0, 2), collection="synthetic")
    files = []
    for p in range(8):
        path = tmp_path / f"qrels{p}.txt"
        path.write_text("".join(f"q{p} 0 doc{p}_{i} {i % 3}\n" for i in range(250)))
        files.append(path)
    workers = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "rankviz",
                "judgments",
                "import",
                str(db),
                str(f),
                "--by",
                f"p{p}",
            ],
            cwd=ROOT,
            stderr=subprocess.PIPE,
            text=True,
        )
        for p, f in enumerate(files)
    ]
    assert [w.wait(timeout=300) for w in workers] == [0] * 8, [w.stderr.read() for w in workers]
    done = cli("judgments", "export", str(db))
    lines = done.stdout.splitlines()
    assert len(lines) == 2000 and len(set(lines)) == 2000
    assert sorted(lines) == sorted(
        line.strip() for f in files for line in f.read_text().splitlines()
    )


WRITER = """
import sys
from rankviz.io.meeting import MeetingStore
store = MeetingStore(sys.argv[1])
for i in range(100_000):
    store.judge("q", f"d{i}", 1, by="writer", via="typed name")
    print(i, flush=True)  # acknowledged: committed before it is printed
"""


def test_a_writer_killed_mid_write_loses_nothing_it_acknowledged(tmp_path: Path) -> None:
    db = tmp_path / "m.sqlite"
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(db)], stdout=subprocess.PIPE, text=True, cwd=ROOT
    )
    acknowledged = -1
    deadline = time.monotonic() + 120
    while acknowledged < 50 and time.monotonic() < deadline:
        acknowledged = int(writer.stdout.readline())
    os.kill(writer.pid, signal.SIGKILL)
    writer.wait()
    for line in writer.stdout:  # what it printed before it died was acknowledged too
        acknowledged = int(line)
    recorded = {docid for _, docid in MeetingStore(db).latest()}
    assert acknowledged >= 50
    assert {f"d{i}" for i in range(acknowledged + 1)} <= recorded


@pytest.mark.slow
def test_cli_interface_and_evaluate_with_judgments_equals_the_exported_qrels(
    tmp_path: Path,
) -> None:
    qrels = CRANFIELD / "qrels.txt"
    before = hashlib.sha256(qrels.read_bytes()).hexdigest()
    runs = [str(CRANFIELD / "runs" / "bm25.run.gz"), str(CRANFIELD / "runs" / "dense.run.gz")]
    db = tmp_path / "m.sqlite"
    original = read_qrels(qrels).to_frame()
    judged = original.iloc[0]
    for args in (
        [
            "judgments",
            "add",
            str(db),
            str(judged.qid),
            str(judged.docid),
            str(int(judged.rel) + 1),
            "--by",
            "Ann",
            "--note",
            HOSTILE[0],
            "--collection",
            str(CRANFIELD),
        ],
        ["judgments", "add", str(db), "1", "unseen-doc", "2", "--by", "Bob"],
        ["tags", "add", str(db), "1", "needs reasoning", "--by", "Ann"],
        ["tags", "add", str(db), "1", "qrels wrong", "--by", "Bob"],
        ["tags", "add", str(db), "2", "qrels wrong", "--by", "Bob"],
    ):
        done = cli(*args)
        assert done.returncode == 0, done.stderr
    log = list(
        csv.reader(
            io.StringIO(cli("judgments", "export", str(db), "--format", "tsv").stdout),
            delimiter="\t",
        )
    )
    assert (
        log[1][:5]
        == [
            str(judged.qid),
            str(judged.docid),
            str(int(judged.rel) + 1),
            str(int(judged.rel)),
            "Ann",
        ]
        and log[1][6] == HOSTILE[0]
    )
    assert cli("judgments", "export", str(db)).stdout == (
        f"{judged.qid} 0 {judged.docid} {int(judged.rel) + 1}\n1 0 unseen-doc 2\n"
    )
    merged = tmp_path / "merged.txt"
    merged.write_text(cli("judgments", "export", str(db), "--qrels", str(qrels)).stdout)
    assert len(merged.read_text().splitlines()) == len(original) + 1
    with_db = cli(
        "evaluate", str(qrels), *runs, "--judgments", str(db), "--per-query", "--format", "tsv"
    )
    exported = cli("evaluate", str(merged), *runs, "--per-query", "--format", "tsv")
    plain = cli("evaluate", str(qrels), *runs, "--per-query", "--format", "tsv")
    assert with_db.returncode == 0 and "the meeting's 2 judgments in force" in with_db.stderr
    assert with_db.stdout == exported.stdout != plain.stdout
    tags = tmp_path / "tags.tsv"
    tags.write_text(cli("tags", "export", str(db)).stdout)
    assert tags.read_text() == "qid\ttag\n1\tneeds reasoning + qrels wrong\n2\tqrels wrong\n"
    grouped = cli(
        "evaluate",
        str(qrels),
        *runs,
        "--groups",
        str(tags),
        "--group-by",
        "tag",
        "-m",
        "AP",
        "--format",
        "tsv",
    )
    assert grouped.returncode == 0 and "needs reasoning + qrels wrong" in grouped.stdout
    assert hashlib.sha256(qrels.read_bytes()).hexdigest() == before


def test_cli_errors_are_one_line(tmp_path: Path, capsys) -> None:
    assert main(["judgments", "export", str(tmp_path / "none.sqlite")]) == 2
    assert "no meeting store at" in capsys.readouterr().err
    assert (
        main(
            [
                "judgments",
                "add",
                str(tmp_path / "m.sqlite"),
                "q",
                "d",
                "2.5",
                "--by",
                "Ann",
                "--collection",
                str(CRANFIELD),
            ]
        )
        == 2
    )
    assert "a grade must be a whole number, not '2.5'" in capsys.readouterr().err
    bad = tmp_path / "bad.txt"
    bad.write_text("q1 0 d1 1\nq1 0 d2\n")
    assert (
        main(
            [
                "judgments",
                "import",
                str(tmp_path / "m.sqlite"),
                str(bad),
                "--by",
                "Ann",
                "--collection",
                str(CRANFIELD),
            ]
        )
        == 2
    )
    assert "line 2" in capsys.readouterr().err
    assert MeetingStore(tmp_path / "m.sqlite").version()[:3] == (0, 0, 0)
    assert main(["evaluate", str(CRANFIELD), "--judgments", str(tmp_path / "none.sqlite")]) == 2
    assert (
        main(["judgments", "export", str(tmp_path / "m.sqlite"), "--format", "tsv", "--qrels", "x"])
        == 2
    )


@settings(max_examples=80, deadline=None)
@given(
    # (qid, docid) -> score: many ties
    lines=st.dictionaries(pairs, st.integers(0, 3), min_size=1, max_size=12),
    file=st.dictionaries(pairs, st.integers(0, 3), min_size=1, max_size=8),
    meeting=st.dictionaries(pairs, st.integers(0, 4), max_size=6),
    ties=st.sampled_from(["trec_eval", "run", "expected", "optimistic", "pessimistic"]),
    shuffled=st.randoms(use_true_random=False),
)
@pytest.mark.slow
def test_a_table_regraded_with_the_meetings_qrels_is_the_table_ranked_with_them(
    lines, file, meeting, ties, shuffled
) -> None:
    from rankviz.io.frames import run_from_frame
    from rankviz.ranking.ordering import rank
    from rankviz.ranking.regrading import regrade

    rows = list(lines.items())
    shuffled.shuffle(rows)  # queries and scores in any order: the run policy keeps file order
    run = run_from_frame(
        pd.DataFrame([(q, d, float(s)) for (q, d), s in rows], columns=["qid", "docid", "score"])
    )
    nested: dict = {}
    for (qid, docid), grade in file.items():
        nested.setdefault(qid, {})[docid] = grade
    qrels = qrels_from_dict(nested)
    merged = merged_qrels(qrels, meeting)
    ranked = rank(run, merged, ties=ties)
    # only these queries' judgments differ: only their rows are looked up
    judged_since = {qid for qid, _ in meeting}
    for regraded in (
        regrade(rank(run, qrels, ties=ties), run, merged),
        regrade(rank(run, qrels, ties=ties), run, merged, queries=judged_since),
    ):
        for name in (
            "qids",
            "in_run",
            "offsets",
            "row_query",
            "pos",
            "grade",
            "judged",
            "score",
            "run_rows",
            "tie_group",
            "ideal_offsets",
            "ideal_grades",
            "ideal_query",
            "ideal_pos",
        ):
            assert np.array_equal(getattr(regraded, name), getattr(ranked, name)), name
        assert regraded.ties == ranked.ties and regraded.ignored_qids == ranked.ignored_qids


REVISED_MEASURES = [
    "RR@3",
    "RR",
    "AP",
    "nDCG@5",
    "nDCG",
    "ERR@5",
    "P@3",
    "R@5",
    "Hits@3",
    "Bpref",
    "Rprec",
    "RBP(p=0.8)",
    "Judged@5",
    "nDCG(judged_only=True)@5",
    "AP(judged_only=True)",
]


@settings(max_examples=80, deadline=None)
@given(
    lines=st.dictionaries(pairs, st.integers(0, 3), min_size=1, max_size=12),
    file=st.dictionaries(pairs, st.integers(0, 3), min_size=1, max_size=8),
    meeting=st.dictionaries(pairs, st.integers(0, 4), max_size=6),
    ties=st.sampled_from(["trec_eval", "expected", "random", "chance"]),
    missing=st.sampled_from(["zero", "skip"]),
    fill=st.sampled_from([None, 2]),
)
@pytest.mark.slow
def test_an_evaluation_revised_for_the_rejudged_queries_is_the_whole_evaluation(
    lines, file, meeting, ties, missing, fill
) -> None:
    from rankviz.evaluation.assembly import revised
    from rankviz.evaluation.evaluate import evaluate_tables
    from rankviz.io.frames import run_from_frame
    from rankviz.measures import parse
    from rankviz.ranking.ordering import chance_table, rank
    from rankviz.settings.eval_settings import EvalSettings

    run = run_from_frame(
        pd.DataFrame(
            [(q, d, float(s)) for (q, d), s in lines.items()], columns=["qid", "docid", "score"]
        )
    )
    nested: dict = {}
    for (qid, docid), grade in file.items():
        nested.setdefault(qid, {})[docid] = grade
    qrels = qrels_from_dict(nested)
    # the queries the file judges
    meeting = {pair: grade for pair, grade in meeting.items() if pair[0] in nested}
    merged = merged_qrels(qrels, meeting)
    settings_ = EvalSettings(
        ties="expected" if ties == "chance" else ties,
        missing=missing,
        seed=3,
        trials=4,
        unjudged="nonrelevant" if fill is None else f"relevant:{fill}",
    )
    measures = [parse(m) for m in REVISED_MEASURES]

    def tables(judgments):
        table = rank(run, judgments, ties="trec_eval")
        return {"run": chance_table(table) if ties == "chance" else table}

    try:
        previous = evaluate_tables(tables(qrels), measures, settings_)
        whole = evaluate_tables(tables(merged), measures, settings_)
    except RankvizError:  # skip: a run answering none of the judged queries
        return
    again = revised(previous, tables(merged), {q for q, _ in meeting})
    for key, values in whole.values.items():
        np.testing.assert_array_equal(again.values[key], values, err_msg=key)
    if whole.trials is not None:
        for key, values in whole.trials.items():
            np.testing.assert_array_equal(again.trials[key], values, err_msg=key)


# --- the collection's grades, the record's identity, readers that never write -------------------


def test_the_grade_scale_is_the_collections_never_above_gmax() -> None:
    from rankviz.io.grades import GradeError, grade_scale

    assert grade_scale([0, 1, 2, 4]) == (0, 4)
    assert grade_scale([1, 2]) == (0, 2)  # non-relevant (0) can always be said
    assert grade_scale([-2, 1, 3]) == (-2, 3)  # spam grades the qrels use
    assert grade_scale([0, 1, 2, 3, 4, 5], gmax=4) == (0, 4)  # ERR could not read a 5
    assert grade_scale([0, 1], given=(0, 3)) == (0, 3)
    with pytest.raises(GradeError, match="empty"):
        grade_scale([], given=(2, 3), gmax=1)


def test_a_grade_outside_the_scale_is_refused_and_one_already_recorded_is_left_out_with_its_reason(
    tmp_path: Path,
) -> None:
    path = tmp_path / "m.sqlite"
    # no scale then
    MeetingStore(path).judge_many(
        [("q1", "d1", 2), ("q1", "d2", 44), ("q2", "d3", 3)], by="Old version", via="typed name"
    )
    store = MeetingStore(path, create=False, scale=(0, 4))
    with pytest.raises(
        MeetingError,
        match=r"q1 d9: grade 44 is not one of the grades of this "
        r"collection: 0, 1, 2, 3, 4",
    ):
        store.judge("q1", "d9", 44, by="Ann", via="typed name")
    with pytest.raises(MeetingError, match="not one of the grades"):
        store.judge_many(
            [("q1", "d9", 1), ("q1", "d8", -1)], by="Ann", via="typed name"
        )  # all or none
    assert [j.docid for j in store.judgments()] == ["d1", "d2", "d3"]
    grades, left_out = store.latest_checked()
    assert grades == {("q1", "d1"): 2, ("q2", "d3"): 3}
    assert (
        len(left_out) == 1
        and "judgment 2 (q1 d2) left out: grade 44" in left_out[0]
        and "judge the document again" in left_out[0]
    )
    store.judge("q1", "d2", 1, by="Ann", via="typed name")  # the correction
    assert store.latest_checked() == ({("q1", "d1"): 2, ("q2", "d3"): 3, ("q1", "d2"): 1}, [])


def test_a_replaced_record_is_another_record_a_copy_is_the_same(tmp_path: Path) -> None:
    import shutil

    first = MeetingStore(tmp_path / "a.sqlite")
    first.judge("q1", "d1", 2, by="Ann", via="typed name")
    before = first.version()
    shutil.copy(tmp_path / "a.sqlite", tmp_path / "copy.sqlite")
    (tmp_path / "a.sqlite").unlink()
    again = MeetingStore(tmp_path / "a.sqlite")
    again.judge("q1", "d1", 0, by="Bob", via="typed name")
    assert again.version()[:3] == before[:3] == (1, 0, 0)  # the same ids...
    assert again.version().content != before.content  # ...other content
    # ...another record
    assert again.identity() != MeetingStore(tmp_path / "copy.sqlite").identity()
    assert (
        MeetingStore(tmp_path / "copy.sqlite", create=False).identity()
        == MeetingStore(tmp_path / "copy.sqlite").identity()
    )


def test_a_reader_never_writes_the_file(tmp_path: Path) -> None:
    """An empty file where a record goes: a reader says it holds no entry and what completes it,
    and writes nothing; another kind of file is no meeting record."""
    empty = tmp_path / "empty.sqlite"
    empty.write_bytes(b"")
    with pytest.raises(MeetingError, match="it holds no entry yet; the next entry"):
        MeetingStore(empty, create=False)
    assert empty.read_bytes() == b""
    done = cli("judgments", "export", str(empty))
    assert done.returncode == 2 and "holds no entry yet" in done.stderr
    assert empty.read_bytes() == b""
    other = tmp_path / "other.sqlite"
    with contextlib.closing(sqlite3.connect(other)) as db, db:
        db.execute("CREATE TABLE photos (id INTEGER)")
    with pytest.raises(MeetingError, match="not a meeting record"):
        MeetingStore(other, create=False)


@pytest.mark.slow
def test_cli_refuses_a_grade_outside_the_collections_scale_and_leaves_the_record_as_it_was(
    tmp_path: Path,
) -> None:
    import shutil

    folder = tmp_path / "cranfield"
    shutil.copytree(CRANFIELD, folder)
    record = folder / "rankviz-notes.sqlite"
    done = cli("judgments", "add", str(folder), "1", "184", "44", "--by", "Ann")
    assert (
        done.returncode == 2
        and ("grade 44 is not one of the grades of this collection: 0, 1, 2, 3, 4") in done.stderr
    )
    assert not record.exists()  # refused before the record is made
    assert cli("judgments", "add", str(folder), "1", "184", "3", "--by", "Ann").returncode == 0
    before = record.read_bytes()
    assert cli("judgments", "add", str(folder), "1", "185", "-1", "--by", "Ann").returncode == 2
    bad = tmp_path / "bad.qrels"
    bad.write_text("1 0 12 2\n1 0 13 9\n")
    imported = cli("judgments", "import", str(folder), str(bad), "--by", "Ann")
    assert imported.returncode == 2 and "grade 9" in imported.stderr
    assert record.read_bytes() == before


@pytest.mark.slow
def test_the_report_command_writes_a_new_file_never_an_input(tmp_path: Path) -> None:
    import json
    import shutil

    folder = tmp_path / "cranfield"
    shutil.copytree(CRANFIELD, folder)
    assert cli("report", str(folder)).returncode == 2  # no record yet: nothing to report
    MeetingStore(folder).judge("1", "184", 4, by="Ann", via="typed name", note="decisive")
    qrels = (folder / "qrels.txt").read_bytes()
    refused = cli("report", str(folder), "bm25", "dense", "-o", str(folder / "qrels.txt"))
    assert refused.returncode == 2 and "an input of the report" in refused.stderr
    assert (folder / "qrels.txt").read_bytes() == qrels
    done = cli("report", str(folder), "bm25", "dense", "--format", "json")
    report = json.loads(done.stdout)
    assert (
        report["baseline"] == "bm25"
        and report["run"] == "dense"
        and [q["qid"] for q in report["queries"]] == ["1"]
    )
    row = next(r for r in report["queries"][0]["documents"] if r["docid"] == "184")
    assert (row["meeting"], row["by"], row["qrels file"]) == (4, "Ann", 3)
    means = {(m["run"], m["measure"]): m for m in report["means"]}
    assert means[("dense", "AP")]["change"] == pytest.approx(
        means[("dense", "AP")]["with the meeting's"] - means[("dense", "AP")]["qrels file"]
    )


def test_a_record_knows_its_collection_from_its_first_judgment_and_refuses_another(
    tmp_path: Path,
) -> None:
    """A bare .sqlite file judged without a collection once moved another collection's numbers and
    took grade 44: now its first writer names the collection (``--collection``), which fixes the
    grades it takes and the one collection it may be used for."""
    notes = str(tmp_path / "notes.sqlite")
    bare = cli("judgments", "add", notes, "1", "184", "2", "--by", "first")
    assert (
        bare.returncode == 2 and "give --collection DIR" in bare.stderr and not Path(notes).exists()
    )
    assert (
        cli(
            "judgments",
            "add",
            notes,
            "1",
            "184",
            "2",
            "--by",
            "first",
            "--collection",
            str(CRANFIELD),
        ).returncode
        == 0
    )
    assert MeetingStore(notes, create=False).owner() == ("Cranfield", (0, 4))
    # the file alone: its recorded scale
    again = cli("judgments", "add", notes, "1", "185", "44", "--by", "first")
    assert (
        again.returncode == 2
        and "grade 44 is not one of the grades of this collection" in again.stderr
    )
    assert cli("judgments", "add", notes, "1", "185", "3", "--by", "first").returncode == 0
    elsewhere = cli("evaluate", str(DL_HARD), "bm25", "--judgments", notes)
    assert elsewhere.returncode == 2 and "belongs to the collection 'Cranfield'" in elsewhere.stderr
    assert "Traceback" not in elsewhere.stderr and elsewhere.stdout == ""
    assert cli("evaluate", str(CRANFIELD), "bm25", "--judgments", notes).returncode == 0


def test_a_grade_written_against_a_newer_one_is_refused_whole_and_names_it(tmp_path: Path) -> None:
    from rankviz.io.meeting import GradeConflict

    store = MeetingStore(tmp_path / "m.sqlite")
    store.judge("q1", "d1", 0, by="Ann", via="typed name")
    seen = {("q1", "d1"): None, ("q1", "d2"): None}  # Bob's page was drawn before Ann's grade
    with pytest.raises(GradeConflict) as conflict:
        store.judge_many([("q1", "d1", 2), ("q1", "d2", 1)], by="Bob", via="typed name", seen=seen)
    assert conflict.value.conflicts == [("q1", "d1", 0, "Ann")]
    assert store.latest() == {("q1", "d1"): 0}  # all or none: d2 is not recorded either
    done = store.judge_many(
        [("q1", "d1", 0), ("q1", "d2", 1)],
        by="Bob",
        via="typed name",
        seen=seen,
        notes={("q1", "d2"): "why"},
    )
    # the same grade as hers: no conflict
    assert [(j.docid, j.note) for j in done] == [("d1", ""), ("d2", "why")]
    # he saw the grade in force
    store.judge_many([("q1", "d1", 3)], by="Bob", via="typed name", seen={("q1", "d1"): 0})
    assert store.latest() == {("q1", "d1"): 3, ("q1", "d2"): 1}


def test_the_records_version_follows_a_grade_edited_in_place_and_a_copy_moved_over_it(
    tmp_path: Path,
) -> None:
    """The version is the cache key of everything built on the record: the same ids with another
    grade (a hand edit, a diverged copy moved over it) must give another version, and an untouched
    record the same one (its digest is then not read again)."""
    import contextlib
    import os
    import shutil
    import sqlite3

    path = tmp_path / "m.sqlite"
    store = MeetingStore(path)
    store.judge("q1", "d1", 2, by="Ann", via="typed name")
    first = store.version()
    assert store.version() == first
    shutil.copy(path, tmp_path / "copy.sqlite")
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        db.execute("UPDATE judgments SET grade = 0 WHERE id = 1")
    edited = store.version()
    assert edited[:3] == first[:3] and edited.content != first.content
    # the copy (grade 2 again, the same name) moved back over it
    os.replace(tmp_path / "copy.sqlite", path)
    assert store.version().content == first.content != edited.content


def test_one_query_regraded_keeps_the_grades_of_its_tied_documents_in_the_tables_order() -> None:
    """Found by the property above: a tie group ordered by docid descending puts the run's rows out
    of the run's order, and regrading one query read their grades as if they were in it (``a``,
    judged, came back unjudged)."""
    from rankviz.io.frames import run_from_frame
    from rankviz.ranking.ordering import rank
    from rankviz.ranking.regrading import regrade

    frame = pd.DataFrame([("q1", "a", 0.0), ("q1", "b", 0.0)], columns=["qid", "docid", "score"])
    run = run_from_frame(frame)
    qrels = qrels_from_dict({"q1": {"a": 0}})
    merged = merged_qrels(qrels, {("q1", "a"): 1})
    table = rank(run, qrels, ties="trec_eval")
    assert list(table.run_rows) == [1, 0]  # b before a: the rows out of the run's order
    again = regrade(table, run, merged, queries={"q1"})
    assert again.judged.tolist() == [False, True] and again.grade.tolist() == [0, 1]
