"""Tables with a header: CSV, TSV and Parquet runs and qrels (columns named, in any order).

Column names are matched case-insensitively against :data:`COLUMN_ALIASES`; a duplicate (qid,
docid) is an error in a run, and in qrels unless both lines give the same grade.
"""

from __future__ import annotations

import io

import numpy as np
import pyarrow as pa

from rankviz.errors import FormatError, quoted
from rankviz.io.delimited import read_delimited
from rankviz.io.encoding import (
    UNWRITABLE_IN_ID,
    DocidKeys,
    duplicate_rows,
    encode_queries,
    id_problem,
)
from rankviz.io.sources import Source, check_text, open_binary, sniff
from rankviz.io.trec import GRADE_RANGE

COLUMN_ALIASES = {
    "qid": ("qid", "query_id", "query", "topic"),
    "docid": ("docid", "doc_id", "docno", "pid"),
    "score": ("score", "sim"),
    "rank": ("rank",),
    "rel": ("rel", "relevance", "grade", "label", "judgment"),
}


def read_named(
    source: Source, label: str, kind: str, required: tuple, optional: tuple, duplicates: str
) -> dict:
    import pandas as pd

    if kind == "parquet":
        with open_binary(source, label) as handle:
            data = handle.read()
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
            frame = read_delimited(stream, label, "," if kind == "csv" else "\t")
        finally:
            stream.close()
        first_row_line, unit = 2, "line"
    return columns_from_frame(
        frame, label, required, optional, duplicates, first_row_line=first_row_line, unit=unit
    )


def _id_column(column, canonical: str, fail) -> pa.Array:
    """An id column as text: whole numbers or text, none empty, missing, nested or unwritable."""
    values = column.to_numpy()
    if column.dtype.kind in "fbc" or column.dtype.kind == "M":
        raise fail(0, f"{canonical} must be text or whole numbers, not {column.dtype}")
    bad: list[int] | np.ndarray = [
        i
        for i, v in enumerate(values)
        if not isinstance(v, (str, int, np.integer)) or isinstance(v, bool)
    ]
    if bad:
        what = (
            "missing"
            if values[bad[0]] is None or values[bad[0]] != values[bad[0]]
            else type(values[bad[0]]).__name__
        )
        raise fail(bad[0], f"{canonical} is {what}, not text")
    text = column.astype(str).str.strip()
    unwritable = text.str.contains(UNWRITABLE_IN_ID) | (text == "")
    if canonical == "qid":
        unwritable |= text.str.startswith("#")
    bad = np.flatnonzero(unwritable.to_numpy())
    if len(bad):
        raise fail(bad[0], id_problem(text.iloc[bad[0]], canonical) or f"bad {canonical}")
    return pa.array(text.to_numpy(), pa.string())


def _number_column(column, canonical: str, fail) -> np.ndarray:
    """A score or rank column as finite numbers, a grade column as whole numbers in range."""
    import pandas as pd

    values = column.to_numpy()
    if column.dtype.kind == "b" or any(isinstance(v, (bool, np.bool_)) for v in values[:1000]):
        raise fail(0, f"{canonical} must be numbers, not true/false")
    numbers = pd.to_numeric(column, errors="coerce").to_numpy(dtype=np.float64)
    if canonical == "rel":
        bad = np.flatnonzero(
            ~np.isfinite(numbers)
            | (numbers % 1 != 0)
            | (numbers < GRADE_RANGE[0])
            | (numbers > GRADE_RANGE[1])
        )
        if len(bad):
            raise fail(
                bad[0],
                f"relevance grade {values[bad[0]]!r} is not an integer from "
                f"{GRADE_RANGE[0]} to {GRADE_RANGE[1]}",
            )
        return numbers.astype(np.int64)
    bad = np.flatnonzero(~np.isfinite(numbers))
    if len(bad):
        raise fail(bad[0], f"{canonical} {quoted(str(values[bad[0]]))} is not a finite number")
    return numbers


def columns_from_frame(
    frame,
    label: str,
    required: tuple,
    optional: tuple,
    duplicates: str,
    *,
    first_row_line: int = 0,
    unit: str = "row",
) -> dict:
    """Checked columns of a table with named columns (from a file or a DataFrame): ids as text (no
    empty, missing or nested value), scores and ranks finite numbers (not booleans), grades whole
    numbers in range (``1.0`` is the grade 1, as trec_eval reads it; ``1.5`` is an error)."""

    if frame.empty:
        raise FormatError(
            label,
            0,
            None,
            "empty file: a header but no rows" if unit == "line" else "empty: no rows",
        )
    renamed = {}
    lower = {str(c).strip().lower(): c for c in frame.columns}
    for canonical in required + optional:
        match = next((lower[a] for a in COLUMN_ALIASES[canonical] if a in lower), None)
        if match is None and canonical in required:
            raise FormatError(
                label,
                1 if unit == "line" else 0,
                ", ".join(map(str, frame.columns)),
                f"missing column {canonical!r} (accepted names: "
                f"{', '.join(COLUMN_ALIASES[canonical])})",
            )
        if match is not None:
            renamed[canonical] = frame[match].reset_index(drop=True)
    frame = frame.reset_index(drop=True)

    def fail(row: int, reason: str) -> FormatError:
        return _row_error(label, frame, row, first_row_line, unit, reason)

    out: dict = {}
    for canonical, column in renamed.items():
        checked = _id_column if canonical in ("qid", "docid") else _number_column
        out[canonical] = checked(column, canonical, fail)
    qid_codes = encode_queries(out["qid"])["qid_codes"]
    dup_rows = duplicate_rows(qid_codes, out["docid"], DocidKeys.of(out["docid"]).values)
    if len(dup_rows):
        if duplicates == "error":
            raise fail(dup_rows[0], "docid appears twice for the same query in the run")
        first_of: dict = {}
        for row, pair in enumerate(zip(qid_codes.tolist(), out["docid"].to_pylist())):
            first_of.setdefault(pair, row)
        if duplicates == "qrels":
            pairs = list(
                zip(qid_codes[dup_rows].tolist(), out["docid"].take(pa.array(dup_rows)).to_pylist())
            )
            conflicting = [
                r for r, pair in zip(dup_rows, pairs) if out["rel"][first_of[pair]] != out["rel"][r]
            ]
            if conflicting:
                raise fail(
                    conflicting[0], "the same (qid, docid) judged twice with different grades"
                )
        keep = np.sort(np.fromiter(first_of.values(), dtype=np.int64))
        out = {
            k: (v.take(pa.array(keep)) if isinstance(v, pa.Array) else v[keep])
            for k, v in out.items()
        }
    return out


def _row_error(
    label: str, frame, row: int, first_row_line: int, unit: str, reason: str
) -> FormatError:
    line = ", ".join(str(v) for v in frame.iloc[int(row)].tolist())
    if unit == "line":
        return FormatError(label, int(row) + first_row_line, line, reason)
    return FormatError(label, 0, line, f"row {int(row) + 1}: {reason}")
