"""The stream and Dask engines give the in-memory engine's numbers and errors, whatever the
pieces."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys

import numpy as np
import pytest
from conftest import CRANFIELD, DL_HARD, pickled_with_texts
from generated import collections, write_files
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankviz as rv
from rankviz._memory import TUNABLES
from rankviz.cli import main
from rankviz.evaluation import dask_engine
from rankviz.evaluation.engines import chosen_engine, evaluate_sources
from rankviz.evaluation.pieces import RunSource
from rankviz.io import blocks, byte_ranges
from rankviz.settings.engine_settings import EngineSettings
from rankviz.settings.eval_settings import EvalSettings

MEASURES = [
    "RR@10",
    "RR",
    "AP",
    "nDCG@5",
    "nDCG",
    "ERR@5",
    "Bpref",
    "RBP(p=0.8)",
    "Judged@5",
    "P@5",
    "AP(judged_only=True)",
]


def _same(a: rv.Evaluation, b: rv.Evaluation) -> None:
    assert list(a.qids) == list(b.qids) and a.runs == b.runs and a.ignored == b.ignored
    for key, values in a.values.items():
        np.testing.assert_array_equal(values, b.values[key], err_msg=key)  # equal, not close


@settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    case=collections(min_grade=0),
    layout=st.sampled_from(["as drawn", "score order"]),
    piece_bytes=st.integers(1, 400),
    block_queries=st.sampled_from([None, 1, 2, 3]),
    ties=st.sampled_from(["trec_eval", "expected", "random", "optimistic", "run"]),
    missing=st.sampled_from(["zero", "skip"]),
)
@pytest.mark.slow
def test_the_stream_engine_gives_the_in_memory_values(
    tmp_path_factory, monkeypatch, case, layout, piece_bytes, block_queries, ties, missing
) -> None:
    """Pieces cut anywhere (inside ties, one query each, queries of the qrels in none of them)."""
    qrels_dict, run_dict = case
    if missing == "skip" and not set(run_dict) & set(qrels_dict):
        return  # nothing to average: both engines refuse it (tested below)
    qrels_path, run_path = write_files(tmp_path_factory.mktemp("s"), qrels_dict, run_dict, layout)
    qrels = rv.read_qrels(qrels_path)
    conventions = EvalSettings(ties=ties, missing=missing, trials=3, seed=11)
    sources = [RunSource.of(run_path)]
    memory = evaluate_sources(
        qrels, sources, MEASURES, conventions, EngineSettings(engine="memory")
    )
    monkeypatch.setattr(blocks, "PIECE_BYTES", piece_bytes)
    engine = EngineSettings(engine="stream", block_queries=block_queries)
    streamed = evaluate_sources(qrels, sources, MEASURES, conventions, engine)
    _same(memory, streamed)


def test_a_block_s_queries_are_looked_up_once(tmp_path, monkeypatch) -> None:
    """The stream engine finds a block's queries among all the qrels' and hands what it found to
    the ranking of the block's judged queries, which does not look them up again among those:
    one lookup a block (two before), the memory engine's values. The run lists the queries in
    another order than the qrels, some unjudged, so no lookup is the identity."""
    from rankviz.io.id_keys import IdIndex

    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"q{q:02d} 0 d{q % 7} {q % 3}\n" for q in range(40)))
    run = tmp_path / "r.run"
    run.write_text(
        "".join(
            f"q{q:02d} Q0 d{d} {d + 1} {9 - d}.0 r\n" for q in range(45, 0, -2) for d in range(8)
        )
    )
    lookups: list[tuple[int, int]] = []  # (ids looked up, ids of the index)
    found, merged = IdIndex._found, IdIndex._index_positions

    def counted(self, keys, fits):
        lookups.append((len(keys), len(self.ids)))
        return found(self, keys, fits)

    def counted_merge(self, other):  # a reader's index of a piece's ids, merged
        lookups.append((len(other.ids), len(self.ids)))
        return merged(self, other)

    monkeypatch.setattr(IdIndex, "_found", counted)
    monkeypatch.setattr(IdIndex, "_index_positions", counted_merge)
    sources = [RunSource.of(run)]
    engine = EngineSettings(engine="stream", block_queries=5)
    streamed = evaluate_sources(rv.read_qrels(qrels), sources, MEASURES, engine=engine)
    assert len(lookups) >= 5 and {among for _, among in lookups} == {40}  # no block's qrels
    assert sum(looked_up for looked_up, _ in lookups) == 23  # each query once
    lookups.clear()
    _same(evaluate_sources(rv.read_qrels(qrels), sources, MEASURES), streamed)
    assert lookups == [(23, 40)]


def _cli(*argv: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(list(argv)) == 0
    return out.getvalue()


@pytest.mark.slow
@pytest.mark.parametrize("piece_bytes", [50, 4096, 10**7])
def test_stream_output_is_byte_for_byte_the_memory_output(monkeypatch, piece_bytes) -> None:
    monkeypatch.setattr(blocks, "PIECE_BYTES", piece_bytes)
    for collection in (CRANFIELD, DL_HARD):
        args = [
            str(collection),
            "--per-query",
            "--format",
            "tsv",
            "-m",
            "nDCG@10",
            "-m",
            "ERR@20",
            "-m",
            "RBP(p=0.5)",
        ]
        assert _cli("evaluate", *args, "--engine", "stream") == _cli(
            "evaluate", *args, "--engine", "memory"
        )


def _lines(n_queries: int, depth: int, bad: str | None = None, at: int = -1) -> str:
    rows = [
        f"q{q} Q0 d{d} {d + 1} {depth - d}.5 run\n" for q in range(n_queries) for d in range(depth)
    ]
    if bad is not None:
        rows[at] = bad
    return "".join(rows)


@pytest.mark.parametrize(
    ("bad", "at"),
    [
        ("q7 Q0 d3 4 x run\n", 7 * 10 + 3),  # a score that is no number, in a later piece
        ("q8 Q0 d0 5 2.5 run\n", 8 * 10 + 5),  # a docid twice for one query
        ("q9 Q0 d1 2\n", 9 * 10 + 1),  # too few fields
    ],
)
def test_errors_name_the_files_line_on_every_engine(tmp_path, monkeypatch, bad, at) -> None:
    run = tmp_path / "r.run"
    run.write_text(_lines(12, 10, bad, at))
    qrels = tmp_path / "q.txt"
    qrels.write_text("q1 0 d1 1\n")
    messages = []
    for engine, piece_bytes in (("memory", None), ("stream", 200), ("stream", 10**6)):
        if piece_bytes:
            monkeypatch.setattr(blocks, "PIECE_BYTES", piece_bytes)
        with pytest.raises(rv.FormatError) as info:
            evaluate_sources(
                rv.read_qrels(qrels),
                [RunSource.of(run)],
                ["AP"],
                engine=EngineSettings(engine=engine),
            )
        messages.append(str(info.value))
    assert messages[0] == messages[1] == messages[2]
    assert f"line {at + 1}:" in messages[0]


def test_a_query_that_comes_back_later_is_named_with_its_line(tmp_path, monkeypatch) -> None:
    run = tmp_path / "r.run"
    text = _lines(6, 10) + "q2 Q0 extra 11 0.1 run\n"
    run.write_text(text)
    qrels = rv.read_qrels(CRANFIELD / "qrels.txt")
    for piece_bytes in (100, 10**6):  # in a later piece, and in the same piece
        monkeypatch.setattr(blocks, "PIECE_BYTES", piece_bytes)
        with pytest.raises(rv.FormatError) as info:
            evaluate_sources(
                qrels, [RunSource.of(run)], ["AP"], engine=EngineSettings(engine="stream")
            )
        assert (
            info.value.line_no == 61
            and "query 'q2' comes back after other queries" in info.value.reason
        )
        assert "sort -s -k1,1" in info.value.reason
    memory = evaluate_sources(
        qrels, [RunSource.of(run)], ["AP"], engine=EngineSettings(engine="memory")
    )
    assert memory.values["AP"].shape[1] == 1  # the in-memory engine takes such a run as it is


def test_crlf_comments_gzip_and_a_long_query_stream_alike(tmp_path, monkeypatch) -> None:
    body = "# a comment\r\n" + _lines(5, 40).replace("\n", "\r\n") + "\r\n# trailing comment\r\n"
    import gzip

    run = tmp_path / "r.run.gz"
    run.write_bytes(gzip.compress(body.encode()))
    qrels = tmp_path / "q.txt"
    qrels.write_text("q1 0 d1 1\nq3 0 d7 2\nq9 0 d1 1\n")
    sources, judged = [RunSource.of(run)], rv.read_qrels(qrels)
    memory = evaluate_sources(judged, sources, MEASURES, engine=EngineSettings(engine="memory"))
    for piece_bytes in (7, 300, 10**6):  # 7 bytes: every query is longer than a piece
        monkeypatch.setattr(blocks, "PIECE_BYTES", piece_bytes)
        _same(
            memory,
            evaluate_sources(judged, sources, MEASURES, engine=EngineSettings(engine="stream")),
        )


def test_pieces_hold_whole_queries_and_the_files_bytes(tmp_path) -> None:
    run = tmp_path / "r.run"
    run.write_bytes(b"\xef\xbb\xbf" + _lines(30, 7).encode())
    for piece_bytes in (1, 64, 1000):
        found = list(blocks.pieces(run, piece_bytes=piece_bytes))
        assert b"".join(p.data for p in found) == run.read_bytes()
        queries = [q for p in found for q in p.read(name="r").query_ids]
        assert queries == [f"q{i}" for i in range(30)]
        assert [p.first_line for p in found] == [
            1 + 7 * int(p.read(name="r").query_ids[0][1:]) for p in found
        ]


def test_skip_with_no_answered_query_is_refused_on_every_engine(tmp_path) -> None:
    run = tmp_path / "r.run"
    run.write_text(_lines(2, 3))
    qrels = rv.read_qrels(CRANFIELD / "qrels.txt")
    for engine in ("memory", "stream"):
        with pytest.raises(rv.RankvizError, match="answers none of the judged queries"):
            evaluate_sources(
                qrels,
                [RunSource.of(run)],
                ["AP"],
                EvalSettings(missing="skip"),
                EngineSettings(engine=engine),
            )


def test_auto_streams_large_run_files_only(tmp_path, monkeypatch) -> None:
    import rankviz.evaluation.engines

    small, large = tmp_path / "small.run", tmp_path / "large.run"
    small.write_text(_lines(1, 2))
    large.write_text(_lines(40, 10))
    monkeypatch.setattr(rankviz.evaluation.engines, "STREAM_ABOVE_BYTES", 1000)
    auto = EngineSettings()
    assert chosen_engine([RunSource.of(small)], auto) == "memory"
    assert chosen_engine([RunSource.of(small), RunSource.of(large)], auto) == "stream"
    with pytest.raises(rv.OptionError, match="reads TREC run files"):
        chosen_engine([RunSource.of(tmp_path / "r.csv")], EngineSettings(engine="stream"))


def test_engine_options_are_checked() -> None:
    with pytest.raises(rv.OptionError, match="options of engine=dask"):
        EngineSettings(engine="stream", workers=2)
    with pytest.raises(rv.OptionError, match="not both"):
        EngineSettings(engine="dask", workers=2, scheduler="tcp://127.0.0.1:1")
    with pytest.raises(rv.OptionError):
        EngineSettings(block_queries=0)


@pytest.mark.slow
def test_no_progress_bar_when_stderr_is_not_a_terminal() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "rankviz",
            "evaluate",
            str(CRANFIELD),
            "bm25",
            "-m",
            "AP",
            "--engine",
            "stream",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stderr == "" and "AP" in done.stdout


def test_the_progress_callback_counts_every_byte(tmp_path, monkeypatch) -> None:
    run = tmp_path / "r.run"
    run.write_text(_lines(20, 10))
    monkeypatch.setattr(blocks, "PIECE_BYTES", 500)
    counted: list[int] = []
    qrels = rv.read_qrels(CRANFIELD / "qrels.txt")
    for engine in ("memory", "stream"):
        counted.clear()
        evaluate_sources(
            qrels,
            [RunSource.of(run)],
            ["AP"],
            engine=EngineSettings(engine=engine),
            progress=counted.append,
        )
        assert sum(counted) == run.stat().st_size and (len(counted) > 1) == (engine == "stream")


@pytest.mark.slow
def test_the_memory_engine_holds_one_run_at_a_time(monkeypatch) -> None:
    """Each run file is read while nothing of the run before it is held any more (its Run and its
    ranking table, which keeps the run's docids): the peak memory is one run's, not two."""
    import gc
    import weakref

    from rankviz.evaluation import engines

    read: list[weakref.ref] = []
    alive_at_each_read: list[int] = []

    def reading(path, *, name):
        gc.collect()
        alive_at_each_read.append(sum(ref() is not None for ref in read))
        run = rv.read_run(path, name=name)
        read.append(weakref.ref(run))
        return run

    monkeypatch.setattr(engines, "read_run", reading)
    sources = [RunSource.of(path) for path in sorted((CRANFIELD / "runs").iterdir())[:3]]
    evaluate_sources(
        rv.read_qrels(CRANFIELD / "qrels.txt"),
        sources,
        ["AP", "nDCG@10"],
        engine=EngineSettings(engine="memory"),
        check_k=10,
    )
    assert alive_at_each_read == [0, 0, 0]


# --- Dask ---------------------------------------------------------------------------------------

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
    ) as local:
        yield local


@pytest.mark.slow
def test_dask_output_is_byte_for_byte_the_memory_output(cluster, monkeypatch) -> None:
    # several byte ranges per run, spread over both workers, each read by its worker
    monkeypatch.setattr(byte_ranges, "RANGE_BYTES", 20_000)
    args = [
        str(DL_HARD),
        "--per-query",
        "--format",
        "tsv",
        "-m",
        "nDCG@10",
        "-m",
        "RR",
        "--ties",
        "random",
        "--seed",
        "4",
        "--trials",
        "5",
    ]
    memory = _cli("evaluate", *args, "--engine", "memory")
    with distributed.Client(cluster) as client, distributed.get_task_stream(client) as stream:
        assert (
            _cli("evaluate", *args, "--engine", "dask", "--scheduler", cluster.scheduler_address)
            == memory
        )
    workers = {task["worker"] for task in stream.data if task["key"].startswith("values_of_range")}
    assert len(workers) == 2  # both workers read and evaluated ranges
    assert not any(task["key"].startswith("values_of_piece") for task in stream.data)


@pytest.mark.slow
def test_dask_with_workers_starts_a_local_cluster(tmp_path) -> None:
    args = [
        str(CRANFIELD),
        "bm25",
        "dense",
        "--per-query",
        "--format",
        "tsv",
        "-m",
        "AP",
        "-m",
        "ERR@20",
    ]
    assert _cli("evaluate", *args, "--engine", "dask", "--workers", "2") == _cli("evaluate", *args)


@pytest.mark.slow
def test_the_workers_rankviz_starts_keep_freed_memory(monkeypatch) -> None:
    """A local cluster's workers start with the memory settings of the processes rankviz owns,
    without Dask's trim of every freed block; the caller's own environment is left as it was."""
    import distributed

    for name in ("GLIBC_TUNABLES", "NUMPY_MADVISE_HUGEPAGE", "MALLOC_TRIM_THRESHOLD_"):
        monkeypatch.delenv(name, raising=False)
    names = (
        "GLIBC_TUNABLES",
        "NUMPY_MADVISE_HUGEPAGE",
        "MALLOC_TRIM_THRESHOLD_",
        "OMP_NUM_THREADS",
    )
    before = {name: os.environ.get(name) for name in names}
    seen: dict[str, dict] = {}

    class Watched(distributed.LocalCluster):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            with distributed.Client(self) as client:
                seen.update(client.run(lambda: {n: os.environ.get(n) for n in names}))

    monkeypatch.setattr(distributed, "LocalCluster", Watched)
    collection = rv.open_collection(CRANFIELD)
    sources = [RunSource.of(collection.run_path("bm25"))]
    engine = EngineSettings(engine="dask", workers=2)
    evaluate_sources(collection.read_qrels(), sources, ["AP"], EvalSettings(), engine)
    expected = {
        "GLIBC_TUNABLES": TUNABLES,
        "NUMPY_MADVISE_HUGEPAGE": "0",
        "MALLOC_TRIM_THRESHOLD_": None,
        "OMP_NUM_THREADS": "1",
    }
    assert len(seen) == 2 and all(found == expected for found in seen.values())
    assert {name: os.environ.get(name) for name in names} == before


@pytest.mark.slow
def test_an_unreachable_scheduler_is_a_clear_error(monkeypatch) -> None:
    monkeypatch.setattr(dask_engine, "CONNECT_SECONDS", 1.0)
    with pytest.raises(rv.OptionError, match="cannot reach the Dask scheduler"):
        evaluate_sources(
            rv.read_qrels(CRANFIELD / "qrels.txt"),
            [RunSource.of(CRANFIELD / "runs" / "bm25.run.gz")],
            ["AP"],
            engine=EngineSettings(engine="dask", scheduler="tcp://127.0.0.1:9"),
        )


@pytest.mark.slow
def test_a_service_that_is_not_dask_is_a_clear_error_not_a_wait(monkeypatch) -> None:
    """A server that accepts the connection and never answers (not a Dask scheduler)."""
    import socket
    import threading
    import time

    monkeypatch.setattr(dask_engine, "CONNECT_SECONDS", 2.0)
    server = socket.create_server(("127.0.0.1", 0))
    accepted = []
    threading.Thread(target=lambda: accepted.append(server.accept()), daemon=True).start()
    started = time.monotonic()
    with pytest.raises(rv.OptionError, match="no Dask scheduler answered"):
        evaluate_sources(
            rv.read_qrels(CRANFIELD / "qrels.txt"),
            [RunSource.of(CRANFIELD / "runs" / "bm25.run.gz")],
            ["AP"],
            engine=EngineSettings(
                engine="dask", scheduler=f"tcp://127.0.0.1:{server.getsockname()[1]}"
            ),
        )
    assert time.monotonic() - started < 30
    server.close()


@pytest.mark.slow
def test_a_worker_killed_mid_run_loses_no_number(cluster, monkeypatch) -> None:
    import os
    import signal

    # many ranges: the kill comes while most are in flight
    monkeypatch.setattr(byte_ranges, "RANGE_BYTES", 5_000)
    qrels, sources = (
        rv.read_qrels(DL_HARD / "qrels.txt"),
        [RunSource.of(p) for p in sorted((DL_HARD / "runs").iterdir())[:2]],
    )
    memory = evaluate_sources(qrels, sources, ["nDCG@10", "RR"])
    with distributed.Client(cluster) as client:
        pids = list(client.run(os.getpid).values())
    killed = []

    def kill_one(_bytes: int) -> None:
        if not killed:
            killed.append(pids[0])
            os.kill(pids[0], signal.SIGKILL)

    engine = EngineSettings(engine="dask", scheduler=cluster.scheduler_address)
    dask = evaluate_sources(qrels, sources, ["nDCG@10", "RR"], engine=engine, progress=kill_one)
    assert killed
    _same(dask, memory)


@pytest.mark.slow
def test_a_piece_lost_on_its_way_to_a_worker_is_sent_again(cluster, monkeypatch) -> None:
    """A worker lost while a piece is scattered to it (the comm closes under the scatter, as when
    it is killed then): the piece is sent again, and no number is lost. (Pieces are sent where the
    workers do not see the run file.)"""
    from distributed.comm.core import CommClosedError

    monkeypatch.setattr(blocks, "PIECE_BYTES", 5_000)
    monkeypatch.setattr(dask_engine, "_workers_reach", lambda client, path: False)
    qrels, sources = (
        rv.read_qrels(DL_HARD / "qrels.txt"),
        [RunSource.of(sorted((DL_HARD / "runs").iterdir())[0])],
    )
    memory = evaluate_sources(qrels, sources, ["nDCG@10", "RR"])
    real, failed = distributed.Client.scatter, []

    def closing(self, data, *args, **kwargs):
        if isinstance(data, blocks.Piece) and len(failed) < 2:
            failed.append(data.first_line)
            raise CommClosedError("in <TCP (closed) ConnectionPool.scatter>: Stream is closed")
        return real(self, data, *args, **kwargs)

    monkeypatch.setattr(distributed.Client, "scatter", closing)
    engine = EngineSettings(engine="dask", scheduler=cluster.scheduler_address)
    dask = evaluate_sources(qrels, sources, ["nDCG@10", "RR"], engine=engine)
    assert len(failed) == 2
    _same(dask, memory)


@pytest.mark.slow
def test_a_bad_line_on_a_worker_is_the_same_error(cluster, tmp_path, monkeypatch) -> None:
    run = tmp_path / "r.run"
    run.write_text(_lines(12, 10, "q7 Q0 d3 4 x run\n", 73))
    monkeypatch.setattr(byte_ranges, "RANGE_BYTES", 200)
    qrels = rv.read_qrels(CRANFIELD / "qrels.txt")
    with pytest.raises(rv.FormatError, match="line 74"):
        engine = EngineSettings(engine="dask", scheduler=cluster.scheduler_address)
        evaluate_sources(qrels, [RunSource.of(run)], ["AP"], engine=engine)


@pytest.mark.slow
@pytest.mark.parametrize("range_bytes", [100, 10**6])  # in a later range, and in the same range
def test_a_query_that_comes_back_on_the_workers_is_named_with_its_line(
    cluster, tmp_path, monkeypatch, range_bytes
) -> None:
    """The workers read their ranges; the client names the file's line where a query comes back
    (the range's bytes read again by the client, only then)."""
    run = tmp_path / "r.run"
    run.write_text(_lines(6, 10) + "q2 Q0 extra 11 0.1 run\n")
    monkeypatch.setattr(byte_ranges, "RANGE_BYTES", range_bytes)
    engine = EngineSettings(engine="dask", scheduler=cluster.scheduler_address)
    with pytest.raises(rv.FormatError) as info:
        evaluate_sources(
            rv.read_qrels(CRANFIELD / "qrels.txt"), [RunSource.of(run)], ["AP"], engine=engine
        )
    assert info.value.line_no == 61
    assert "query 'q2' comes back after other queries" in info.value.reason


def test_a_pieces_values_go_to_the_client_with_their_query_ids_packed() -> None:
    """A worker pickles each piece's per-query values for the client: the query ids go as one
    packed text (no str object each) and load as the same values."""
    import pickle

    from rankviz.evaluation.assembly import TableValues

    qids = np.asarray([f"q{i}" for i in range(200)], dtype=object)
    values = TableValues(
        qids=qids,
        answered=np.arange(200) % 3 > 0,
        values={"AP": np.linspace(0, 1, 200)},
        ignored=("x1", "x2"),
        qid_rank=np.arange(200)[::-1].copy(),
    )
    sent, texts = pickled_with_texts(values)
    assert not set(qids.tolist()) & set(texts)
    loaded = pickle.loads(sent)
    assert loaded.qids.tolist() == qids.tolist() and loaded.qids.dtype == object
    assert loaded.answered.tolist() == values.answered.tolist()
    assert loaded.values["AP"].tolist() == values.values["AP"].tolist()
    assert loaded.ignored == ("x1", "x2") and loaded.qid_rank.tolist() == list(range(199, -1, -1))
