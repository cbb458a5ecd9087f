"""The disk store of parsed runs: the same run back, keyed on content, never stale, never in the
way."""

from __future__ import annotations

import os
import shutil

import numpy as np
import pytest
from conftest import CRANFIELD

import rankviz as rv
from rankviz.io.store import RunStore, _trim

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


@pytest.mark.parametrize("name", ["bm25.run.gz", "plain.txt"])
def test_a_file_not_seen_before_is_read_once_for_its_hash_and_its_parse(tmp_path, name) -> None:
    import hashlib

    path = tmp_path / name
    if name.endswith(".gz"):
        shutil.copy(RUN, path)
    else:
        path.write_text("q1 Q0 a 1 2.0 t\nq1 Q0 b 2 1.0 t\nq2 Q0 a 1 5.0 t\n")
    given: list[bytes] = []

    def parse(data: bytes) -> rv.Run:
        given.append(data)
        return rv.read_run(data, name="r", filename=str(path))

    def refuse():
        raise AssertionError("the file was read a second time")

    store = RunStore(tmp_path / "store", budget=2**30)
    first = store.get(path, "r", refuse, parse=parse)
    assert given == [path.read_bytes()] and first.source == str(path)
    _same_run(first, rv.read_run(path))
    (stored,) = (tmp_path / "store" / "runs").glob("*.arrow")
    # the hash of the bytes parsed
    assert stored.name.startswith(hashlib.sha256(path.read_bytes()).hexdigest())
    again = store.get(path, "r", refuse, parse=lambda data: refuse())
    _same_run(first, again)
    assert not again.score.flags.writeable


def test_an_edited_file_is_read_again_and_a_touched_one_is_not(tmp_path) -> None:
    path = tmp_path / "r.run"
    path.write_text("q1 Q0 a 1 2.0 t\nq1 Q0 b 2 1.0 t\n")
    store, calls = RunStore(tmp_path / "store", budget=2**30), []
    store.get(path, "r", _reader(path, "r", calls))
    os.utime(path, ns=(1, 1))  # the stamp changes, the content does not: found by its hash
    assert (
        store.get(path, "r", _reader(path, "r", calls)).docids.to_pylist() == ["a", "b"]
        and len(calls) == 1
    )
    stat = path.stat()
    path.write_text("q1 Q0 c 1 2.0 t\nq1 Q0 d 2 1.0 t\n")
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # same modification time, new content
    assert (
        store.get(path, "r", _reader(path, "r", calls)).docids.to_pylist() == ["c", "d"]
        and len(calls) == 2
    )


def test_a_damaged_store_file_is_replaced(tmp_path) -> None:
    store, calls = RunStore(tmp_path / "store", budget=2**30), []
    store.get(RUN, "bm25", _reader(RUN, "bm25", calls))
    (stored,) = (tmp_path / "store" / "runs").glob("*.arrow")
    stored.write_bytes(stored.read_bytes()[:100])
    _same_run(store.get(RUN, "bm25", _reader(RUN, "bm25", calls)), rv.read_run(RUN, name="bm25"))
    assert len(calls) == 2 and stored.stat().st_size > 100


def test_a_store_that_cannot_be_written_is_skipped(tmp_path) -> None:
    blocked = tmp_path / "store"
    blocked.write_text("a file where the folder should be")
    calls: list = []
    run = RunStore(blocked, budget=2**30).get(RUN, "bm25", _reader(RUN, "bm25", calls))
    assert len(run) == len(rv.read_run(RUN)) and len(calls) == 1


def test_the_store_keeps_its_budget_dropping_the_least_recently_used(tmp_path) -> None:
    paths = sorted((CRANFIELD / "runs").glob("*.gz"))[:3]
    store = RunStore(tmp_path / "store", budget=2**30)
    stored = {}
    for index, path in enumerate(paths):
        before = set((tmp_path / "store" / "runs").glob("*.arrow"))
        store.get(path, path.name, _reader(path, path.name, []))
        (stored[path],) = set((tmp_path / "store" / "runs").glob("*.arrow")) - before
        os.utime(stored[path], (1_000_000 + index, 1_000_000 + index))  # used in this order
    # the oldest is used again: now the newest
    store.get(paths[0], "again", _reader(paths[0], "again", []))
    size = {p: f.stat().st_size for p, f in stored.items()}
    _trim(tmp_path / "store" / "runs", ".arrow", size[paths[0]] + size[paths[2]])
    assert [f.exists() for f in stored.values()] == [True, False, True]
