"""Where a file's bytes come from, and the line rule every text reader follows.

A source is a path or the bytes of an upload; gzip is recognised by its magic bytes, never by the
name. Lines end at ``\\n``, ``\\r\\n`` or a lone ``\\r`` (as pyarrow's CSV reader splits them, so
the fast and the checked TREC readers see the same lines). A UTF-8 byte-order mark at the very
start of a file is skipped: editors on Windows write one, and read as text it would silently
become part of the first query id (trec_eval keeps it, and then that query matches nothing).
"""

from __future__ import annotations

import gzip
import io
import os
from collections.abc import Iterator

import pyarrow as pa

from rankviz.errors import FormatError

Source = str | os.PathLike | bytes

BOM = b"\xef\xbb\xbf"
GZIP_MAGIC = b"\x1f\x8b"
SNIFF_BYTES = 64 * 1024
#: The longest line any reader accepts: a TREC line is a few hundred bytes, and a file with no line
#: break at all (a binary file, a disk image) must be refused, not read whole into memory.
MAX_LINE_BYTES = 16 << 20


def too_long(label: str, line_no: int) -> FormatError:
    return FormatError(
        label,
        line_no,
        None,
        f"the line is longer than {MAX_LINE_BYTES // 2**20} MiB: not a text file of lines",
    )


def lines_are_short(data: bytes) -> bool:
    """True when every line of ``data`` is certainly shorter than :data:`MAX_LINE_BYTES`: every
    aligned block of half that size holds a line end (a longer line would cover a whole block).
    False may also mean a line of half the limit or more, which only the checked parser judges.
    Each search stops at the block's first line end, so this costs next to nothing."""
    half = MAX_LINE_BYTES // 2
    for start in range(0, len(data) - half + 1, half):
        if data.find(b"\n", start, start + half) < 0 and data.find(b"\r", start, start + half) < 0:
            return False
    return True


def label_of(source: Source, filename: str | None) -> str:
    """The name a file goes by in messages: ``filename``, the path, or ``<upload>``."""
    if filename is not None:
        return filename
    if isinstance(source, (bytes, bytearray)):
        return "<upload>"
    return str(source)


def open_binary(source: Source, label: str):
    """A binary stream of the decompressed content."""
    if isinstance(source, (bytes, bytearray)):
        raw: io.BufferedIOBase = io.BytesIO(source)
    else:
        try:
            raw = open(source, "rb")
        except FileNotFoundError:
            raise FormatError(label, 0, None, "file not found") from None
        except IsADirectoryError:
            raise FormatError(label, 0, None, "is a folder, not a file") from None
        except PermissionError:
            raise FormatError(
                label, 0, None, "permission denied: the file cannot be read"
            ) from None
        except OSError as exc:
            raise FormatError(label, 0, None, f"cannot be read ({exc.strerror or exc})") from None
    magic = raw.peek(2)[:2] if hasattr(raw, "peek") else raw.read(2)
    if not hasattr(raw, "peek"):
        raw.seek(0)
    if magic == GZIP_MAGIC:
        if isinstance(source, (bytes, bytearray)):
            return gzip.GzipFile(fileobj=raw, mode="rb")
        raw.close()  # a GzipFile never closes a file it was handed: let it open (and close) its own
        return gzip.open(source, "rb")
    return raw


def whole_file(path: str | os.PathLike) -> bytes | None:
    """A file's bytes, read (not memory-mapped: a mapped file overwritten while it is read, ``cp new
    old``, kills the process with SIGBUS); None when it changed while being read."""
    with open(path, "rb") as handle:
        before = os.fstat(handle.fileno())
        data = handle.read()
        after = os.fstat(handle.fileno())
    if len(data) != before.st_size or (after.st_size, after.st_mtime_ns) != (
        before.st_size,
        before.st_mtime_ns,
    ):
        return None
    return data


def read_bounded(source: Source, label: str) -> bytes:
    """The decompressed content, read a block at a time: a file with a line longer than
    :data:`MAX_LINE_BYTES` (a file of no line ends, a disk image) is refused at that line, after
    reading at most that much past its last line end, never read whole into memory first."""
    kept: list[bytes] = []  # joined once at the end: no buffer grown and copied again
    since_end = 0  # bytes since the last line end
    with open_binary(source, label) as stream:
        try:
            while block := stream.read(1 << 22):
                last = max(block.rfind(b"\n"), block.rfind(b"\r"))
                since_end = since_end + len(block) if last < 0 else len(block) - last - 1
                if since_end > MAX_LINE_BYTES:
                    line = sum(b.count(b"\n") for b in kept) + block.count(b"\n") + 1
                    raise too_long(label, line)
                kept.append(block)
        except (OSError, EOFError) as exc:
            raise FormatError(label, 0, None, f"cannot be read ({exc})") from None
    return b"".join(kept)


def is_gzip(source: Source) -> bool:
    if isinstance(source, (bytes, bytearray)):
        return bytes(source[:2]) == GZIP_MAGIC
    with open(source, "rb") as handle:
        return handle.read(2) == GZIP_MAGIC


def arrow_stream(source: Source):
    """A native pyarrow stream of the decompressed content (no Python file object in the hot
    loop)."""
    if isinstance(source, (bytes, bytearray)):
        raw = pa.BufferReader(pa.py_buffer(bytes(source)))
        return pa.CompressedInputStream(raw, "gzip") if is_gzip(source) else raw
    path = os.fsencode(source)  # the file system's bytes: a name that is not UTF-8 opens too
    return (
        pa.CompressedInputStream(pa.OSFile(path), "gzip")
        if is_gzip(source)
        else pa.memory_map(path)
    )


def decompressed(data: bytes, label: str, *, limit: int) -> bytes:
    """The bytes of an upload, gunzipped if gzip, refused when they decompress past ``limit`` (a
    gzip bomb is found after reading ``limit`` bytes, never materialised whole)."""
    if bytes(data[:2]) != GZIP_MAGIC:
        if len(data) > limit:
            raise FormatError(label, 0, None, f"larger than the limit of {limit // 2**20} MB")
        return data
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as stream:
            content = stream.read(limit + 1)
    except (OSError, EOFError) as exc:
        raise FormatError(label, 0, None, f"cannot decompress: {exc}") from None
    if len(content) > limit:
        raise FormatError(
            label, 0, None, f"decompresses to more than the limit of {limit // 2**20} MB"
        )
    return content


def sniff(source: Source, label: str) -> bytes:
    """The first 64 KiB of the decompressed content, without a leading byte-order mark."""
    with open_binary(source, label) as stream:
        try:
            head = stream.read(SNIFF_BYTES)
        except (OSError, EOFError) as exc:
            raise FormatError(label, 0, None, f"cannot decompress: {exc}") from None
    return head[len(BOM) :] if head.startswith(BOM) else head


def first_line(head: bytes) -> bytes:
    """The first line of a sniffed head (the line rule: ``\\n``, ``\\r\\n`` or ``\\r`` ends it)."""
    return head.split(b"\n", 1)[0].split(b"\r", 1)[0]


def check_text(head: bytes, label: str) -> None:
    if not head.strip():
        raise FormatError(label, 0, None, "empty file")
    if b"\x00" in head:
        raise FormatError(label, 0, None, "binary content (NUL bytes), not a text file")


def lines(source: Source, label: str) -> Iterator[tuple[int, bytes]]:
    """(1-based line number, line without its end) under the line rule, the byte-order mark
    dropped."""
    number = 0
    with open_binary(source, label) as stream:
        try:
            for raw in iter(lambda: stream.readline(MAX_LINE_BYTES + 1), b""):
                if len(raw) > MAX_LINE_BYTES:
                    raise too_long(label, number + 1)
                if number == 0 and raw.startswith(BOM):
                    raw = raw[len(BOM) :]
                body = raw[:-1] if raw.endswith(b"\n") else raw
                if raw.endswith(b"\n") and body.endswith(b"\r"):
                    body = body[:-1]
                for piece in body.split(b"\r"):
                    number += 1
                    yield number, piece
        except (OSError, EOFError) as exc:
            raise FormatError(label, 0, None, f"cannot decompress: {exc}") from None


def decode(raw: bytes, label: str, line_no: int) -> str:
    """One line as text; NUL bytes and invalid UTF-8 are errors naming the line."""
    if b"\x00" in raw:
        raise FormatError(label, line_no, None, "binary content (NUL byte), not a text file")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        shown = raw.decode("utf-8", errors="replace")
        raise FormatError(
            label, line_no, shown, f"not UTF-8 text (byte {exc.start + 1} of the line)"
        ) from None
