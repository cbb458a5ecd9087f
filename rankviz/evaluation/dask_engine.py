"""The Dask engine: byte ranges of whole queries read and evaluated by the workers of a
dask.distributed cluster (pieces sent by the client where the workers do not see the file)."""

from __future__ import annotations

import contextlib
import itertools
import os
from collections import deque
from collections.abc import Iterable, Iterator, Sequence

from rankviz._memory import owned_process_settings
from rankviz.errors import FormatError, OptionError, RankvizError, install_hint
from rankviz.evaluation.pieces import (
    DASK_WORKERS,
    Job,
    Lines,
    PieceValues,
    Progress,
    RangeLines,
    RunSource,
    values_of_piece,
    values_of_range,
)
from rankviz.io.blocks import Piece, pieces
from rankviz.io.byte_ranges import ByteRange, is_url, plan_ranges, stamp_at
from rankviz.settings.engine_settings import EngineSettings


def on_dask(
    job: Job, sources: Sequence[RunSource], engine: EngineSettings, progress: Progress | None
):
    try:
        import dask
        from distributed import Client, LocalCluster
    except ImportError:
        raise OptionError(f"engine=dask needs Dask: {install_hint('dask')}") from None
    cluster = None
    if engine.scheduler is not None:
        client = _connect(Client, engine.scheduler)
    else:
        environment = _owned_workers()
        with dask.config.set({"distributed.nanny.pre-spawn-environ": environment}):
            with _environment_kept(environment):
                cluster = LocalCluster(
                    n_workers=engine.workers or DASK_WORKERS,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=":0",
                )
        client = Client(cluster)
    try:
        cluster_job = _ClusterJob(client, job)
        window = 2 * max(len(client.scheduler_info().get("workers", {})), 1)
        found = _in_order(cluster_job, sources, window, progress)
        return [
            (sources[at].name, job.gather(sources[at], ((lines, v) for _, lines, v in group)))
            for at, group in itertools.groupby(found, key=lambda item: item[0])
        ]
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def _owned_workers() -> dict[str, str]:
    """The environment the workers of a cluster rankviz starts get before they start: Dask's own
    (one thread for numpy's BLAS) and :func:`~rankviz._memory.owned_process_settings`, without
    Dask's ``MALLOC_TRIM_THRESHOLD_`` where those set glibc's: a worker hands no freed array back
    to the kernel to fault it in again for the next piece. ``rankviz evaluate --engine dask
    --workers 1`` of bench_shapes.py's short run (1M queries x 10 documents) under
    ``/usr/bin/time``: 6.8 s of 18.4 CPU-s in the kernel with Dask's settings, 2.2 of 14.5 with
    these. A cluster the user starts keeps its own."""
    import dask

    environment = dict(dask.config.get("distributed.nanny.pre-spawn-environ", {}))
    settings = owned_process_settings()
    if "GLIBC_TUNABLES" in settings:
        environment.pop("MALLOC_TRIM_THRESHOLD_", None)
    return {**environment, **settings}


@contextlib.contextmanager
def _environment_kept(names: Iterable[str]) -> Iterator[None]:
    """This process's variables ``names`` as they were before: Dask's nanny sets its workers'
    environment in the process that starts them, which is the caller's (a library call)."""
    before = {name: os.environ.get(name) for name in names}
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def connected_client(address: str):
    """A client of the running scheduler at ``address`` (``rankviz app --scheduler``), or an
    OptionError in one line within :data:`CONNECT_SECONDS`."""
    try:
        from distributed import Client
    except ImportError:
        raise OptionError(f"a Dask scheduler needs Dask: {install_hint('dask')}") from None
    return _connect(Client, address)


#: How long a scheduler has to answer: a service that accepts the connection but is not Dask
#: would otherwise keep the command waiting forever (Dask's own timeout covers only the connection).
CONNECT_SECONDS = 10.0


def _connect(client_type, address: str):
    """A client of the scheduler at ``address``, or an OptionError within
    :data:`CONNECT_SECONDS`."""
    import threading

    found: dict[str, object] = {}

    def connect() -> None:
        try:
            found["client"] = client_type(address, timeout=f"{CONNECT_SECONDS:g}s")
        except Exception as exc:  # noqa: BLE001 - whatever it is, the user reads it in one line
            found["error"] = exc

    thread = threading.Thread(target=connect, daemon=True, name="rankviz-dask-connect")
    thread.start()
    thread.join(CONNECT_SECONDS + 2)
    if "client" in found:
        return found["client"]
    why = found.get("error") or (
        f"no Dask scheduler answered within {CONNECT_SECONDS:g} s (is it a Dask scheduler?)"
    )
    raise OptionError(f"cannot reach the Dask scheduler at {address}: {why}")


#: How often a piece is sent again when the worker computing it was lost (killed, out of memory).
PIECE_RETRIES = 2


#: How long sending a piece (or the job) to a worker may take before it counts as lost.
SCATTER_SECONDS = 120


class _ClusterJob:
    """The job on a cluster: its settings broadcast to the workers, pieces sent one by one, and a
    piece whose worker was lost sent again (with the job, which may have been lost with it)."""

    def __init__(self, client, job: Job) -> None:
        self.client, self.job = client, job
        self.shipped = client.scatter(job, broadcast=True, timeout=SCATTER_SECONDS)

    def submit(self, piece: Piece | ByteRange, name: str):
        """The future of a byte range (which a worker reads) or of a piece (its bytes sent straight
        to a worker, not through the task graph); a worker lost while the piece went to it is the
        piece's first loss, which :meth:`result` sends again."""
        try:
            if isinstance(piece, ByteRange):
                return self.client.submit(values_of_range, piece, self.shipped, name, pure=False)
            sent = self.client.scatter(piece, timeout=SCATTER_SECONDS)
            return self.client.submit(values_of_piece, sent, self.shipped, name, pure=False)
        except Exception as exc:  # noqa: BLE001 - comm closed, worker gone: whatever, sent again
            return _Lost(exc)

    def result(self, piece: Piece | ByteRange, future, name: str) -> PieceValues:
        """The piece's values; a lost worker's piece computed again, at most :data:`PIECE_RETRIES`
        times."""
        lost: Exception | None = None
        for attempt in range(PIECE_RETRIES + 1):
            try:
                if attempt:
                    self.shipped = self.client.scatter(
                        self.job, broadcast=True, timeout=SCATTER_SECONDS
                    )
                    future = self.submit(piece, name)
                if isinstance(future, _Lost):
                    raise future.error
                return future.result()
            except RankvizError:
                raise  # the piece's own error (a bad line): the same on every worker
            except Exception as exc:  # noqa: BLE001 - a worker or its data lost: cancelled, killed, comm closed
                lost = exc
        where = (
            f"{piece.name}, bytes {piece.start:,} to {piece.stop:,}"
            if isinstance(piece, ByteRange)
            else f"{piece.label}, lines from {piece.first_line}"
        )
        raise RankvizError(
            f"{where}: the Dask cluster lost this piece {PIECE_RETRIES + 1} times "
            f"({type(lost).__name__}); no number is given for it"
        )


class _Lost:
    """A piece that never reached a worker: the error that stopped it."""

    def __init__(self, error: Exception) -> None:
        self.error = error


def _in_order(
    cluster_job: _ClusterJob,
    sources: Sequence[RunSource],
    window: int,
    progress: Progress | None,
) -> Iterator[tuple[int, Lines, PieceValues]]:
    """(the source's place, lines, values) of every run's ranges or pieces, computed on the
    cluster, run after run in file order, with at most ``window`` in flight across runs (a worker
    never waits for the next run)."""
    in_flight: deque[tuple[int, Piece | ByteRange, object]] = deque()
    lines_before = [0] * len(sources)
    for at, item in _work(cluster_job.client, sources):
        in_flight.append((at, item, cluster_job.submit(item, sources[at].name)))
        if len(in_flight) >= window:
            yield _done(cluster_job, *in_flight.popleft(), sources, lines_before, progress)
    while in_flight:
        yield _done(cluster_job, *in_flight.popleft(), sources, lines_before, progress)


def _work(client, sources: Sequence[RunSource]) -> Iterator[tuple[int, Piece | ByteRange]]:
    """Each run's byte ranges where the workers reach its file (a URL, or a path they see as the
    client does), else its pieces, read here and sent."""
    for at, source in enumerate(sources):
        path = source.path if is_url(source.path) else os.path.abspath(source.path)
        if is_url(path) or _workers_reach(client, path):
            yield from ((at, r) for r in plan_ranges(path, label=source.path))
        else:
            yield from ((at, p) for p in pieces(source.path))


def _workers_reach(client, path: str) -> bool:
    """True when a worker sees the file at ``path`` as the client does (the same size and
    version): a shared file system. One round trip per run."""
    here = stamp_at(path)
    return here is not None and client.submit(stamp_at, path, pure=False).result() == here


def _done(
    cluster_job: _ClusterJob,
    at: int,
    item: Piece | ByteRange,
    future,
    sources: Sequence[RunSource],
    lines_before: list[int],
    progress: Progress | None,
) -> tuple[int, Lines, PieceValues]:
    name = sources[at].name
    try:
        values = cluster_job.result(item, future, name)
    except FormatError as error:
        if isinstance(item, ByteRange) and error.line_no and lines_before[at]:
            # the worker numbered its range's lines from 1: read it here to name the file's line
            values_of_range(item, cluster_job.job, name, first_line=lines_before[at] + 1)
        raise
    if progress is not None:
        progress(item.size if isinstance(item, ByteRange) else len(item.data))
    if isinstance(item, ByteRange):
        lines_before[at] += values.lines
        return at, RangeLines(item, lines_before[at] - values.lines + 1), values
    return at, item, values
