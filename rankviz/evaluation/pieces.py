"""What every engine shares: run sources, the work on one piece of a run, its values."""

from __future__ import annotations

import gzip
import os
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

import numpy as np
import pyarrow as pa

from rankviz.errors import FormatError, quoted
from rankviz.evaluation.assembly import TableValues, table_values
from rankviz.evaluation.run_facts import gather
from rankviz.io.blocks import Piece, line_ends, pieces
from rankviz.io.byte_ranges import ByteRange, expand_urls
from rankviz.io.id_keys import ascending, distinct_strings, ranks
from rankviz.io.model import Qrels, Run
from rankviz.io.readers import run_name_from_path, run_names
from rankviz.io.sources import lines
from rankviz.measures import Measure
from rankviz.ranking.ordering import rank
from rankviz.settings.eval_settings import EvalSettings

DASK_WORKERS = 2


Progress = Callable[[int], None]  # told the bytes of each piece as it is done


@dataclass(frozen=True, eq=False)
class RunSource:
    """A run to evaluate: its file and the name it goes by.

    Parameters
    ----------
    path
        The run file.
    name
        The name it goes by.
    """

    path: str
    name: str

    @classmethod
    def of(cls, path: str | os.PathLike, name: str | None = None) -> RunSource:
        return cls(str(path), name if name is not None else run_name_from_path(str(path)))

    @classmethod
    def of_paths(cls, paths: Sequence[str | os.PathLike]) -> list[RunSource]:
        """Run files named uniquely (:func:`~rankviz.io.readers.run_names`: ``a/run`` and ``b/run``
        where two share a base name); a URL with a wildcard (``s3://b/runs/*.run``) or ending in
        ``/`` stands for the files it matches (:func:`~rankviz.io.byte_ranges.expand_urls`)."""
        every = expand_urls([str(p) for p in paths])
        return [cls(path, name) for path, name in zip(every, run_names(every))]


@dataclass(frozen=True, eq=False)
class PieceValues:
    """What one piece gives: per-query values of the judged queries it ranks, and every query id
    it lists (to check that no query comes back in a later piece)."""

    values: TableValues
    # as Arrow strings: checked from their buffers, and a worker ships them without a Python
    # object per id
    query_ids: pa.ChunkedArray
    lines: int = 0  # the lines a byte range held: where the file's next range starts counting


class Lines(Protocol):
    """Lines of a run file gathered as one: a :class:`~rankviz.io.blocks.Piece`, or a
    :class:`RangeLines` (what a worker read), whose bytes are read again only to name an error."""

    @property
    def data(self) -> bytes: ...

    @property
    def first_line(self) -> int: ...

    @property
    def label(self) -> str: ...


@dataclass(frozen=True)
class RangeLines:
    """A byte range a worker read, seen from the client: its file's line numbers, and its bytes
    read here only when an error must quote its lines."""

    byte_range: ByteRange
    first_line: int

    @property
    def label(self) -> str:
        return self.byte_range.name

    @property
    def data(self) -> bytes:
        data = self.byte_range.read()
        return gzip.decompress(data) if self.byte_range.compressed else data


@dataclass(frozen=True, eq=False)
class Job:
    """One evaluation's fixed inputs, shipped once to every worker."""

    qrels: Qrels
    measures: tuple[Measure, ...]
    settings: EvalSettings
    seed: int
    block_queries: int | None
    check_k: int | None = None  # gather the checks' facts too, with this top K
    # per run: every how many lines its docids are compared
    strides: Mapping[str, int] | None = None

    def gather(self, source: RunSource, found: Iterator[tuple[Lines, PieceValues]]) -> TableValues:
        """A run's values from its pieces (in file order), then the judged queries none of them
        ranks."""
        parts: list = []
        listed: list[tuple[Lines, pa.ChunkedArray]] = []
        for piece, part in found:
            listed.append((piece, part.query_ids))
            parts.append(part.values)
        # their chunks, not the chunked arrays: pyarrow takes those as sequences, and imports
        # pandas to ask whether they are its objects (a client that never needs it otherwise)
        every = pa.chunked_array([chunk for _, ids in listed for chunk in ids.chunks], pa.string())
        if not distinct_strings(every):
            raise _first_come_back(listed)
        # the judged queries none ranks, by their places (every part places its queries)
        placed = np.zeros(len(self.qrels.query_ids), dtype=bool)
        for part in parts:
            placed[part.qid_rank] = True
        missing = self.qrels.query_index.order[~placed]
        if len(missing) or not parts:
            parts.append(self.values(Run.empty(source.name, source.path), source.name, missing))
        return TableValues.concatenate(parts)

    def values(self, run: Run, name: str, judged: np.ndarray | None = None) -> TableValues:
        """The values of a block of a run on the judged queries it lists (or those at the positions
        ``judged`` of the qrels' ids), each query placed among all the qrels' in ``strcmp`` order:
        the blocks' values are put in order without a sort of their ids."""
        index = self.qrels.query_index
        looked_up = None
        if judged is None:
            looked_up = run.query_ids_to_look_up()
            found = index.positions(looked_up)
            judged = found[found >= 0]
        qrels = self.qrels.at_positions(judged)
        if looked_up is not None and not isinstance(looked_up, np.ndarray):
            # rank looks the ids up among the judged ones kept, in their order: found already
            within = np.full(len(found), -1, dtype=np.int64)
            within[found >= 0] = ranks(judged, len(index.ids))
            qrels.query_index.remember(looked_up, within)
        table = rank(run, qrels, ties=self.settings.ties.ranked_as, cut=self.settings.cut)
        values = table_values(table, self.measures, self.settings, self.seed)
        # the block's judged order is theirs in the whole qrels': its n-th query is the n-th
        places = ascending(index.places(judged), len(index.ids))  # a run's ids are distinct
        values = replace(values, qid_rank=places[values.qid_rank])
        if self.check_k is None:
            return values
        stride = (self.strides or {}).get(name, 1)
        return replace(
            values,
            facts=gather(run, table, k=self.check_k, rel=self.settings.rel, stride=stride),
        )


def values_of_piece(piece: Piece, job: Job, name: str) -> PieceValues:
    """Read, rank and measure one piece (what a worker runs); the piece's run is dropped after."""
    run = piece.read(name=name)
    codes = run.qid_codes
    if len(codes) > 1 and not bool(np.all(codes[1:] >= codes[:-1])):
        raise _comes_back(piece, None)
    blocks = []
    size = job.block_queries or max(len(run.query_ids), 1)
    for start in range(0, max(len(run.query_ids), 1), size):
        block = run.query_block(start, start + size)
        blocks.append(job.values(block, name))
    return PieceValues(TableValues.concatenate(blocks), pa.chunked_array([run.query_strings()]))


def values_of_range(
    byte_range: ByteRange, job: Job, name: str, *, first_line: int = 1
) -> PieceValues:
    """Read one byte range where it lies and evaluate it a piece at a time (what a worker runs);
    its lines are numbered from ``first_line`` (a worker does not know how many lines come before
    its range: the client asks again, with the number, only to name a bad line)."""
    data = byte_range.read()
    found = [
        values_of_piece(piece, job, name)
        for piece in pieces(data, filename=byte_range.name, first_line=first_line)
    ]
    every = pa.chunked_array([chunk for f in found for chunk in f.query_ids.chunks], pa.string())
    if not distinct_strings(every):
        listed = zip(pieces(data, filename=byte_range.name, first_line=first_line), found)
        raise _first_come_back([(piece, f.query_ids) for piece, f in listed])
    values = TableValues.concatenate([f.values for f in found])
    return PieceValues(values, every, 0 if byte_range.compressed else line_ends(data))


def _first_come_back(listed: Sequence[tuple[Lines, pa.ChunkedArray]]) -> FormatError:
    """The error for the first piece that lists a query an earlier piece listed (a run whose
    queries are not grouped; only then are the pieces' ids compared one by one)."""
    seen: set[str] = set()
    for piece, query_ids in listed:
        again = seen.intersection(query_ids.to_pylist())
        if again:
            return _comes_back(piece, again)
        seen.update(query_ids.to_pylist())
    raise AssertionError("no query comes back")  # pragma: no cover


def _comes_back(piece: Lines, earlier: set[str] | None) -> FormatError:
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
                    "engines need each query's lines together (sort the file by query, e.g. sort "
                    "-s -k1,1, or use --engine memory)",
                )
            if current is not None:
                before.add(current)
            current = qid
    raise AssertionError("a query comes back but no line shows it")  # pragma: no cover
