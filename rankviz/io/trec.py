"""TREC whitespace files: runs (``qid Q0 docid rank score tag``) and qrels (``qid iter docid rel``).

The field rule, the same in every reader: fields are separated by runs of the whitespace trec_eval
splits on (C ``isspace``: space, tab, vertical tab, form feed; a no-break space or other Unicode
space is part of a field), lines follow
:mod:`rankviz.io.sources` (``\\n``, ``\\r\\n`` or ``\\r``; a leading byte-order mark skipped), empty
lines and lines whose first field starts with ``#`` are skipped. A run line needs at least six
fields (those after the tag are ignored), a qrels line exactly four.

Two readers follow it. pyarrow's CSV reader splits on one separator character; it is used when the
first line shows a single separator, and its columns are then *vouched for*: every field non-empty
(a doubled or trailing separator shows up as an empty field), no field holding the other separator,
a NUL byte or a comment, every number finite, no docid twice for a query. Whatever it cannot vouch
for is read again by the checked parser, line by line, which accepts exactly the rule or raises a
:class:`~rankviz.errors.FormatError` naming the file, the line and the reason. So the same bytes
always give the same columns or the same error (``tests/unit/test_readers.py`` checks this with
hypothesis).
"""

from __future__ import annotations

import math
import re

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from rankviz._arrow import side_by_side, strings, to_numpy
from rankviz.errors import FormatError, quoted
from rankviz.io.encoding import DocidKeys, duplicate_rows, encode_queries
from rankviz.io.sources import (
    MAX_LINE_BYTES,
    Source,
    arrow_stream,
    check_text,
    decode,
    first_line,
    is_gzip,
    lines,
    lines_are_short,
    sniff,
    whole_file,
)

RUN_FIELDS = ("qid", "q0", "docid", "rank", "score", "tag")
QRELS_FIELDS = ("qid", "iter", "docid", "rel")
GRADE_RANGE = (-(2**31), 2**31 - 1)  # grades are stored as int32

_SPACE = " \t\v\f"  # C isspace less the line ends, which the line rule has taken already
# never a separator of the fast reader: a field holding one goes to the checked parser
_RARE_SPACE = "\v\f"
_SEPARATORS = re.compile(f"[{_SPACE}]+")
_INTEGER = re.compile(r"[+-]?[0-9]+(\.0*)?")  # "1.0" is the grade 1, as trec_eval reads it
_FLOAT = re.compile(
    r"[+-]?(([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?|inf|infinity|nan)", re.IGNORECASE
)
_IGNORED = {"q0", "iter", "tag"}  # read only to vouch that they are there


def fields(line: str) -> list[str]:
    """The fields of one line under the field rule."""
    stripped = line.strip(_SPACE)
    return _SEPARATORS.split(stripped) if stripped else []


def read_trec(
    source: Source, label: str, kind: str, *, duplicates: str, start_line: int = 1
) -> tuple[dict, dict]:
    """(columns, encoded query ids) of a run (``kind="run"``) or qrels file, and the
    number its first line has in messages (``start_line``: a piece of a larger file starts further
    down)."""
    names = RUN_FIELDS if kind == "run" else QRELS_FIELDS
    head = sniff(source, label)
    check_text(head, label)
    separator = _separator(head)
    if separator is not None and len(first_line(head).split(separator.encode())) == len(names):
        vouched = _read_fast(source, names, separator, label)
        if vouched is not None:
            return vouched
    columns = read_checked(source, label, kind, duplicates=duplicates, start_line=start_line)
    return columns, encode_queries(columns["qid"])


def _separator(head: bytes) -> str | None:
    """The one separator the first line uses, or None (both, or neither, or a comment line)."""
    first = first_line(head)
    if first.startswith(b"#"):
        return None
    tabs, spaces = b"\t" in first, b" " in first
    if tabs == spaces:
        return None
    return "\t" if tabs else " "


def _read_fast(
    source: Source, names: tuple[str, ...], separator: str, label: str
) -> tuple[dict, dict] | None:
    """pyarrow's reader split on ``separator``, vouched for; None wherever the checked parser must
    judge."""
    other = " " if separator == "\t" else "\t"
    raw = _raw_bytes(source, label)
    if raw is not None and (
        any(raw.find(byte) >= 0 for byte in (other.encode(), b"\x00", b"\v", b"\f"))
        or not lines_are_short(raw)
    ):
        return None
    # with the raw bytes checked, the ignored fields only need to be there (binary is the cheapest
    # read); otherwise they are dictionary-encoded and checked like every other field
    ignored = pa.binary() if raw is not None else pa.dictionary(pa.int32(), pa.string())
    types = {
        "qid": pa.string(),
        "docid": pa.string(),
        "rank": pa.float64(),
        "score": pa.float64(),
        "rel": pa.int64(),
    }
    # no copy of the bytes
    stream = arrow_stream(source) if raw is None else pa.BufferReader(pa.py_buffer(raw))
    checked_raw = raw is not None
    try:
        table = pacsv.read_csv(
            stream,
            read_options=pacsv.ReadOptions(column_names=list(names), block_size=1 << 24),
            parse_options=pacsv.ParseOptions(
                delimiter=separator, quote_char=False, escape_char=False, double_quote=False
            ),
            convert_options=pacsv.ConvertOptions(
                column_types={name: types.get(name, ignored) for name in names},
                strings_can_be_null=False,
                quoted_strings_can_be_null=False,
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, OSError, EOFError, UnicodeDecodeError):
        return None
    finally:
        stream.close()
        del stream
        del raw  # the parsed columns are copies: the file's bytes need not stay
    if table.num_rows == 0 or any(table.column(name).null_count for name in names):
        return None
    columns = {name: table.column(name) for name in names}
    del table
    return _vouch(columns, other=None if checked_raw else other)


def _raw_bytes(source: Source, label: str) -> bytes | None:
    """The file's bytes where they can be searched as they are (uncompressed); None for gzip. A file
    that changed while it was read is an error naming it."""
    if isinstance(source, (bytes, bytearray)):
        return None if is_gzip(source) else bytes(source)
    if is_gzip(source):
        return None
    data = whole_file(source)
    if data is None:
        raise FormatError(
            label,
            0,
            None,
            "the file changed while it was being read (is it still being written?); read it again",
        )
    return data


def _plain(values, other: str | None) -> bool:
    """No string is empty or (read as binary) invalid UTF-8, and (unless ``other`` is None: already
    checked in the raw bytes) none holds the other separator, a vertical tab, a form feed or a NUL
    byte."""
    if len(values) == 0:
        return True
    lengths = pc.min_max(pc.binary_length(values)).as_py()
    # an empty field, or one only the checked parser judges
    if lengths["min"] == 0 or lengths["max"] > MAX_LINE_BYTES // 2:
        return False
    if pa.types.is_binary(values.type) and not _ascii(values):
        try:
            # validates each value, as the checked parser decodes each line
            pc.cast(values, pa.string())
        except pa.ArrowInvalid:
            return False
    if other is None:
        return True
    if pc.all(pc.ascii_is_printable(values)).as_py():  # printable ASCII holds no tab and no NUL
        return other == "\t" or not pc.any(pc.match_substring(values, other)).as_py()
    return not pc.any(
        pc.match_substring_regex(values, f"[{re.escape(other)}\\x00\\x0b\\x0c]")
    ).as_py()


def _ascii(values: pa.Array) -> bool:
    """Every byte of the values below 0x80 (so valid UTF-8), read from the data buffer at once."""
    offsets = np.frombuffer(values.buffers()[1], np.int32)
    data = np.frombuffer(values.buffers()[2], np.uint8)[
        offsets[values.offset] : offsets[values.offset + len(values)]
    ]
    return not len(data) or int(data.max()) < 0x80


def _vouch(columns: dict, *, other: str | None) -> tuple[dict, dict] | None:
    """(columns, encoded query ids) from the fast reader's columns, or None where only the checked
    parser can judge (see the module's docstring). ``other``: the separator not used, when the raw
    bytes were not searched for it.

    Independent passes over millions of rows run two at a time (Arrow and NumPy release the GIL):
    the docids' keys beside the query codes, then the duplicate check beside the numbers.
    """
    for name in _IGNORED & set(columns):
        chunks = columns[name].chunks
        if not all(_plain(chunk.dictionary if other else chunk, other) for chunk in chunks):
            return None
    docid = columns["docid"]
    with side_by_side() as pool:
        keying = pool.submit(_docid_keys, docid, other)
        queries = encode_queries(columns["qid"])
        if not _writable_query_ids(queries["query_id_strings"], other):
            return None
        # once the keys are done
        checking = pool.submit(_duplicates, queries["qid_codes"], docid, keying)
        converted = _numbers(columns)
        keys, duplicated = keying.result(), checking.result()
    if keys is None or converted is None or duplicated:
        # a docid breaking the rule or twice for a query: the checked parser names the line
        return None
    return {**converted, "docid": docid, "docid_keys": keys}, queries


def _writable_query_ids(ids: pa.Array, other: str | None) -> bool:
    """No query id is empty or starts with ``#`` (a comment line to the checked parser) and (unless
    the raw bytes were searched) none holds a character :func:`_plain` refuses: one Arrow pass over
    the ids, not a Python test per query."""
    if pc.any(pc.starts_with(ids, "#")).as_py():
        return False
    return _plain(ids, other)


def _duplicates(qid_codes: np.ndarray, docid, keying) -> bool:
    """Whether a docid appears twice for a query (False when the keys were refused)."""
    keys = keying.result()
    return keys is not None and len(duplicate_rows(qid_codes, docid, keys.values)) > 0


def _docid_keys(docid, other: str | None) -> DocidKeys | None:
    """The docids' keys, or None when one breaks the field rule."""
    return DocidKeys.of(docid) if _plain(docid, other) else None


def _numbers(columns: dict) -> dict | None:
    """Scores, ranks and grades as NumPy; None if a score or rank is not finite or a grade out of
    range."""
    converted = {name: columns[name] for name in ("qid",)}
    if "rank" in columns:  # kept as read (only ties="run" orders by it): checked where it is
        if not pc.all(pc.is_finite(columns["rank"])).as_py():
            return None
        converted["rank"] = columns["rank"]
    for name in ("score", "rel"):
        if name in columns:
            converted[name] = to_numpy(columns[name])
            if name == "score" and not np.isfinite(converted[name]).all():
                return None
            if (
                name == "rel"
                and len(converted[name])
                and not (
                    GRADE_RANGE[0] <= converted[name].min()
                    and converted[name].max() <= GRADE_RANGE[1]
                )
            ):
                return None
    return converted


# --- the checked parser ----------------------------------------------------------------------


def _number(text: str, what: str, label: str, line_no: int, line: str) -> float:
    if not _FLOAT.fullmatch(text):
        raise FormatError(label, line_no, line, f"{what} {quoted(text)} is not a number")
    value = float(text)
    if not math.isfinite(value):
        raise FormatError(label, line_no, line, f"{what} {quoted(text)} is not a finite number")
    return value


def _first(parts: list[str]) -> str:
    return f" (the first is {quoted(parts[0], 20)})" if parts else ""


def _parse_run_line(parts: list[str], label: str, line_no: int, line: str) -> tuple:
    if len(parts) < 6:
        found = f"found {len(parts)}{_first(parts)}"
        raise FormatError(
            label, line_no, line, f"expected 6 fields 'qid Q0 docid rank score tag', {found}"
        )
    rank = _number(parts[3], "rank", label, line_no, line)
    score = _number(parts[4], "score", label, line_no, line)
    return parts[0], parts[2], rank, score


def _parse_qrels_line(parts: list[str], label: str, line_no: int, line: str) -> tuple:
    if len(parts) != 4:
        raise FormatError(
            label,
            line_no,
            line,
            f"expected 4 fields 'qid iter docid rel', found {len(parts)}{_first(parts)}",
        )
    text = parts[3]
    if not _INTEGER.fullmatch(text):
        raise FormatError(label, line_no, line, f"relevance grade {quoted(text)} is not an integer")
    grade = int(text.split(".")[0])
    if not GRADE_RANGE[0] <= grade <= GRADE_RANGE[1]:
        low, high = GRADE_RANGE
        raise FormatError(
            label, line_no, line, f"relevance grade {text[:40]} is out of range ({low} to {high})"
        )
    return parts[0], parts[2], grade


def read_checked(
    source: Source, label: str, kind: str, *, duplicates: str, start_line: int = 1
) -> dict:
    """Line by line: exactly the field rule, or a FormatError naming the line (numbered from
    ``start_line``)."""
    is_run = kind == "run"
    parse_line = _parse_run_line if is_run else _parse_qrels_line
    seen: dict[tuple[str, str], tuple[int, object]] = {}
    rows = []
    for line_no, raw in lines(source, label):
        line_no += start_line - 1
        line = decode(raw, label, line_no)
        parts = fields(line)
        if not parts or parts[0].startswith("#"):
            continue
        row = parse_line(parts, label, line_no, line)
        key = (row[0], row[1])
        previous = seen.get(key)
        if previous is not None:
            first_line_no, first_value = previous
            if not is_run and first_value == row[2]:
                continue
            if is_run and duplicates == "first":
                continue
            what = "run" if is_run else "qrels"
            detail = (
                ""
                if is_run
                else (f" with grade {row[2]} (grade {first_value} on line {first_line_no})")
            )
            raise FormatError(
                label,
                line_no,
                line,
                f"docid {quoted(row[1])} appears twice for query {quoted(row[0])} in the "
                f"{what}{detail}; first on line {first_line_no}",
            )
        seen[key] = (line_no, row[2])
        rows.append(row)
    if not rows:
        raise FormatError(
            label, 0, None, "empty file: no " + ("run" if is_run else "judgment") + " lines"
        )
    cols = list(zip(*rows))
    out = {"qid": strings(cols[0]), "docid": strings(cols[1])}
    if is_run:
        out["rank"] = np.asarray(cols[2], dtype=np.float64)
        out["score"] = np.asarray(cols[3], dtype=np.float64)
    else:
        out["rel"] = np.asarray(cols[2], dtype=np.int64)
    return out
