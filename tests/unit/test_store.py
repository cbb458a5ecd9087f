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
from rankviz.io.store import RunStore, trim_to_budget, written

RUN = CRANFIELD / "runs" / "bm25.run.gz"


@pytest.fixture(autouse=True)
def settled(monkeypatch) -> None:
    """The files each test writes as they are a resolution later: their stamps settled (the racy
    ones are the tests at the end, on the real clock)."""
    from rankviz.io import stamps

    monkeypatch.setattr(stamps, "_now", lambda: stamps.time.time_ns() + stamps.RESOLUTION_NS)


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


def test_a_flipped_byte_or_a_planted_file_is_never_served(tmp_path) -> None:
    """A stored file whose columns changed (one byte of a score flipped, the file still valid
    Arrow) or another run's file copied under this run's key is read again, never served: each
    carries the stamp it was read under and a checksum of its columns."""
    store, calls = RunStore(tmp_path / "store", budget=2**30), []
    other = tmp_path / "other.run.gz"
    shutil.copy(CRANFIELD / "runs" / "dense.run.gz", other)
    store.get(RUN, "bm25", _reader(RUN, "bm25", calls))
    store.get(other, "dense", _reader(other, "dense", calls))
    written()
    stored = {name: store._stored(path)[0] for name, path in (("bm25", RUN), ("dense", other))}
    data = bytearray(stored["bm25"].read_bytes())
    score = rv.read_run(RUN).score[0].tobytes()
    at = data.find(score)
    assert at > 0
    data[at] ^= 0x01  # the first score's last bit: a number still, another one
    stored["bm25"].write_bytes(bytes(data))
    _same_run(store.get(RUN, "bm25", _reader(RUN, "bm25", calls)), rv.read_run(RUN, name="bm25"))
    assert len(calls) == 3
    written()
    shutil.copy(stored["bm25"], stored["dense"])  # bm25's columns under dense's key
    dense = store.get(other, "dense", _reader(other, "dense", calls))
    _same_run(dense, rv.read_run(other, name="dense"))
    assert len(calls) == 4


def test_a_killed_writes_temporary_file_is_removed_at_the_next_start(tmp_path) -> None:
    """A write killed half-way leaves its temporary file: a restarted server removes it once it
    is older than any write takes; one being written (by another server) is left."""
    runs = tmp_path / "store" / "runs"
    runs.mkdir(parents=True)
    dead, live = runs / ".tmp-dead", runs / ".tmp-live"
    dead.write_bytes(b"x" * 1000)
    live.write_bytes(b"y")
    old = run_store.time.time() - run_store.STALE_TEMPORARY - 1
    os.utime(dead, (old, old))
    run_store._SWEPT.clear()  # a new process
    RunStore(tmp_path / "store", budget=2**30).get(RUN, "bm25", _reader(RUN, "bm25", []))
    assert not dead.exists() and live.exists()
    written()


def test_the_store_is_the_users_alone(tmp_path) -> None:
    store = RunStore(tmp_path / "cache" / "rankviz", budget=2**30)
    store.get(RUN, "bm25", _reader(RUN, "bm25", []))
    written()
    for folder in (tmp_path / "cache", tmp_path / "cache" / "rankviz", store.folder / "runs"):
        assert folder.stat().st_mode & 0o777 == 0o700, folder


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
    trim_to_budget(tmp_path / "store" / "runs", ".arrow", size[paths[0]] + size[paths[2]])
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


@pytest.fixture
def one_second_folder(tmp_path):
    """A folder on a real file system that keeps whole seconds (ext4 with 128-byte inodes, as
    ext3 and many NFS mounts do), loop-mounted for the test; skipped where that cannot be done."""
    if os.geteuid() != 0 or not shutil.which("mkfs.ext4") or not shutil.which("mount"):
        pytest.skip("mounting a one-second file system needs root, mkfs.ext4 and mount")
    image, mounted = tmp_path / "fs.img", tmp_path / "one-second"
    mounted.mkdir()
    with open(image, "wb") as handle:
        handle.truncate(32 << 20)
    made = subprocess.run(
        ["mkfs.ext4", "-q", "-F", "-I", "128", str(image)], capture_output=True, text=True
    )
    done = subprocess.run(["mount", "-o", "loop", str(image), str(mounted)], capture_output=True)
    if made.returncode or done.returncode:
        pytest.skip(f"cannot loop-mount an ext4 image here: {done.stderr.decode().strip()}")
    try:
        yield mounted
    finally:
        subprocess.run(["umount", str(mounted)], check=True)


@pytest.mark.slow
def test_a_run_rewritten_within_its_second_on_a_one_second_file_system(
    one_second_folder, tmp_path, monkeypatch
) -> None:
    """The real clock: a run read and then rewritten in place within the same second keeps its
    stamp there; it is not stored while racy, so the rewrite is what the store gives, before and
    after a restart."""
    from rankviz.io import stamps

    monkeypatch.setattr(stamps, "_now", stamps.time.time_ns)  # the real clock
    path = one_second_folder / "r.run"
    first, second = "q1 Q0 a 1 2.0 t\nq1 Q0 b 2 1.0 t\n", "q1 Q0 a 1 1.0 t\nq1 Q0 b 2 2.0 t\n"
    store = RunStore(tmp_path / "store", budget=2**30)
    for _ in range(10):  # until both writes fall within one second
        path.write_text(first)
        before = stamps.stamp(path)
        assert before[0] % 10**9 == 0  # whole seconds
        served = store.get(path, "r", _reader(path, "r", []))
        with open(path, "r+") as handle:
            handle.write(second)
        if stamps.stamp(path) == before:
            break
    else:
        pytest.fail("ten pairs of writes never fell within one second")
    assert list(served.score) == [2.0, 1.0]
    written()
    while stamps.settled_stamp(path) is None:  # until the stamp names the bytes
        stamps.time.sleep(0.05)
    calls: list = []
    assert list(store.get(path, "r", _reader(path, "r", calls)).score) == [1.0, 2.0]
    assert calls == [path]
    written()
    run_store._SWEPT.clear()  # restarted
    again = RunStore(tmp_path / "store", budget=2**30).get(path, "r", _reader(path, "r", calls))
    assert list(again.score) == [1.0, 2.0] and calls == [path]  # from the store
