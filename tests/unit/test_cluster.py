"""A cluster that reads its own files: a running ``dask scheduler`` and two ``dask worker``
processes, runs on a local S3 server (moto's) and on a path they share; the client plans byte
ranges and gathers per-query values, never the runs' bytes."""

from __future__ import annotations

import contextlib
import gzip
import io
import os
import signal
import subprocess
import sys
import time
from typing import Any

import pytest
from conftest import DL_HARD

import rankviz as rv
from rankviz.cli import main
from rankviz.evaluation import dask_engine
from rankviz.evaluation.engines import evaluate_sources
from rankviz.evaluation.pieces import RunSource
from rankviz.io import byte_ranges
from rankviz.settings.engine_settings import EngineSettings

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("cluster")]  # one cluster per run

# imported when a test of this module runs, not when the quick subset, which leaves them all out,
# collects the module (a second of CPU in every process that collects)
distributed: Any = None
fsspec: Any = None
s3fs: Any = None
moto_server: Any = None


@pytest.fixture(scope="module", autouse=True)
def _cluster_libraries() -> None:
    """distributed, fsspec, s3fs and moto's server, or every test here skipped without them."""
    global distributed, fsspec, s3fs, moto_server
    distributed = pytest.importorskip("distributed")
    fsspec = pytest.importorskip("fsspec")
    s3fs = pytest.importorskip("s3fs")
    moto_server = pytest.importorskip("moto.server")


CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
}
RUN_NAMES = [p.name for p in sorted((DL_HARD / "runs").iterdir())][:2]  # 2 MB each, 50 queries


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The sample's runs, uncompressed (a gzip file is one range): a folder of plain files."""
    folder = tmp_path_factory.mktemp("runs")
    for name in RUN_NAMES:
        (folder / name.removesuffix(".gz")).write_bytes(
            gzip.decompress((DL_HARD / "runs" / name).read_bytes())
        )
    return folder


@pytest.fixture(scope="module")
def s3(runs):
    """A local S3 server holding the runs in bucket ``runs``; its address for fsspec's s3."""
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    endpoint = f"http://{host}:{port}"
    saved = {k: os.environ.get(k) for k in CREDENTIALS}
    os.environ.update(CREDENTIALS)
    conf = fsspec.config.conf.setdefault("s3", {})
    conf["endpoint_url"] = endpoint
    fs = fsspec.filesystem("s3", skip_instance_cache=True)
    fs.mkdir("runs")
    for path in sorted(runs.iterdir()):
        fs.pipe(f"runs/{path.name}", path.read_bytes())
    yield endpoint
    fsspec.config.conf.pop("s3", None)
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value
    server.stop()


@pytest.fixture(scope="module")
def scheduler(s3, tmp_path_factory):
    """A ``dask scheduler`` and two ``dask worker`` processes (one thread each), which reach the S3
    server as the client does; the scheduler's address once both workers have joined."""
    folder = tmp_path_factory.mktemp("cluster")
    address_file = folder / "scheduler.json"
    env = {**os.environ, **CREDENTIALS, "FSSPEC_S3_ENDPOINT_URL": s3}
    dask = [sys.executable, "-m", "dask"]
    started = [
        subprocess.Popen(
            [
                *dask,
                "scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                "0",
                "--dashboard-address",
                ":0",
                "--scheduler-file",
                str(address_file),
            ],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    ]
    try:
        deadline = time.monotonic() + 120
        while not address_file.exists():  # the scheduler writes its address once it listens
            assert started[0].poll() is None, "dask scheduler exited"
            assert time.monotonic() < deadline, "dask scheduler did not start"
            time.sleep(0.05)
        for _ in range(2):
            started.append(
                subprocess.Popen(
                    [
                        *dask,
                        "worker",
                        "--scheduler-file",
                        str(address_file),
                        "--nthreads",
                        "1",
                        "--no-dashboard",
                    ],
                    env=env,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
        with distributed.Client(scheduler_file=str(address_file), timeout="60s") as client:
            client.wait_for_workers(2, timeout=180)
            yield client.scheduler.address
    finally:
        for process in reversed(started):
            process.terminate()
        for process in started:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()


def _cli(*argv: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(list(argv)) == 0
    return out.getvalue()


ARGS = ["--per-query", "--format", "tsv", "-m", "nDCG@10", "-m", "RR", "-m", "AP"]


def test_runs_on_s3_are_read_by_the_workers(scheduler, runs, monkeypatch) -> None:
    """A glob of S3 URLs: the workers read their own ranges; the same bytes as the memory engine
    on the same files; the client reads a few hundred bytes per range, never a run."""
    monkeypatch.setattr(byte_ranges, "RANGE_BYTES", 400_000)  # five ranges per run
    monkeypatch.setattr(byte_ranges, "_PROBE_BYTES", 512)
    fetched: list[int] = []  # the bytes the client fetched from the S3 server (in this process)
    real = s3fs.core.S3File._fetch_range

    def counted(self, start, end):
        data = real(self, start, end)
        fetched.append(len(data))
        return data

    monkeypatch.setattr(s3fs.core.S3File, "_fetch_range", counted)
    qrels = str(DL_HARD / "qrels.txt")
    memory = _cli("evaluate", qrels, *sorted(str(p) for p in runs.iterdir()), *ARGS)
    with distributed.Client(scheduler) as client, distributed.get_task_stream(client) as stream:
        on_s3 = _cli(
            "evaluate",
            qrels,
            "s3://runs/*.run",
            *ARGS,
            "--engine",
            "dask",
            "--scheduler",
            scheduler,
        )
    assert on_s3 == memory
    ranges = [t for t in stream.data if t["key"].startswith("values_of_range")]
    total = sum(p.stat().st_size for p in runs.iterdir())
    assert len(ranges) >= 2 * len(RUN_NAMES) and len({t["worker"] for t in ranges}) == 2
    assert 0 < sum(fetched) < total / 10  # the plan's probes, not the runs


def test_a_shared_path_is_read_by_the_workers_and_a_query_crosses_no_range(
    scheduler, runs, monkeypatch
) -> None:
    """A path the workers see as the client does: ranges, cut at a query's first line although
    every target falls inside a query; the per-query values of the memory engine, byte for byte."""
    monkeypatch.setattr(byte_ranges, "RANGE_BYTES", 377_777)
    files = [str(p) for p in sorted(runs.iterdir())]
    qrels = str(DL_HARD / "qrels.txt")
    for path in files:
        assert any(r.start % 377_777 for r in byte_ranges.plan_ranges(path)[1:])  # moved to a query
    with distributed.Client(scheduler) as client, distributed.get_task_stream(client) as stream:
        dask = _cli("evaluate", qrels, *files, *ARGS, "--engine", "dask", "--scheduler", scheduler)
    assert dask == _cli("evaluate", qrels, *files, *ARGS)
    assert any(t["key"].startswith("values_of_range") for t in stream.data)
    assert not any(t["key"].startswith("values_of_piece") for t in stream.data)


def test_a_file_that_changes_while_read_gives_no_number(
    scheduler, runs, tmp_path, monkeypatch
) -> None:
    """The run is rewritten after the plan, while the workers read it: an error, no number."""
    monkeypatch.setattr(byte_ranges, "RANGE_BYTES", 400_000)
    path = tmp_path / "changing.run"
    path.write_bytes((runs / RUN_NAMES[0].removesuffix(".gz")).read_bytes())
    planned = dask_engine.plan_ranges

    def plan_then_change(where, **kwargs):
        ranges = planned(where, **kwargs)
        with open(path, "ab") as handle:
            handle.write(b"9999999 Q0 extra 1 1 late\n")
        return ranges

    monkeypatch.setattr(dask_engine, "plan_ranges", plan_then_change)
    engine = EngineSettings(engine="dask", scheduler=scheduler)
    with pytest.raises(rv.FormatError, match="changed while it was read"):
        evaluate_sources(
            rv.read_qrels(DL_HARD / "qrels.txt"), [RunSource.of(path)], ["AP"], engine=engine
        )


def test_an_object_overwritten_on_s3_while_read_gives_no_number(
    scheduler, runs, monkeypatch
) -> None:
    monkeypatch.setattr(byte_ranges, "RANGE_BYTES", 400_000)
    fs = fsspec.filesystem("s3")
    data = (runs / RUN_NAMES[0].removesuffix(".gz")).read_bytes()
    fs.pipe("runs/overwritten.trec", data)
    planned = dask_engine.plan_ranges

    def plan_then_overwrite(where, **kwargs):
        ranges = planned(where, **kwargs)
        fs.pipe("runs/overwritten.trec", data.replace(b"Q0", b"q0"))  # same size, a new version
        return ranges

    monkeypatch.setattr(dask_engine, "plan_ranges", plan_then_overwrite)
    engine = EngineSettings(engine="dask", scheduler=scheduler)
    with pytest.raises(rv.FormatError, match="its version changed"):
        evaluate_sources(
            rv.read_qrels(DL_HARD / "qrels.txt"),
            [RunSource.of("s3://runs/overwritten.trec")],
            ["AP"],
            engine=engine,
        )


def test_a_worker_lost_mid_run_loses_no_number(scheduler, runs, monkeypatch) -> None:
    """One ``dask worker`` process killed while its ranges are in flight: they are read again by
    the other, and every number is the memory engine's."""
    monkeypatch.setattr(byte_ranges, "RANGE_BYTES", 200_000)
    qrels = rv.read_qrels(DL_HARD / "qrels.txt")
    sources = [RunSource.of(f"s3://runs/{n.removesuffix('.gz')}") for n in RUN_NAMES]
    local = [RunSource.of(runs / n.removesuffix(".gz")) for n in RUN_NAMES]
    memory = evaluate_sources(qrels, local, ["nDCG@10", "RR"])
    with distributed.Client(scheduler) as client:
        pids = list(client.run(os.getpid).values())
    killed: list[int] = []

    def kill_one(_bytes: int) -> None:
        if not killed:
            killed.append(pids[0])
            os.kill(pids[0], signal.SIGKILL)

    engine = EngineSettings(engine="dask", scheduler=scheduler)
    dask = evaluate_sources(qrels, sources, ["nDCG@10", "RR"], engine=engine, progress=kill_one)
    assert killed
    assert list(dask.qids) == list(memory.qids) and dask.runs == memory.runs
    for key, values in memory.values.items():
        assert (dask.values[key] == values).all(), key  # equal, not close


def test_a_listing_fsspec_kept_is_not_taken_for_the_file(s3) -> None:
    """A glob lists the bucket (fsspec keeps the listing); another writer then replaces an object:
    the plan and the read take the object as it is now, not as listed."""
    writer = fsspec.filesystem("s3", skip_instance_cache=True)  # another process, in effect
    writer.pipe("runs/relisted.trec", b"1 Q0 a 1 1 r\n")
    assert byte_ranges.expand_urls(["s3://runs/*.trec"])[-1] == "s3://runs/relisted.trec"
    now = b"1 Q0 a 1 1 r\n2 Q0 b 1 1 r\n3 Q0 c 1 1 r\n"
    writer.pipe("runs/relisted.trec", now)
    ranges = byte_ranges.plan_ranges("s3://runs/relisted.trec", range_bytes=10)
    assert ranges[-1].stop == len(now)
    assert b"".join(r.read() for r in ranges) == now


def test_the_client_process_imports_no_pandas(scheduler, runs) -> None:
    """The client gathers Arrow strings and arrays only; importing pandas (a third of a second of
    CPU, about what the client's own work costs) once slipped in through pyarrow's reading of a
    list of chunked arrays."""
    files = [str(p) for p in sorted(runs.iterdir())]
    qrels = str(DL_HARD / "qrels.txt")
    client = (
        "import sys\n"
        "from rankviz.cli import main\n"
        "code = main(sys.argv[1:])\n"
        "print('pandas imported:', 'pandas' in sys.modules, file=sys.stderr)\n"
        "sys.exit(code)\n"
    )
    argv = ["evaluate", qrels, *files, *ARGS, "--engine", "dask", "--scheduler", scheduler]
    done = subprocess.run(
        [sys.executable, "-c", client, *argv], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == _cli("evaluate", qrels, *files, *ARGS)
    assert done.stderr.splitlines()[-1] == "pandas imported: False"
