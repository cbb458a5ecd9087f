"""Where an evaluation runs: in memory, streaming through pieces of a run, or on a Dask cluster.

Every engine computes the same :class:`~rankviz.evaluation.result.Evaluation` with the same
kernels:

- ``memory`` reads each run whole (:func:`rankviz.evaluation.evaluate.evaluate`);
- ``stream`` reads a TREC run file in pieces of whole queries (:mod:`rankviz.io.blocks`), ranks and
  measures each against the qrels of its queries, keeps only the per-query values and drops the
  piece: memory follows the piece, not the file;
- ``dask`` has the workers of a ``dask.distributed`` cluster read byte ranges of whole queries
  where the file lies (a shared path, an fsspec URL: :mod:`rankviz.io.byte_ranges`), evaluate them
  as pieces and send back per-query values; the client plans the ranges and never reads a run (a
  path the workers do not see is read by the client and sent in pieces). At most two ranges per
  worker are in flight.

A query's values do not depend on the other queries it is evaluated with (random tie orders are
drawn per query and document, see :func:`rankviz.ranking.ordering.shuffle_ties`), so the
pieces' values put together are the in-memory values, whatever the blocks. Queries of the qrels that
no piece ranks are evaluated last, as an empty ranking, exactly as the in-memory engine evaluates
them.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from rankviz.errors import OptionError
from rankviz.evaluation.assembly import assemble, tie_seed
from rankviz.evaluation.dask_engine import on_dask
from rankviz.evaluation.evaluate import Evaluation, as_measures, evaluate_tables
from rankviz.evaluation.pieces import Job, PieceValues, Progress, RunSource, values_of_piece
from rankviz.evaluation.run_facts import RunFacts, gather, sample_stride
from rankviz.io.blocks import Piece, pieces
from rankviz.io.byte_ranges import is_url, stamp_at
from rankviz.io.groups import QueryGroups
from rankviz.io.model import Qrels, Run
from rankviz.io.readers import read_run, unique_names
from rankviz.io.sources import is_gzip
from rankviz.measures import Measure
from rankviz.ranking.ordering import rank
from rankviz.ranking.ranking_table import RankingTable
from rankviz.settings.engine_settings import EngineSettings
from rankviz.settings.eval_settings import EvalSettings

#: engine="auto" streams a run file larger than this (a gzip file counts four times its size)
STREAM_ABOVE_BYTES = 2**30


def chosen_engine(sources: Sequence[RunSource], engine: EngineSettings) -> str:
    """The engine that runs: ``auto`` streams when a run file is large, and only TREC files
    stream; a run given as a URL is read by the Dask engine's workers."""
    for source in sources:
        if is_url(source.path) and engine.engine != "dask":
            raise OptionError(
                f"{source.path}: a run given as a URL is read by the Dask engine's workers "
                "(--engine dask, with --scheduler or --workers)"
            )
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

    Parameters
    ----------
    qrels
        The judgments.
    sources
        The runs as :class:`RunSource` (a file and its name), read by the engine.
    measures
        The measures, as names or :class:`Measure` objects.
    settings
        The conventions (:class:`EvalSettings`; default: trec_eval's).
    engine
        Where it runs (:class:`EngineSettings`: in memory, streaming pieces, or Dask).
    groups
        Query attributes for ``group_by`` and ``aggregate="macro"``.
    weights
        qid -> weight, for ``aggregate="weights"``.
    rng
        A Generator or a seed for the orders of ``ties="random"``.
    progress
        Called as the runs are evaluated (a progress bar's step).
    check_k
        Also gather each run's :class:`~rankviz.evaluation.run_facts.RunFacts` (the checks' top K)
        in the same pass.

    Returns
    -------
    Evaluation
        The same evaluation :func:`evaluate` gives of the same runs."""
    settings = settings or EvalSettings()
    engine = engine or EngineSettings()
    measures = as_measures(measures, defaults=settings.measure_defaults, ties=settings.ties)
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
                        k=check_k,
                        rel=settings.rel,
                        stride=sample_stride(len(run)),
                    )
                yield source.name, table
                del run, table  # before the next run is read: one run alive at a time

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
    job = Job(qrels, tuple(measures), settings, seed, engine.block_queries, check_k, strides)
    if chosen == "stream":
        gathered = [(s.name, job.gather(s, _here(job, s, progress))) for s in sources]
    else:
        gathered = on_dask(job, sources, engine, progress)
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
    if is_url(path):
        stamp = stamp_at(path)
        return stamp.size // 40 if stamp is not None else 0
    try:
        return os.path.getsize(path) * (4 if is_gzip(path) else 1) // 40
    except OSError:
        return 0


def file_size(path: str) -> int:
    """The bytes a progress bar counts for a run file (0 for gzip, whose content size is unknown
    ahead; a URL's size as its store gives it)."""
    if is_url(path):
        stamp = stamp_at(path)
        return stamp.size if stamp is not None else 0
    try:
        return 0 if is_gzip(path) else os.path.getsize(path)
    except OSError:
        return 0


def _here(
    job: Job, source: RunSource, progress: Progress | None
) -> Iterator[tuple[Piece, PieceValues]]:
    for piece in pieces(source.path):
        yield piece, values_of_piece(piece, job, source.name)
        if progress is not None:
            progress(len(piece.data))
