"""The command line's tables, plain text and TSV: aligned columns, fixed precision, n/a said."""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from itertools import chain
from typing import TYPE_CHECKING

from rankviz.settings.numbers import clean, p_text

if TYPE_CHECKING:
    import pandas as pd


NA = "n/a"


def full(value: object) -> str:
    """A TSV cell: text as is, numbers at full precision (repr round-trips a double)."""
    kind = type(value)
    if kind is str:
        return value  # type: ignore[return-value]
    if kind is float:  # most cells: a finite double as repr gives it, NaN and infinities empty
        return repr(value) if value - value == 0.0 else ""  # type: ignore[operator]
    if isinstance(value, str):
        return value
    value = clean(value)
    return "" if value is None else repr(value)


def footer(lines: Sequence[str]) -> str:
    return "".join(f"# {line}\n" for line in lines)


#: The widest table the command line prints: a wider one continues in blocks below (as pandas
#: prints a wide frame), each repeating the label columns, so it reads in a 100-column terminal.
TABLE_COLUMNS = 100


def aligned(header: Sequence[str], rows: Sequence[Sequence[object]], *, labels: int) -> str:
    """A plain text table: the first ``labels`` columns left-aligned, the rest right-aligned; past
    :data:`TABLE_COLUMNS` the other columns continue in blocks below, the labels repeated."""
    columns = [[str(row[i]) for row in rows] for i in range(len(header))]
    return aligned_columns(header, columns, labels=labels)


def aligned_columns(header: Sequence[str], columns: Sequence[list[str]], *, labels: int) -> str:
    """:func:`aligned` of the cells given column by column (a million queries' rows are each
    formatted by one call, not padded a cell at a time)."""
    widths = [
        max(len(str(name)), max(map(len, cells), default=0)) for name, cells in zip(header, columns)
    ]
    keys = list(range(min(labels, len(header))))
    blocks: list[list[int]] = [[]]
    room = TABLE_COLUMNS - sum(widths[i] + 2 for i in keys)
    used = 0
    for i in range(len(keys), len(header)):
        if blocks[-1] and used + widths[i] + 2 > room:
            blocks.append([])
            used = 0
        blocks[-1].append(i)
        used += widths[i] + 2

    def lines(shown: list[int]) -> str:
        form = "  ".join(f"{{:{'<' if i < labels else '>'}{widths[i]}}}" for i in shown)
        cells = (chain([str(header[i])], columns[i]) for i in shown)
        return "".join(line.rstrip() + "\n" for line in map(form.format, *cells))

    return "\n".join(lines(keys + block) for block in blocks)


def number(value: object, digits: int = 4) -> str:
    value = clean(value)
    if value is None:
        return NA
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    return f"{value:.{digits}f}" if isinstance(value, float) else str(value)


P_COLUMNS = ("p_value", "p_adjusted")


def frame_table(frame: pd.DataFrame, *, digits: int = 4, index: bool = True) -> str:
    """A DataFrame as an aligned table (NaN as n/a, booleans as yes/no, counts as whole numbers,
    p-values as :func:`~rankviz.settings.numbers.p_text`), formatted column by column so that a
    column of counts never takes the float type of its row."""
    header = ([frame.index.name or ""] if index else []) + [str(c) for c in frame.columns]
    columns = [_cells(frame.iloc[:, i], str(name), digits) for i, name in enumerate(frame.columns)]
    labels = [
        str(label) if not isinstance(label, tuple) else " ".join(map(str, label))
        for label in frame.index
    ]
    rows = [
        ([labels[r]] if index else []) + [column[r] for column in columns]
        for r in range(len(frame))
    ]
    return aligned(
        header, rows, labels=1 if index else sum(not _numeric(frame[c]) for c in frame.columns)
    )


def _cells(column: pd.Series, name: str, digits: int) -> list[str]:
    if name in P_COLUMNS:
        return [NA if clean(v) is None else p_text(float(v)) for v in column.tolist()]
    if column.dtype.kind in "iu" or str(column.dtype) == "Int64":
        return [NA if clean(v) is None else str(int(v)) for v in column.tolist()]
    return [number(v, digits) for v in column.tolist()]


def _numeric(column) -> bool:
    return column.dtype.kind in "iufb"


def frame_tsv(frame: pd.DataFrame, *, index: bool = True) -> str:
    header = ([frame.index.name or ""] if index else []) + [str(c) for c in frame.columns]
    lines = ["\t".join(header)]
    # per column, so an int column stays int beside floats
    for label, *values in frame.itertuples(name=None):
        lines.append("\t".join(([str(label)] if index else []) + [full(v) for v in values]))
    return "\n".join(lines) + "\n"


def tsv_rows(header: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """Tab-separated lines with a header, quoted as the csv module does where a field holds a tab,
    a line break or a quote (notes may), so every field reads back as it was written."""
    out = io.StringIO()
    writer = csv.writer(out, delimiter="\t", lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()


def na_notes(frame: pd.DataFrame, reasons: Mapping[str, str]) -> list[str]:
    """A footnote for each column (of ``reasons``) that holds an n/a cell."""
    return [
        f"n/a in {column}: {reason}"
        for column, reason in reasons.items()
        if column in frame and frame[column].isna().any()
    ]
