"""A run file as byte ranges of whole queries, planned without reading it, read where it lies.

The Dask engine's client plans; its workers read. A plan costs the client a few kilobytes per
range: from each target offset it reads forward to the first line whose query differs from the
line before, and cuts there, so that a query's lines are never split between two ranges (a query
longer than a range makes that range longer). Each worker reads its own range with fsspec, from a
path every machine of the cluster reaches or from a URL (``s3://``, ``gs://``, ``hdfs://``,
``file://``): the client never holds a run's bytes.

Files are opened without fsspec's read-ahead (``cache_type="none"``): an object store's default
(s3fs: 50 MB blocks read ahead) would have the client fetch a block at every cut and a worker a
block past its range; each read fetches what it asks for.

A file that changes between the plan and a worker's read is refused, never evaluated in part: the
range carries the file's stamp (its size and its version: an object store's ETag, a file system's
modification time) and the query id of the line before its start; the worker compares both before
and after it reads. A gzip file cannot be entered mid-way: it is one range, read by one worker.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rankviz.errors import FormatError, OptionError, install_hint
from rankviz.io.blocks import data_qid
from rankviz.io.sources import BOM, GZIP_MAGIC, MAX_LINE_BYTES, too_long

#: The bytes a plan aims at per range: a worker reads a range whole, then evaluates it a piece
#: at a time.
RANGE_BYTES = 64 * 2**20
#: What the planner reads at a cut to find the next query's first line (doubled while one query
#: goes on).
_PROBE_BYTES = 64 * 1024
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]+://")


def is_url(path: str) -> bool:
    """True for an fsspec URL (``s3://b/run``, ``file:///x``); a Windows drive (``C:\\``) is a
    path."""
    return bool(_URL.match(str(path)))


def file_system(path: str):
    """fsspec's file system of ``path`` and the path within it; an OptionError in one line when
    fsspec, or the protocol's package (s3fs for ``s3://``), is missing."""
    try:
        from fsspec.core import url_to_fs
    except ImportError:
        raise OptionError(f"reading {path} needs fsspec: {install_hint('dask')}") from None
    try:
        return url_to_fs(path)
    except (ImportError, ValueError) as exc:
        raise OptionError(f"{path}: {exc}") from None


@dataclass(frozen=True)
class FileStamp:
    """What tells one version of a file from the next: its size and the version its store gives."""

    size: int
    version: str

    @classmethod
    def of(cls, fs, inner: str, label: str) -> FileStamp:
        try:
            fs.invalidate_cache(inner)  # a listing kept by fsspec (a glob's) may be older
            info = fs.info(inner)
        except FileNotFoundError:
            raise FormatError(label, 0, None, "file not found") from None
        except OSError as exc:
            raise FormatError(label, 0, None, f"cannot be read ({exc})") from None
        if info.get("type") == "directory":
            raise FormatError(label, 0, None, "is a folder, not a file")
        versions = ("ETag", "etag", "md5Hash", "mtime", "LastModified")
        version = next((str(info[k]) for k in versions if k in info), "")
        return cls(int(info.get("size") or 0), version)


@dataclass(frozen=True)
class ByteRange:
    """Bytes ``start`` to ``stop`` of a run file: whole queries, from a query's first line.

    Parameters
    ----------
    path
        The file: a path the workers reach, or an fsspec URL.
    start, stop
        The range's bytes (``stop`` exclusive).
    stamp
        The file as planned: a worker refuses a file that is no longer this one.
    before_qid
        The query id of the last data line before ``start`` (None at the file's start): the range
        must begin with another query.
    compressed
        A gzip file: the range is the whole file.
    label
        The name the file goes by in messages (as the user gave it; ``path`` may be made absolute).
    """

    path: str
    start: int
    stop: int
    stamp: FileStamp
    before_qid: bytes | None = None
    compressed: bool = False
    label: str = ""

    @property
    def name(self) -> str:
        """The file as messages name it."""
        return self.label or self.path

    @property
    def size(self) -> int:
        return self.stop - self.start

    def read(self) -> bytes:
        """The range's bytes, read here, or a FormatError when the file is not the one planned."""
        fs, inner = file_system(self.path)
        self._unchanged(FileStamp.of(fs, inner, self.name))
        try:
            with fs.open(inner, "rb", cache_type="none") as handle:
                handle.seek(max(self.start - 1, 0))
                data = handle.read(self.stop - max(self.start - 1, 0))
        except FileNotFoundError:
            raise FormatError(self.name, 0, None, "file not found") from None
        except OSError as exc:
            raise FormatError(self.name, 0, None, f"cannot be read ({exc})") from None
        self._unchanged(FileStamp.of(fs, inner, self.name))
        if self.start:
            before, data = data[:1], data[1:]
            if before not in (b"\n", b"\r") or _first_qid(data) == self.before_qid:
                raise self._changed("its lines moved")
        if len(data) != self.size:
            raise self._changed(f"{len(data)} bytes where {self.size} were planned")
        return data

    def _unchanged(self, now: FileStamp) -> None:
        if now != self.stamp:
            raise self._changed(
                f"{now.size:,} bytes where {self.stamp.size:,} were planned"
                if now.size != self.stamp.size
                else "its version changed"
            )

    def _changed(self, how: str) -> FormatError:
        return FormatError(
            self.name,
            0,
            None,
            f"the file changed while it was read ({how}); no number is given: evaluate it again "
            "once it is written",
        )


def plan_ranges(
    path: str, *, label: str | None = None, range_bytes: int | None = None
) -> list[ByteRange]:
    """The file's ranges of whole queries in file order, each about ``range_bytes`` (default
    :data:`RANGE_BYTES`) or one query where that is longer; one range for a gzip file or an empty
    one. The client reads a few kilobytes per range; ``label`` names the file in messages."""
    range_bytes = range_bytes or RANGE_BYTES
    label = label or path
    fs, inner = file_system(path)
    stamp = FileStamp.of(fs, inner, label)
    try:
        with fs.open(inner, "rb", cache_type="none") as handle:
            if handle.read(2) == GZIP_MAGIC:
                return [ByteRange(path, 0, stamp.size, stamp, compressed=True, label=label)]
            cuts: list[tuple[int, bytes | None]] = [(0, None)]
            target = range_bytes
            while target < stamp.size:
                found = _next_query_start(handle, max(target, cuts[-1][0] + 1), stamp.size, label)
                if found is None:
                    break
                cuts.append(found)
                target = found[0] + range_bytes
    except OSError as exc:
        raise FormatError(label, 0, None, f"cannot be read ({exc})") from None
    stops = [at for at, _ in cuts[1:]] + [stamp.size]
    return [
        ByteRange(path, at, stop, stamp, before, label=label)
        for (at, before), stop in zip(cuts, stops, strict=True)
    ]


def _next_query_start(handle, at: int, size: int, path: str) -> tuple[int, bytes | None] | None:
    """(where, the query before) of the first line at or after ``at`` whose query differs from the
    data line before it, or None when the file ends first."""
    position = _line_start(handle, at, size, path)
    before = _qid_before(handle, position, path)
    probe = _PROBE_BYTES
    while position < size:
        handle.seek(position)
        data = handle.read(probe)
        consumed = 0
        for line, end in _whole_lines(data, at_end=position + len(data) >= size):
            qid = data_qid(line)
            if qid is not None and before is not None and qid != before:
                if not line.startswith(BOM):  # a mark left at a range's start would be skipped
                    return position + consumed, before
            before = qid if qid is not None else before
            consumed = end
        if consumed == 0:
            if len(data) > MAX_LINE_BYTES:
                raise too_long(path, 0)
            probe *= 2  # one line longer than the probe: read more of it
            continue
        position += consumed
    return None


def _line_start(handle, at: int, size: int, path: str) -> int:
    """Where the first line that starts at or after ``at`` starts (``size`` when none does)."""
    if at == 0:
        return 0
    handle.seek(at - 1)
    data = handle.read(_PROBE_BYTES + 1)
    position = at - 1
    while data:
        at_end = position + len(data) >= size
        for found in re.finditer(rb"\r\n|\r|\n", data):
            if found.group() == b"\r" and found.end() == len(data) and not at_end:
                break  # half of a \r\n? read on
            return position + found.end()
        kept = len(data) - 1 if data.endswith(b"\r") and not at_end else len(data)
        position += kept
        if position - at > MAX_LINE_BYTES:
            raise too_long(path, 0)
        handle.seek(position)
        data = handle.read(2 * _PROBE_BYTES)
    return size


def _qid_before(handle, at: int, path: str) -> bytes | None:
    """The query id of the last data line before the line starting at ``at``; None when there is
    none."""
    window = _PROBE_BYTES
    while True:
        low = max(at - window, 0)
        handle.seek(low)
        data = handle.read(at - low)
        # the lines wholly before ``at``'s line: drop a partial first line unless it starts the file
        last_end = max(data.rfind(b"\n"), data.rfind(b"\r"))
        whole = data[: last_end + 1] if last_end >= 0 else b""
        lines = re.split(rb"\r\n|\r|\n", whole)[:-1] if whole else []
        if low > 0 and lines:
            lines = lines[1:]
        for line in reversed(lines):
            at_file_start = low == 0 and line is lines[0] and line.startswith(BOM)
            qid = data_qid(line[len(BOM) :] if at_file_start else line)
            if qid is not None:
                return qid
        if low == 0:
            return None
        if window > 4 * MAX_LINE_BYTES:
            raise too_long(path, 0)
        window *= 4


def _whole_lines(data: bytes, *, at_end: bool):
    """(line, end offset) of each complete line of ``data`` (a last line without an end counts when
    the file ends there); a ``\\r`` ending ``data`` may be half of ``\\r\\n`` and waits."""
    start = 0
    for found in re.finditer(rb"\r\n|\r|\n", data):
        if found.group() == b"\r" and found.end() == len(data) and not at_end:
            return
        yield data[start : found.start()], found.end()
        start = found.end()
    if at_end and start < len(data):
        yield data[start:], len(data)


def _first_qid(data: bytes) -> bytes | None:
    for line, _ in _whole_lines(data[: 2 * _PROBE_BYTES], at_end=True):
        qid = data_qid(line)
        if qid is not None:
            return qid
    return None


def expand_urls(paths: list[str]) -> list[str]:
    """``paths`` with each URL that holds a wildcard (``*``, ``?``, ``[``) replaced by the files it
    matches, and each URL ending in ``/`` by the files in that folder, in name order; an
    OptionError when one matches nothing. Paths that are not URLs are left to the shell."""
    found: list[str] = []
    for path in paths:
        if not is_url(path) or not (path.endswith("/") or any(c in path for c in "*?[")):
            found.append(path)
            continue
        fs, inner = file_system(path)
        try:
            matched = (
                [f for f in fs.ls(inner, detail=True) if f.get("type") == "file"]
                if path.endswith("/")
                else [f for f in fs.glob(inner, detail=True).values() if f.get("type") == "file"]
            )
        except (FileNotFoundError, OSError) as exc:
            raise OptionError(f"{path}: cannot be listed ({exc})") from None
        if not matched:
            raise OptionError(f"{path}: no run file matches")
        found += sorted(fs.unstrip_protocol(f["name"]) for f in matched)
    return found


def stamp_at(path: str) -> FileStamp | None:
    """The file's stamp as seen here, or None when it cannot be seen (not found, no fsspec)."""
    try:
        fs, inner = file_system(path)
        return FileStamp.of(fs, inner, path)
    except (FormatError, OptionError):
        return None
