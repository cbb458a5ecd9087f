"""Readers for runs and relevance judgments.

TREC runs (``qid Q0 docid rank score tag``) and qrels (``qid iter docid rel``) are read with a fast
pyarrow path for well-formed files; anything that path cannot vouch for (comment lines, mixed
separators, extra columns, bad values, duplicates) is re-read line by line by a validating parser
that either accepts the file or raises a :class:`~rankviz.errors.FormatError` naming the file, the
line number, the line and the reason. Named-column CSV / TSV / Parquet files are also accepted.
"""

from __future__ import annotations

import gzip
import io
import math
import os
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from rankviz._arrow import take_sorted, to_numpy
from rankviz.errors import FormatError, OptionError

Source = str | os.PathLike | bytes

RUN_FIELDS = ("qid", "q0", "docid", "rank", "score", "tag")
QRELS_FIELDS = ("qid", "iter", "docid", "rel")
COLUMN_ALIASES = {
    "qid": ("qid", "query_id", "query", "topic"),
    "docid": ("docid", "doc_id", "docno", "pid"),
    "score": ("score", "sim"),
    "rank": ("rank",),
    "rel": ("rel", "relevance", "grade", "label", "judgment"),
}
_SNIFF_BYTES = 64 * 1024
_GZIP_MAGIC = b"\x1f\x8b"
DUPLICATE_POLICIES = ("error", "first")


@dataclass(frozen=True, eq=False)
class _Encoded:
    """Query and document ids dictionary-encoded: ``query_ids[qid_codes]`` gives each row's qid."""

    query_ids: np.ndarray  # unique qids, object array of str
    qid_codes: np.ndarray  # int32 per row
    doc_ids: pa.Array  # unique docids
    doc_codes: np.ndarray  # int32 per row

    def __len__(self) -> int:
        return len(self.qid_codes)


@dataclass(frozen=True, eq=False)
class Run:
    """A ranking run: one scored list of documents per query, in file order.

    Docids stay one string per row (a run's docids are mostly distinct, so a dictionary would
    cost a hash table of millions of entries for nothing).
    """

    name: str
    source: str
    query_ids: np.ndarray  # unique qids, object array of str
    qid_codes: np.ndarray  # int32 per row
    docids: pa.Array  # string per row
    score: np.ndarray  # float64 per row
    rank: np.ndarray  # float64 per row (the file's column)
    docid_numbers: np.ndarray | None = None  # the docids as integers, when all are (see docid_numbers)

    def __len__(self) -> int:
        return len(self.qid_codes)

    def to_frame(self):
        """The run as a pandas DataFrame (``qid, docid, rank, score``) in file order."""
        import pandas as pd

        return pd.DataFrame(
            {
                "qid": self.query_ids[self.qid_codes],
                "docid": self.docids.to_numpy(zero_copy_only=False),
                "rank": self.rank,
                "score": self.score,
            }
        )


@dataclass(frozen=True, eq=False)
class Qrels(_Encoded):
    """Relevance judgments: one integer grade per judged (query, document) pair."""

    source: str = ""
    grade: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int64))

    def to_frame(self):
        """The judgments as a pandas DataFrame (``qid, docid, rel``)."""
        import pandas as pd

        return pd.DataFrame(
            {
                "qid": self.query_ids[self.qid_codes],
                "docid": self.doc_ids.take(pa.array(self.doc_codes)).to_numpy(zero_copy_only=False),
                "rel": self.grade,
            }
        )


def run_name_from_path(path: str) -> str:
    """``bm25.run.gz`` -> ``bm25``: drop ``.gz`` and then one further extension."""
    base = os.path.basename(str(path))
    if base.endswith(".gz"):
        base = base[:-3]
    stem, dot, _ext = base.rpartition(".")
    return stem if dot and stem else base


def read_run(source: Source, *, name: str | None = None, filename: str | None = None, duplicates: str = "error") -> Run:
    """Read a run from a path or from bytes (``filename`` then names it in messages and formats).

    Format by extension: ``.csv``, ``.parquet``, ``.tsv`` with a header naming ``qid`` and
    ``docid``; anything else is TREC (whitespace-separated, ``.gz`` read transparently). The rank
    column is kept but does not decide the order. ``duplicates="error"`` (default, as trec_eval)
    refuses a docid listed twice for one query; ``"first"`` keeps its first line.
    """
    if duplicates not in DUPLICATE_POLICIES:
        raise OptionError(f"duplicates must be one of {', '.join(DUPLICATE_POLICIES)}, not {duplicates!r}")
    label = _label(source, filename)
    run_name = name if name is not None else run_name_from_path(label)
    kind = _table_kind(source, label)
    if kind == "trec":
        columns, queries = _read_trec(source, label, RUN_FIELDS, _parse_run_line, duplicates=duplicates)
    else:
        columns = _read_named(source, label, kind, ("qid", "docid", "score"), ("rank",), duplicates)
        queries = _encode_queries(columns["qid"])
    score = np.asarray(columns["score"], dtype=np.float64)
    rank = columns.get("rank")
    rank = np.arange(1, len(score) + 1, dtype=np.float64) if rank is None else np.asarray(rank, np.float64)
    docids = columns["docid"]
    docids = docids.combine_chunks() if isinstance(docids, pa.ChunkedArray) else docids
    numbers = columns["docid_numbers"] if "docid_numbers" in columns else docid_numbers(docids)
    del columns
    pa.default_memory_pool().release_unused()  # the parse buffers, back to the system
    return Run(name=run_name, source=label, **queries, docids=docids, score=score, rank=rank, docid_numbers=numbers)


def read_qrels(source: Source, *, filename: str | None = None) -> Qrels:
    """Read relevance judgments (TREC ``qid iter docid rel``, or named-column CSV/TSV/Parquet).

    Column 2 of TREC qrels is ignored (real files mix ``0`` and ``Q0``). Grades are integers and may
    be negative. The same pair judged twice with the same grade is kept once; with different
    grades it is an error.
    """
    label = _label(source, filename)
    kind = _table_kind(source, label)
    if kind == "trec":
        columns, _ = _read_trec(source, label, QRELS_FIELDS, _parse_qrels_line, duplicates="qrels")
    else:
        columns = _read_named(source, label, kind, ("qid", "docid", "rel"), (), "qrels")
    encoded = _encode(columns["qid"], columns["docid"])
    return Qrels(**encoded, source=label, grade=np.asarray(columns["rel"], dtype=np.int64))


# --- shared plumbing -------------------------------------------------------------------------


def _label(source: Source, filename: str | None) -> str:
    if filename is not None:
        return filename
    if isinstance(source, (bytes, bytearray)):
        return "<upload>"
    return str(source)


def _table_kind(source: Source, label: str) -> str:
    lower = label.lower()
    if lower.endswith(".gz"):
        lower = lower[:-3]
    if lower.endswith(".parquet"):
        return "parquet"
    if lower.endswith(".csv"):
        return "csv"
    if lower.endswith(".tsv"):
        head = _first_line(source, label)
        names = {f.strip().lower() for f in head.split("\t")}
        if names & set(COLUMN_ALIASES["qid"]) and names & set(COLUMN_ALIASES["docid"]):
            return "tsv"
    return "trec"


def _open_binary(source: Source, label: str):
    """A binary stream of the decompressed content; gzip is recognised by its magic bytes."""
    if isinstance(source, (bytes, bytearray)):
        raw: io.BufferedIOBase = io.BytesIO(source)
    else:
        try:
            raw = open(source, "rb")
        except FileNotFoundError:
            raise FormatError(label, 0, None, "file not found") from None
        except IsADirectoryError:
            raise FormatError(label, 0, None, "is a folder, not a file") from None
    magic = raw.peek(2)[:2] if hasattr(raw, "peek") else raw.read(2)
    if not hasattr(raw, "peek"):
        raw.seek(0)
    if magic == _GZIP_MAGIC:
        return gzip.GzipFile(fileobj=raw, mode="rb")
    return raw


def _arrow_stream(source: Source, label: str):
    """A native pyarrow stream (no Python file object in the hot loop), gzip recognised by magic bytes."""
    if isinstance(source, (bytes, bytearray)):
        raw = pa.BufferReader(pa.py_buffer(bytes(source)))
        return pa.CompressedInputStream(raw, "gzip") if bytes(source[:2]) == _GZIP_MAGIC else raw
    with open(source, "rb") as handle:
        gzipped = handle.read(2) == _GZIP_MAGIC
    return pa.input_stream(str(source), compression="gzip") if gzipped else pa.memory_map(str(source))


def _sniff(source: Source, label: str) -> bytes:
    with _open_binary(source, label) as stream:
        try:
            return stream.read(_SNIFF_BYTES)
        except (OSError, EOFError) as exc:
            raise FormatError(label, 0, None, f"cannot decompress: {exc}") from None


def _first_line(source: Source, label: str) -> str:
    head = _sniff(source, label)
    return head.split(b"\n", 1)[0].rstrip(b"\r").decode("utf-8", errors="replace")


def _check_text(head: bytes, label: str) -> None:
    if not head.strip():
        raise FormatError(label, 0, None, "empty file")
    if b"\x00" in head:
        raise FormatError(label, 0, None, "binary content (NUL bytes), not a text file")


def _dictionary(values) -> pa.DictionaryArray:
    encoded = pc.dictionary_encode(values)
    return encoded.combine_chunks() if isinstance(encoded, pa.ChunkedArray) else encoded


def _encode_queries(qid) -> dict:
    """Query ids as int32 codes in first-appearance order.

    Runs list each query's lines together, so the codes come from where the qid changes, without
    hashing millions of strings; a file whose queries come back later is dictionary-encoded.
    """
    n = len(qid)
    if n:
        changes = to_numpy(pc.indices_nonzero(pc.not_equal(qid.slice(1), qid.slice(0, n - 1)))).astype(np.int64)
        starts = np.r_[0, changes + 1]
        query_ids = take_sorted(qid, starts).to_pylist()
        if len(set(query_ids)) == len(query_ids):
            return {
                "query_ids": np.asarray(query_ids, dtype=object),
                "qid_codes": np.repeat(np.arange(len(starts), dtype=np.int32), np.diff(np.r_[starts, n])),
            }
    q = _dictionary(qid)
    return {
        "query_ids": np.asarray(q.dictionary.to_pylist(), dtype=object),
        "qid_codes": to_numpy(q.indices).astype(np.int32, copy=False),
    }


def _encode(qid, docid) -> dict:
    """Query ids and docids both dictionary-encoded (for qrels, which are small)."""
    d = _dictionary(docid)
    return {
        **_encode_queries(qid),
        "doc_ids": d.dictionary,
        "doc_codes": to_numpy(d.indices).astype(np.int32, copy=False),
    }


def docid_numbers(docid) -> np.ndarray | None:
    """Every docid as an integer (int32 where they fit), or None when one is not a number.

    A stand-in for the strings where a false match costs only a look at the strings ("01" and
    "1" share a number): sorting or probing integers is several times faster than strings.
    """
    for integer in (pa.int32(), pa.int64()):
        try:
            return to_numpy(pc.cast(docid, integer))
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            continue
    return None


def _pair_keys(qid_codes: np.ndarray, docid, numbers: np.ndarray | None) -> np.ndarray:
    """One int64 per (query, docid) row, equal whenever the pair is equal (and rarely otherwise:
    see :func:`docid_numbers`)."""
    if numbers is not None and len(numbers) and numbers.min() >= 0 and numbers.max() < 2**40 and qid_codes.max() < 2**23:
        keys = np.left_shift(qid_codes, 40, dtype=np.int64)
        keys |= numbers
        return keys
    d = _dictionary(docid)
    return qid_codes.astype(np.int64) * max(len(d.dictionary), 1) + to_numpy(d.indices)


def _unique_pairs(qid_codes: np.ndarray, docid, numbers: np.ndarray | None) -> bool:
    """No (query, docid) pair twice (False may be a false alarm, which the checked parser settles).

    Runs grouped by query are checked one query per row of a padded matrix of docid keys: many
    short sorts beat one long one, and the docids' integers (int32 where they fit) sort faster
    than pair keys.
    """
    n = len(qid_codes)
    if n > 1 and bool(np.all(qid_codes[1:] >= qid_codes[:-1])):  # codes are first-appearance order
        keys = numbers if numbers is not None else to_numpy(_dictionary(docid).indices)
        starts = np.flatnonzero(np.r_[True, qid_codes[1:] != qid_codes[:-1]])
        lengths = np.diff(np.r_[starts, n])
        width = int(lengths.max())
        if len(starts) * width == n:  # every query equally deep: a reshape
            matrix = np.sort(keys.reshape(len(starts), width), axis=1)
            return not bool(np.any(matrix[:, 1:] == matrix[:, :-1]))
        if len(starts) * width <= 2 * n:
            lowest = int(keys.min())
            dtype = keys.dtype if lowest - width > np.iinfo(keys.dtype).min else np.int64
            matrix = np.tile(lowest - 1 - np.arange(width, dtype=dtype), (len(starts), 1))  # distinct pads below every key
            row = np.repeat(np.arange(len(starts), dtype=np.int32), lengths)
            matrix[row, np.arange(n, dtype=np.int32) - np.repeat(starts.astype(np.int32), lengths)] = keys
            matrix.sort(axis=1)
            return not bool(np.any(matrix[:, 1:] == matrix[:, :-1]))
    keys = _pair_keys(qid_codes, docid, numbers)
    keys.sort()
    return not bool(np.any(keys[1:] == keys[:-1]))


# --- TREC whitespace format ------------------------------------------------------------------


def _read_trec(source: Source, label: str, fields: tuple[str, ...], parse_line, *, duplicates: str):
    """(columns, encoded query ids); the checked parser takes over wherever the fast one cannot vouch."""
    head = _sniff(source, label)
    _check_text(head, label)
    columns = _read_trec_fast(source, label, head, fields)
    fast = _vouch(columns) if columns is not None else None
    if fast is not None:
        return fast
    columns = _read_trec_checked(source, label, fields, parse_line, duplicates)
    return columns, _encode_queries(columns["qid"])


def _read_trec_fast(source: Source, label: str, head: bytes, fields: tuple[str, ...]):
    """pyarrow's reader for the common case; None whenever the file needs the checked parser."""
    first = head.split(b"\n", 1)[0].rstrip(b"\r")
    if first.startswith(b"#") or b"\r" in first:
        return None
    if b"\t" in first and b" " not in first:
        delimiter = "\t"
    elif b" " in first and b"\t" not in first and b"  " not in first:
        delimiter = " "
    else:
        return None
    if len(first.split(delimiter.encode())) != len(fields):
        return None
    is_run = fields == RUN_FIELDS
    wanted = ("qid", "docid", "rank", "score") if is_run else ("qid", "docid", "rel")
    types = {"qid": pa.string(), "docid": pa.string(), "rank": pa.float64(), "score": pa.float64()}
    types["rel"] = pa.int64()
    stream = _arrow_stream(source, label)
    try:
        table = pacsv.read_csv(
            stream,
            read_options=pacsv.ReadOptions(column_names=list(fields), block_size=1 << 24),
            parse_options=pacsv.ParseOptions(delimiter=delimiter, quote_char=False, escape_char=False, double_quote=False),
            convert_options=pacsv.ConvertOptions(
                column_types={k: types[k] for k in wanted},
                include_columns=list(wanted),
                strings_can_be_null=False,
                quoted_strings_can_be_null=False,
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, OSError, EOFError, UnicodeDecodeError):
        return None
    finally:
        stream.close()
    if table.num_rows == 0 or any(table.column(k).null_count for k in wanted):
        return None
    if pc.min(pc.binary_length(table.column("qid"))).as_py() == 0 or pc.min(pc.binary_length(table.column("docid"))).as_py() == 0:
        return None
    return {k: table.column(k) for k in wanted}


def _vouch(columns: dict) -> tuple[dict, dict] | None:
    """(columns, encoded query ids) from the fast reader's columns, or None where only the checked
    parser can judge (comment lines, non-finite numbers, a docid twice for one query).

    Independent passes over millions of rows run two at a time (Arrow and NumPy release the GIL):
    the docids' integers beside the query codes, then the duplicate check beside the numbers.
    """
    with ThreadPoolExecutor(max_workers=1) as pool:
        numbering = pool.submit(_docids_with_numbers, columns["docid"])
        queries = _encode_queries(columns["qid"])
        if any(q.startswith("#") for q in queries["query_ids"]):
            return None
        docid, numbers = numbering.result()
        checking = pool.submit(_unique_pairs, queries["qid_codes"], docid, numbers)
        converted = _convert_numbers(columns)
        if not checking.result() or converted is None:
            return None
    return {**converted, "docid": docid, "docid_numbers": numbers}, queries


def _docids_with_numbers(docid) -> tuple[pa.Array, np.ndarray | None]:
    """The docids in one piece, and as integers where they all are."""
    docid = docid.combine_chunks() if isinstance(docid, pa.ChunkedArray) else docid
    return docid, docid_numbers(docid)


def _convert_numbers(columns: dict) -> dict | None:
    """Scores, ranks and grades as NumPy; None if a score or rank is not finite."""
    converted = dict(columns)
    for name in ("score", "rank", "rel"):
        if name in columns:
            converted[name] = to_numpy(columns[name])
            if name != "rel" and not np.isfinite(converted[name]).all():
                return None
    return converted


def _lines(source: Source, label: str) -> Iterator[tuple[int, bytes]]:
    with _open_binary(source, label) as stream:
        try:
            yield from enumerate(stream, start=1)
        except (OSError, EOFError) as exc:
            raise FormatError(label, 0, None, f"cannot decompress: {exc}") from None


def _decode(raw: bytes, label: str, line_no: int) -> str:
    if b"\x00" in raw:
        raise FormatError(label, line_no, None, "binary content (NUL byte), not a text file")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        shown = raw.decode("utf-8", errors="replace").rstrip("\r\n")
        raise FormatError(label, line_no, shown, f"not UTF-8 text (byte {exc.start + 1} of the line)") from None


def _number(text: str, what: str, label: str, line_no: int, line: str) -> float:
    try:
        if "_" in text:
            raise ValueError
        value = float(text)
    except ValueError:
        raise FormatError(label, line_no, line, f"{what} {text!r} is not a number") from None
    if not math.isfinite(value):
        raise FormatError(label, line_no, line, f"{what} {text!r} is not a finite number")
    return value


def _parse_run_line(parts: list[str], label: str, line_no: int, line: str) -> tuple:
    if len(parts) < 6:
        raise FormatError(label, line_no, line, f"expected 6 fields 'qid Q0 docid rank score tag', found {len(parts)}")
    rank = _number(parts[3], "rank", label, line_no, line)
    score = _number(parts[4], "score", label, line_no, line)
    return parts[0], parts[2], rank, score


def _parse_qrels_line(parts: list[str], label: str, line_no: int, line: str) -> tuple:
    if len(parts) != 4:
        raise FormatError(label, line_no, line, f"expected 4 fields 'qid iter docid rel', found {len(parts)}")
    text = parts[3]
    try:
        if "_" in text:
            raise ValueError
        grade = int(text)
    except ValueError:
        raise FormatError(label, line_no, line, f"relevance grade {text!r} is not an integer") from None
    return parts[0], parts[2], grade


def _read_trec_checked(source: Source, label: str, fields: tuple[str, ...], parse_line, duplicates: str) -> dict:
    """Line-by-line reader that accepts exactly what trec_eval 10 accepts, or says why not."""
    is_run = fields == RUN_FIELDS
    seen: dict[tuple[str, str], tuple[int, object]] = {}
    rows = []
    for line_no, raw in _lines(source, label):
        line = _decode(raw, label, line_no).rstrip("\r\n")
        parts = line.split()
        if not parts or parts[0].startswith("#"):
            continue
        row = parse_line(parts, label, line_no, line)
        key = (row[0], row[1])
        previous = seen.get(key)
        if previous is not None:
            first_line, first_value = previous
            if not is_run and first_value == row[2]:
                continue
            if is_run and duplicates == "first":
                continue
            what = "run" if is_run else "qrels"
            detail = "" if is_run else f" with grade {row[2]} (grade {first_value} on line {first_line})"
            raise FormatError(
                label,
                line_no,
                line,
                f"docid {row[1]!r} appears twice for query {row[0]!r} in the {what}{detail}; first on line {first_line}",
            )
        seen[key] = (line_no, row[2])
        rows.append(row)
    if not rows:
        raise FormatError(label, 0, None, "empty file: no " + ("run" if is_run else "judgment") + " lines")
    cols = list(zip(*rows))
    out = {"qid": pa.array(cols[0], pa.string()), "docid": pa.array(cols[1], pa.string())}
    if is_run:
        out["rank"] = np.asarray(cols[2], dtype=np.float64)
        out["score"] = np.asarray(cols[3], dtype=np.float64)
    else:
        out["rel"] = np.asarray(cols[2], dtype=np.int64)
    return out


# --- named-column tables (CSV / TSV / Parquet) -----------------------------------------------


def _read_named(source: Source, label: str, kind: str, required: tuple, optional: tuple, duplicates: str) -> dict:
    import pandas as pd

    if kind == "parquet":
        data = source if isinstance(source, (bytes, bytearray)) else Path(source).read_bytes()
        try:
            frame = pd.read_parquet(io.BytesIO(data))
        except Exception as exc:  # pyarrow raises several unrelated types for a bad file
            raise FormatError(label, 0, None, f"not a readable Parquet file ({exc})") from None
        first_row_line, unit = 0, "row"
    else:
        head = _sniff(source, label)
        _check_text(head, label)
        stream = _open_binary(source, label)
        try:
            frame = pd.read_csv(stream, sep="," if kind == "csv" else "\t", dtype=str, keep_default_na=False)
        except UnicodeDecodeError:
            raise FormatError(label, 0, None, "not UTF-8 text") from None
        except pd.errors.ParserError as exc:
            raise FormatError(label, 0, None, f"cannot parse as {kind.upper()}: {exc}") from None
        finally:
            stream.close()
        first_row_line, unit = 2, "line"
    if frame.empty:
        raise FormatError(label, 0, None, "empty file: a header but no rows")
    renamed = {}
    lower = {str(c).strip().lower(): c for c in frame.columns}
    for canonical in required + optional:
        match = next((lower[a] for a in COLUMN_ALIASES[canonical] if a in lower), None)
        if match is None and canonical in required:
            raise FormatError(
                label,
                1 if unit == "line" else 0,
                ", ".join(map(str, frame.columns)),
                f"missing column {canonical!r} (accepted names: {', '.join(COLUMN_ALIASES[canonical])})",
            )
        if match is not None:
            renamed[canonical] = frame[match]
    out: dict = {}
    for canonical, column in renamed.items():
        values = column.to_numpy()
        if canonical in ("qid", "docid"):
            text = column.astype(str).str.strip()
            empty = np.flatnonzero(text.to_numpy() == "")
            if len(empty):
                raise _row_error(label, frame, empty[0], first_row_line, unit, f"empty {canonical}")
            out[canonical] = pa.array(text.to_numpy(), pa.string())
        elif canonical == "rel":
            numbers = pd.to_numeric(column, errors="coerce")
            bad = np.flatnonzero(numbers.isna().to_numpy() | (numbers.to_numpy() % 1 != 0))
            if len(bad):
                raise _row_error(
                    label, frame, bad[0], first_row_line, unit, f"relevance grade {values[bad[0]]!r} is not an integer"
                )
            out[canonical] = numbers.to_numpy().astype(np.int64)
        else:
            numbers = pd.to_numeric(column, errors="coerce").to_numpy(dtype=np.float64)
            bad = np.flatnonzero(~np.isfinite(numbers))
            if len(bad):
                raise _row_error(
                    label, frame, bad[0], first_row_line, unit, f"{canonical} {values[bad[0]]!r} is not a finite number"
                )
            out[canonical] = numbers
    keys = _pair_keys(_encode_queries(out["qid"])["qid_codes"], out["docid"], None)  # exact: a duplicate here is an error
    _, first_index, counts = np.unique(keys, return_index=True, return_counts=True)
    if (counts > 1).any():
        keep = np.sort(first_index)
        dup_rows = np.setdiff1d(np.arange(len(keys)), keep)
        if duplicates == "qrels":
            first_of = dict(zip(keys[keep], keep))
            conflicting = [r for r in dup_rows if out["rel"][first_of[keys[r]]] != out["rel"][r]]
            if conflicting:
                row = conflicting[0]
                raise _row_error(
                    label, frame, row, first_row_line, unit, "the same (qid, docid) judged twice with different grades"
                )
        elif duplicates == "error":
            row = dup_rows[0]
            raise _row_error(label, frame, row, first_row_line, unit, "docid appears twice for the same query in the run")
        out = {k: (v.take(pa.array(keep)) if isinstance(v, pa.Array) else v[keep]) for k, v in out.items()}
    return out


def _row_error(label: str, frame, row: int, first_row_line: int, unit: str, reason: str) -> FormatError:
    line = ", ".join(str(v) for v in frame.iloc[int(row)].tolist())
    if unit == "line":
        return FormatError(label, int(row) + first_row_line, line, reason)
    return FormatError(label, 0, line, f"row {int(row) + 1}: {reason}")
