"""Tables with a header: CSV, TSV and Parquet runs and qrels (columns named, in any order).

Column names are matched case-insensitively against :data:`COLUMN_ALIASES`; a duplicate (qid,
docid) is an error in a run, and in qrels unless both lines give the same grade.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pyarrow as pa

from rankviz.errors import FormatError
from rankviz.io.model import encode_queries, pair_keys
from rankviz.io.sources import Source, check_text, open_binary, sniff

COLUMN_ALIASES = {
    "qid": ("qid", "query_id", "query", "topic"),
    "docid": ("docid", "doc_id", "docno", "pid"),
    "score": ("score", "sim"),
    "rank": ("rank",),
    "rel": ("rel", "relevance", "grade", "label", "judgment"),
}


def read_named(source: Source, label: str, kind: str, required: tuple, optional: tuple, duplicates: str) -> dict:
    import pandas as pd

    if kind == "parquet":
        data = source if isinstance(source, (bytes, bytearray)) else Path(source).read_bytes()
        try:
            frame = pd.read_parquet(io.BytesIO(data))
        except Exception as exc:  # pyarrow raises several unrelated types for a bad file
            raise FormatError(label, 0, None, f"not a readable Parquet file ({exc})") from None
        first_row_line, unit = 0, "row"
    else:
        head = sniff(source, label)
        check_text(head, label)
        stream = open_binary(source, label)
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
    keys = pair_keys(encode_queries(out["qid"])["qid_codes"], out["docid"], None)  # exact: a duplicate here is an error
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
