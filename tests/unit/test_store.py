"""The disk store of parsed runs: the same run back, keyed on the file's identity, never stale,
never in the way, written behind the page."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading

import numpy as np
import pytest
from conftest import CRANFIELD

import rankviz as rv
from rankviz.io import store as run_store
from rankviz.io.store import RunStore, _trim, written

RUN = CRANFIELD / "runs" / "bm25.run.gz"


def _reader(path, name, calls):
    def read():
        calls.append(path)
        return rv.read_run(path, name=name)

    return read


def _same_run(a: rv.Run, b: rv.Run) -> None:
    assert list(a.query_ids) == list(b.query_ids)
    np.testing.assert_array_equal(a.qid_codes, b.qid_codes)
    assert a.docids.to_pylist() == b.docids.to_pylist()
    np.testing.assert_array_equal(a.score, b.score)
    np.testing.assert_array_equal(a.rank, b.rank)
    np.testing.assert_array_equal(a.docid_keys.values, b.docid_keys.values)
    assert a.docid_keys.numeric == b.docid_keys.numeric


@pytest.mark.parametrize("docids", ["numbers", "strings"])
def test_a_stored_run_is_the_run_read(tmp_path, docids) -> None:
    path = tmp_path / "r.run"
    if docids == "numbers":
        shutil.copy(RUN, path.with_suffix(".gz"))
        path = path.with_suffix(".gz")
    else:
        path.write_text(
            "".join(
                f"q{q} Q0 doc-{q}-{d} {d + 1} {9 - d // 2}.0 t\n"
                for q in range(5)
                for d in range(9)
            )
        )
    store, calls = RunStore(tmp_path / "store", budget=2**30), []
    first = store.get(path, "a", _reader(path, "a", calls))
    written()
    again = store.get(path, "b", _reader(path, "b", calls))
    assert len(calls) == 1 and again.name == "b" and again.source == str(path)
    _same_run(first, again)
    assert not again.score.flags.writeable  # a view of the stored file, not a copy
    qrels = rv.read_qrels(CRANFIELD / "qrels.txt")
    for measure in ("AP", "nDCG@10", "RR"):
        np.testing.assert_array_equal(
            rv.evaluate(qrels, first, [measure]).values[measure],
            rv.evaluate(qrels, again, [measure]).values[measure],
        )


def test_a_file_is_read_by_its_parse_alone_never_for_its_key(tmp_path, monkeypatch) -> None:
    """The store knows a file by its path and stamp: it opens the file neither to look a run up
    nor to store it (the reader's reading is the only one)."""
    import builtins

    path = tmp_path / "r.run"
    path.write_text("q1 Q0 a 1 2.0 t\nq1 Q0 b 2 1.0 t\n")
    reading, real_open = [], builtins.open

    def watched(file, *args, **kwargs):
        assert str(file) != str(path) or reading, "the file was opened outside its parse"
        return real_open(file, *args, **kwargs)

    def read():
        reading.append(True)
        try:
            return rv.read_run(path, name="r")
        finally:
            reading.pop()

    monkeypatch.setattr(builtins, "open", watched)
    store, calls = RunStore(tmp_path / "store", budget=2**30), []
    first = store.get(path, "r", lambda: calls.append(1) or read())
    written()
    again = RunStore(tmp_path / "store", budget=2**30).get(
        path, "r", lambda: calls.append(1) or read()
    )
    assert len(calls) == 1
    _same_run(first, again)


def test_an_edited_or_touched_file_is_read_again(tmp_path) -> None:
    path = tmp_path / "r.run"
    path.write_text("q1 Q0 a 1 2.0 t\nq1 Q0 b 2 1.0 t\n")
    store, calls = RunStore(tmp_path / "store", budget=2**30), []
    store.get(path, "r", _reader(path, "r", calls))
    written()
    assert store.get(path, "r", _reader(path, "r", calls)) and len(calls) == 1
    os.utime(path, ns=(1, 1))  # another stamp: the same bytes are read again, never trusted
    written()
    assert (
        store.get(path, "r", _reader(path, "r", calls)).docids.to_pylist() == ["a", "b"]
        and len(calls) == 2
    )
    written()
    stat = path.stat()
    path.write_text("q1 Q0 c 1 2.0 t\nq1 Q0 d 2 1.0 t\n")
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # same modification time, new content
    assert (
        store.get(path, "r", _reader(path, "r", calls)).docids.to_pylist() == ["c", "d"]
        and len(calls) == 3
    )


def test_a_damaged_store_file_is_replaced(tmp_path) -> None:
    store, calls = RunStore(tmp_path / "store", budget=2**30), []
    store.get(RUN, "bm25", _reader(RUN, "bm25", calls))
    written()
    (stored,) = (tmp_path / "store" / "runs").glob("*.arrow")
    stored.write_bytes(stored.read_bytes()[:100])
    _same_run(store.get(RUN, "bm25", _reader(RUN, "bm25", calls)), rv.read_run(RUN, name="bm25"))
    written()
    assert len(calls) == 2 and stored.stat().st_size > 100


def test_a_store_that_cannot_be_written_is_skipped(tmp_path) -> None:
    blocked = tmp_path / "store"
    blocked.write_text("a file where the folder should be")
    calls: list = []
    run = RunStore(blocked, budget=2**30).get(RUN, "bm25", _reader(RUN, "bm25", calls))
    written()  # the writer's failure is not the reader's
    assert len(run) == len(rv.read_run(RUN)) and len(calls) == 1


def test_the_store_keeps_its_budget_dropping_the_least_recently_used(tmp_path) -> None:
    paths = sorted((CRANFIELD / "runs").glob("*.gz"))[:3]
    store = RunStore(tmp_path / "store", budget=2**30)
    stored = {}
    for index, path in enumerate(paths):
        before = set((tmp_path / "store" / "runs").glob("*.arrow"))
        store.get(path, path.name, _reader(path, path.name, []))
        written()
        (stored[path],) = set((tmp_path / "store" / "runs").glob("*.arrow")) - before
        os.utime(stored[path], (1_000_000 + index, 1_000_000 + index))  # used in this order
    # the oldest is used again: now the newest
    store.get(paths[0], "again", _reader(paths[0], "again", []))
    written()
    size = {p: f.stat().st_size for p, f in stored.items()}
    _trim(tmp_path / "store" / "runs", ".arrow", size[paths[0]] + size[paths[2]])
    assert [f.exists() for f in stored.values()] == [True, False, True]


def test_a_run_waiting_for_the_writer_is_served_from_memory_and_few_wait(tmp_path, monkeypatch):
    """A run is returned before it is on disk: asked again meanwhile, it is the run in memory (not
    read twice); a third file read while two wait for the writer waits for the disk."""
    gate = threading.Event()
    real = RunStore._write
    monkeypatch.setattr(RunStore, "_write", lambda self, *a: gate.wait() and real(self, *a))
    paths = sorted((CRANFIELD / "runs").glob("*.gz"))[:3]
    store, calls = RunStore(tmp_path / "store", budget=2**30), []
    first = store.get(paths[0], "a", _reader(paths[0], "a", calls))
    again = store.get(paths[0], "b", _reader(paths[0], "b", calls))
    assert len(calls) == 1 and again.name == "b" and again.score is first.score
    store.get(paths[1], "c", _reader(paths[1], "c", calls))
    assert run_store.WAITING_WRITES == 2
    third = threading.Thread(target=store.get, args=(paths[2], "d", _reader(paths[2], "d", calls)))
    third.start()
    third.join(0.5)
    assert third.is_alive()  # held back until a write is done
    gate.set()
    third.join()
    written()
    assert len(list((tmp_path / "store" / "runs").glob("*.arrow"))) == 3 and len(calls) == 3


def test_a_run_returned_is_written_before_the_process_ends(tmp_path) -> None:
    code = (
        "import sys, rankviz as rv\n"
        "from rankviz.io.store import RunStore\n"
        "store = RunStore(sys.argv[1], budget=2**30)\n"
        "store.get(sys.argv[2], 'r', lambda: rv.read_run(sys.argv[2]))"
    )
    subprocess.run([sys.executable, "-c", code, str(tmp_path), str(RUN)], check=True)
    (stored,) = (tmp_path / "runs").glob("*.arrow")
    _same_run(RunStore(tmp_path, budget=2**30).get(RUN, "bm25", lambda: None), rv.read_run(RUN))
