"""A TREC run file as pieces of whole queries, for engines that never hold the whole run.

A piece is the file's bytes from one line to another, cut only where one query's lines end and the
next query's begin, so that every query is whole in exactly one piece (when the file lists each
query's lines together). Each piece is read by the same readers as a whole file
(:func:`rankviz.io.trec.read_trec`), and the lines its errors name are the file's: so a piece gives
the columns, or the error, that the whole file gives for those lines.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from rankviz.errors import FormatError
from rankviz.io.model import Run
from rankviz.io.readers import read_run, run_from_columns
from rankviz.io.sources import BOM, MAX_LINE_BYTES, Source, label_of, open_binary, too_long
from rankviz.io.trec import read_trec

PIECE_BYTES = 64 * 2**20
_FIRST_FIELD = re.compile(rb"[ \t]*([^ \t]*)")


@dataclass(frozen=True)
class Piece:
    """Lines of whole queries of a run file: their bytes and the number of the first line."""

    data: bytes
    first_line: int
    label: str

    def read(self, *, name: str, duplicates: str = "error") -> Run:
        """The piece as a run, read as the whole file would be; errors name the file's line
        numbers."""
        columns, queries = read_trec(
            self.data, self.label, "run", duplicates=duplicates, start_line=self.first_line
        )
        return run_from_columns(columns, queries, name=name, label=self.label)


def pieces(
    source: Source,
    *,
    filename: str | None = None,
    piece_bytes: int | None = None,
    first_line: int = 1,
) -> Iterator[Piece]:
    """The file's pieces in file order, each about ``piece_bytes`` (default :data:`PIECE_BYTES`), or
    one query where that is longer; lines are numbered from ``first_line`` (a byte range of a file
    is numbered as the file's lines).

    Read with the file's decompression (gzip is recognised by its bytes), ``piece_bytes`` at a time:
    memory follows the piece, not the file.
    """
    label = label_of(source, filename)
    piece_bytes = piece_bytes or PIECE_BYTES
    line_no, carry, pending, size = first_line, b"", None, piece_bytes
    with open_binary(source, label) as stream:
        while True:
            try:
                data = stream.read(size)
            except (OSError, EOFError) as exc:
                raise FormatError(label, 0, None, f"cannot decompress: {exc}") from None
            if not data:
                break
            buffer = carry + data if carry else data
            # an unfinished line that long: no text file
            if len(buffer) - _complete_lines_end(buffer) > MAX_LINE_BYTES:
                raise too_long(label, line_no + line_ends(buffer[: _complete_lines_end(buffer)]))
            cut = _last_query_start(buffer, file_start=pending is None)
            # one query so far: read on, twice as much each time (a long query is read in
            if cut == 0:
                carry, size = buffer, 2 * size  # a few reads, not in size-by-size steps)
                continue
            if pending is not None:
                yield pending
            pending = Piece(buffer[:cut], line_no, label)
            line_no += line_ends(pending.data)
            carry, size = buffer[cut:], piece_bytes
    if pending is not None and not _has_data_line(carry):
        pending, carry = Piece(pending.data + carry, pending.first_line, label), b""
    if pending is not None:
        yield pending
    if carry or pending is None:
        yield Piece(carry, line_no, label)  # the last query (or an empty file: its error)


def line_ends(data: bytes) -> int:
    """How many lines end in ``data`` (at ``\\n``, ``\\r\\n`` or a lone ``\\r``)."""
    returns = data.count(b"\r")
    return data.count(b"\n") + (returns - data.count(b"\r\n") if returns else 0)


def _has_data_line(data: bytes) -> bool:
    return any(data_qid(line) is not None for line in re.split(rb"\r\n|\r|\n", data))


def data_qid(line: bytes) -> bytes | None:
    """The first field of a line that holds data (None for an empty line or a comment)."""
    found = _FIRST_FIELD.match(line)
    qid = found.group(1) if found else b""
    return None if not qid or qid.startswith(b"#") else qid


def _last_query_start(buffer: bytes, *, file_start: bool) -> int:
    """Where the lines of the last query of ``buffer`` begin (after a complete line end), or 0 when
    every complete line belongs to one query. Lines after it, and an unfinished last line, belong
    to the next piece. A cut never leaves a byte-order mark at a piece's start (only the file's
    first line skips one: ``file_start`` says the buffer begins there)."""
    stop = _complete_lines_end(buffer)
    last_qid = None
    while stop > 0:
        body_end = stop - 2 if buffer[stop - 2 : stop] == b"\r\n" else stop - 1
        start = _line_start(buffer, body_end)
        line = buffer[start:body_end]
        qid = data_qid(
            line[len(BOM) :] if start == 0 and file_start and line.startswith(BOM) else line
        )
        if qid is not None:
            if last_qid is None:
                last_qid = qid
            elif qid != last_qid and not buffer.startswith(BOM, stop):
                return stop
        stop = start
    return 0


def _line_start(buffer: bytes, body_end: int) -> int:
    """Where the line ending at ``body_end`` starts: after the nearest line end before it, searched
    in a window that grows, so that finding it costs the line's length, not the buffer's."""
    window = 256
    while True:
        low = max(0, body_end - window)
        found = max(buffer.rfind(b"\n", low, body_end), buffer.rfind(b"\r", low, body_end))
        if found >= 0 or low == 0:
            return found + 1
        window *= 4


def _complete_lines_end(buffer: bytes) -> int:
    """The position after the last line end whose line is complete: a ``\\r`` at the very end may be
    the first half of ``\\r\\n`` and does not count."""
    return _line_start(buffer, len(buffer) - 1 if buffer.endswith(b"\r") else len(buffer))


def read_in_pieces(
    source: Source,
    *,
    name: str,
    filename: str | None = None,
    progress: Callable[[int], None] | None = None,
) -> Run:
    """The whole run, read piece by piece (``progress`` told the bytes of each): the same run as
    :func:`rankviz.io.readers.read_run`, for a caller that shows how far the reading has come.
    A run whose queries are not together is read whole."""
    parts: list[Run] = []
    seen: set[bytes] = set()
    for piece in pieces(source, filename=filename):
        part = piece.read(name=name)
        codes = part.qid_codes
        if seen.intersection(part.query_ids) or (
            len(codes) > 1 and not bool(np.all(codes[1:] >= codes[:-1]))
        ):
            return read_run(source, name=name, filename=filename)
        seen.update(part.query_ids)
        parts.append(part)
        if progress is not None:
            progress(len(piece.data))
    return Run.concatenate(parts)
