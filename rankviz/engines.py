"""Where an evaluation runs: in memory, streaming through pieces of a run, or on a Dask cluster.

Every engine computes the same :class:`~rankviz.evaluate.Evaluation` with the same kernels:

- ``memory`` reads each run whole (:func:`rankviz.evaluate.evaluate`);
- ``stream`` reads a TREC run file in pieces of whole queries (:mod:`rankviz.io.blocks`), ranks and
  measures each against the qrels of its queries, keeps only the per-query values and drops the
  piece: memory follows the piece, not the file;
- ``dask`` hands the same pieces to the workers of a ``dask.distributed`` cluster and gathers the
  per-query values (at most two pieces per worker are in flight, so the client's memory is bounded
  too).

A query's values do not depend on the other queries it is evaluated with (random tie orders are
drawn per query and document, see :func:`rankviz.ranking.shuffle_ties`), so the pieces' values put
together are the in-memory values, whatever the blocks. Queries of the qrels that no piece ranks
are evaluated last, as an empty ranking, exactly as the in-memory engine evaluates them.
"""

from __future__ import annotations

import os
import re
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from rankviz.engine_settings import EngineSettings
from rankviz.errors import FormatError, OptionError, RankvizError, quoted
from rankviz.evaluate import (
    Evaluation,
    TableValues,
    as_measures,
    assemble,
    evaluate_tables,
    table_values,
    tie_seed,
)
from rankviz.io.blocks import Piece, pieces
from rankviz.io.groups import QueryGroups
from rankviz.io.model import Qrels, Run
from rankviz.io.readers import read_run, run_name_from_path, run_names, unique_names
from rankviz.io.sources import is_gzip, lines
from rankviz.measures import Measure
from rankviz.ranking import RankingTable, rank
from rankviz.run_facts import RunFacts, gather, sample_stride
from rankviz.settings import EvalSettings

#: engine="auto" streams a run file larger than this (a gzip file counts four times its size)
STREAM_ABOVE_BYTES = 2**30
_DASK_WORKERS = 2

Progress = Callable[[int], None]  # told the bytes of each piece as it is done


@dataclass(frozen=True, eq=False)
class RunSource:
    """A run to evaluate: its file and the name it goes by."""

    path: str
    name: str

    @classmethod
    def of(cls, path: str | os.PathLike, name: str | None = None) -> RunSource:
        return cls(str(path), name if name is not None else run_name_from_path(str(path)))

    @classmethod
    def of_paths(cls, paths: Sequence[str | os.PathLike]) -> list[RunSource]:
        """Run files named uniquely (:func:`~rankviz.io.readers.run_names`: ``a/run`` and ``b/run``
        where two share a base name)."""
        return [cls(str(path), name) for path, name in zip(paths, run_names(paths))]


def chosen_engine(sources: Sequence[RunSource], engine: EngineSettings) -> str:
    """The engine that runs: ``auto`` streams when a run file is large, and only TREC files
    stream."""
    if engine.engine != "auto":
        if engine.engine != "memory":
            for source in sources:
                if Path(source.path).suffix.lower() in (".csv", ".tsv", ".parquet"):
                    raise OptionError(
                        f"{source.path}: the {engine.engine} engine reads TREC run "
                        "files (plain or .gz)"
                    )
        return engine.engine
    for source in sources:
        if Path(source.path).suffix.lower() in (".csv", ".tsv", ".parquet"):
            continue
        try:
            size = os.path.getsize(source.path) * (4 if is_gzip(source.path) else 1)
        except OSError:
            continue  # the reader names the problem
        if size > STREAM_ABOVE_BYTES:
            return "stream"
    return "memory"


def evaluate_sources(
    qrels: Qrels,
    sources: Sequence[RunSource],
    measures: Sequence[Measure | str],
    settings: EvalSettings | None = None,
    engine: EngineSettings | None = None,
    *,
    groups: QueryGroups | None = None,
    weights: Mapping[str, float] | None = None,
    rng: np.random.Generator | int | None = None,
    progress: Progress | None = None,
    check_k: int | None = None,
) -> Evaluation:
    """Evaluate run files on the engine the settings choose; the same evaluation on every engine.
    ``check_k``: also gather each run's :class:`~rankviz.run_facts.RunFacts` (the checks' top K), in
    the same pass."""
    settings = settings or EvalSettings()
    engine = engine or EngineSettings()
    measures = as_measures(measures, defaults=settings.measure_defaults)
    unique_names([s.name for s in sources])
    chosen = chosen_engine(sources, engine)
    if chosen == "memory":  # one run alive at a time
        facts: dict[str, RunFacts] = {}

        def tables() -> Iterator[tuple[str, RankingTable]]:
            for source in sources:
                run = _read_whole(source, progress)
                table = rank(run, qrels, ties=settings.ties.ranked_as, cut=settings.cut)
                if check_k is not None:
                    facts[source.name] = gather(
                        run,
                        table,
                        qrels.doc_ids,
                        k=check_k,
                        rel=settings.rel,
                        stride=sample_stride(len(run)),
                    )
                yield source.name, table

        result = evaluate_tables(
            tables(),
            measures,
            settings,
            qrels_qids=qrels.query_ids,
            groups=groups,
            weights=weights,
            rng=rng,
        )
        return replace(result, facts=facts) if check_k is not None else result
    seed = tie_seed(settings, rng)
    strides = {s.name: sample_stride(_lines_about(s.path)) for s in sources}
    job = _Job(qrels, tuple(measures), settings, seed, engine.block_queries, check_k, strides)
    if chosen == "stream":
        gathered = [(s.name, job.gather(s, _here(job, s, progress))) for s in sources]
    else:
        gathered = _on_dask(job, sources, engine, progress)
    return assemble(
        gathered, measures, settings, qrels_qids=qrels.query_ids, groups=groups, weights=weights
    )


def _read_whole(source: RunSource, progress: Progress | None) -> Run:
    run = read_run(source.path, name=source.name)
    if progress is not None:
        progress(file_size(source.path))
    return run


def _lines_about(path: str) -> int:
    """About how many lines a TREC run file holds (for the checks' sample: 40 bytes a line, gzip 4
    to 1)."""
    try:
        return os.path.getsize(path) * (4 if is_gzip(path) else 1) // 40
    except OSError:
        return 0


def file_size(path: str) -> int:
    """The bytes a progress bar counts for a run file (0 for gzip, whose content size is unknown
    ahead)."""
    try:
        return 0 if is_gzip(path) else os.path.getsize(path)
    except OSError:
        return 0


def _here(
    job: _Job, source: RunSource, progress: Progress | None
) -> Iterator[tuple[Piece, PieceValues]]:
    for piece in pieces(source.path):
        yield piece, values_of_piece(piece, job, source.name)
        if progress is not None:
            progress(len(piece.data))


@dataclass(frozen=True, eq=False)
class PieceValues:
    """What one piece gives: per-query values of the judged queries it ranks, and every query id
    it lists (to check that no query comes back in a later piece)."""

    values: TableValues
    query_ids: tuple[str, ...]


@dataclass(frozen=True, eq=False)
class _Job:
    """One evaluation's fixed inputs, shipped once to every worker."""

    qrels: Qrels
    measures: tuple[Measure, ...]
    settings: EvalSettings
    seed: int
    block_queries: int | None
    check_k: int | None = None  # gather the checks' facts too, with this top K
    # per run: every how many lines its docids are compared
    strides: Mapping[str, int] | None = None

    def gather(self, source: RunSource, found: Iterator[tuple[Piece, PieceValues]]) -> TableValues:
        """A run's values from its pieces (in file order), then the judged queries none of them
        ranks."""
        parts: list = []
        seen: set[str] = set()
        for piece, part in found:
            again = seen.intersection(part.query_ids)
            if again:
                raise _comes_back(piece, again)
            seen.update(part.query_ids)
            parts.append(part.values)
        missing = [q for q in self.qrels.query_ids if q not in seen]
        if missing or not parts:
            parts.append(self.values(Run.empty(source.name, source.path), missing, source.name))
        return TableValues.concatenate(parts)

    def values(self, run: Run, query_ids, name: str) -> TableValues:
        table = rank(
            run,
            self.qrels.restricted(query_ids),
            ties=self.settings.ties.ranked_as,
            cut=self.settings.cut,
        )
        values = table_values(table, self.measures, self.settings, self.seed)
        if self.check_k is None:
            return values
        stride = (self.strides or {}).get(name, 1)
        return replace(
            values,
            facts=gather(
                run, table, self.qrels.doc_ids, k=self.check_k, rel=self.settings.rel, stride=stride
            ),
        )


def values_of_piece(piece: Piece, job: _Job, name: str) -> PieceValues:
    """Read, rank and measure one piece (what a worker runs); the piece's run is dropped after."""
    run = piece.read(name=name)
    codes = run.qid_codes
    if len(codes) > 1 and not bool(np.all(codes[1:] >= codes[:-1])):
        raise _comes_back(piece, None)
    blocks = []
    size = job.block_queries or max(len(run.query_ids), 1)
    for start in range(0, max(len(run.query_ids), 1), size):
        block = run.query_block(start, start + size)
        blocks.append(job.values(block, block.query_ids, name))
    return PieceValues(TableValues.concatenate(blocks), tuple(run.query_ids))


def _comes_back(piece: Piece, earlier: set[str] | None) -> FormatError:
    """The error for a query whose lines are not together: the first line (of the piece) where a
    query listed before (in an earlier piece, or earlier in this one) comes back."""
    before = set(earlier or ())
    current = None
    for line_no, raw in lines(piece.data, piece.label):
        match = re.match(rb"[ \t]*([^ \t]*)", raw)
        qid = match.group(1).decode("utf-8", "replace") if match else ""
        if not qid or qid.startswith("#"):
            continue
        if qid != current:
            if qid in before:
                line = raw.decode("utf-8", "replace")
                return FormatError(
                    piece.label,
                    piece.first_line + line_no - 1,
                    line,
                    f"query {quoted(qid)} comes back after other queries; the stream and dask "
                    "engines need each query's "
                    "lines together (sort the file by query, e.g. sort -s -k1,1, or use --engine "
                    "memory)",
                )
            if current is not None:
                before.add(current)
            current = qid
    raise AssertionError("a query comes back but no line shows it")  # pragma: no cover


def _on_dask(
    job: _Job, sources: Sequence[RunSource], engine: EngineSettings, progress: Progress | None
):
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise OptionError("engine=dask needs Dask: pip install 'rankviz[dask]'") from None
    cluster = None
    if engine.scheduler is not None:
        client = _connect(Client, engine.scheduler)
    else:
        cluster = LocalCluster(
            n_workers=engine.workers or _DASK_WORKERS,
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

    def __init__(self, client, job: _Job) -> None:
        self.client, self.job = client, job
        self.shipped = client.scatter(job, broadcast=True, timeout=SCATTER_SECONDS)

    def submit(self, piece: Piece, name: str):
        # straight to a worker, not through the task graph
        sent = self.client.scatter(piece, timeout=SCATTER_SECONDS)
        return self.client.submit(values_of_piece, sent, self.shipped, name, pure=False)

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
                return future.result()
            except RankvizError:
                raise  # the piece's own error (a bad line): the same on every worker
            except Exception as exc:  # noqa: BLE001 - a worker or its data lost: cancelled, killed, comm closed
                lost = exc
        raise RankvizError(
            f"{piece.label}, lines from {piece.first_line}: the Dask cluster lost this piece "
            f"{PIECE_RETRIES + 1} times "
            f"({type(lost).__name__}); no number is given for it"
        )


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
