"""The Dask engine: pieces of whole queries evaluated on a dask.distributed cluster."""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

from rankviz.errors import OptionError, RankvizError, install_hint
from rankviz.evaluation.pieces import (
    DASK_WORKERS,
    Job,
    PieceValues,
    Progress,
    RunSource,
    values_of_piece,
)
from rankviz.io.blocks import Piece, pieces
from rankviz.settings.engine_settings import EngineSettings


def on_dask(
    job: Job, sources: Sequence[RunSource], engine: EngineSettings, progress: Progress | None
):
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise OptionError(f"engine=dask needs Dask: {install_hint('dask')}") from None
    cluster = None
    if engine.scheduler is not None:
        client = _connect(Client, engine.scheduler)
    else:
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
        return [
            (s.name, job.gather(s, _in_order(cluster_job, s, window, progress))) for s in sources
        ]
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


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

    def submit(self, piece: Piece, name: str):
        """The piece's future, sent straight to a worker (not through the task graph); a worker lost
        while the piece went to it is the piece's first loss, which :meth:`result` sends again."""
        try:
            sent = self.client.scatter(piece, timeout=SCATTER_SECONDS)
            return self.client.submit(values_of_piece, sent, self.shipped, name, pure=False)
        except Exception as exc:  # noqa: BLE001 - comm closed, worker gone: whatever, sent again
            return _Lost(exc)

    def result(self, piece: Piece, future, name: str) -> PieceValues:
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
        raise RankvizError(
            f"{piece.label}, lines from {piece.first_line}: the Dask cluster lost this piece "
            f"{PIECE_RETRIES + 1} times ({type(lost).__name__}); no number is given for it"
        )


class _Lost:
    """A piece that never reached a worker: the error that stopped it."""

    def __init__(self, error: Exception) -> None:
        self.error = error


def _in_order(cluster_job: _ClusterJob, source: RunSource, window: int, progress: Progress | None):
    """(piece, values) of a run's pieces computed on the cluster, in file order, with at most
    ``window`` pieces in flight (the client holds no more than that many pieces' bytes)."""
    in_flight: deque[tuple[Piece, object]] = deque()
    for piece in pieces(source.path):
        in_flight.append((piece, cluster_job.submit(piece, source.name)))
        if len(in_flight) >= window:
            yield _done(cluster_job, *in_flight.popleft(), source.name, progress)
    while in_flight:
        yield _done(cluster_job, *in_flight.popleft(), source.name, progress)


def _done(
    cluster_job: _ClusterJob, piece: Piece, future, name: str, progress: Progress | None
) -> tuple[Piece, PieceValues]:
    values = cluster_job.result(piece, future, name)
    if progress is not None:
        progress(len(piece.data))
    return piece, values
