"""Query groups and weights: a query attribute to break every mean down by, or unequal weights.

A groups file is a TSV (or CSV) with a header: ``qid`` and any categorical columns (a column named
``query`` or ``text`` is the query's text, not a group). A weights file has ``qid`` and ``weight``.
Conversation ids of the form ``topic_turn`` (TREC CAsT) give derived groups ``conversation`` and
``turn``. Nothing is dropped silently: queries of the file that the qrels do not judge, and judged
queries with no group, are reported (:class:`Coverage`); the latter form the group ``(no group)``.
"""

from __future__ import annotations

import csv
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from rankviz.errors import FormatError, OptionError, quoted

if TYPE_CHECKING:
    import pandas as pd

NO_GROUP = "(no group)"
TEXT_COLUMNS = ("query", "text")
_TOPIC_TURN = re.compile(r"^(?P<conversation>.+)_(?P<turn>[0-9]+)$")


@dataclass(frozen=True, eq=False)
class QueryGroups:
    """Categorical attributes of queries: ``frame`` is indexed by qid, one string column per
    attribute.

    Parameters
    ----------
    frame
        Indexed by qid, one string column per attribute.
    source
        Where they were read from.
    """

    frame: pd.DataFrame
    source: str

    @property
    def columns(self) -> list[str]:
        return list(self.frame.columns)

    def column(self, name: str) -> pd.Series:
        if name not in self.frame.columns:
            raise OptionError(
                f"no group column {name!r} in {self.source}; columns: "
                f"{', '.join(self.columns) or 'none'}"
            )
        return self.frame[name]

    def merged(self, other: QueryGroups) -> QueryGroups:
        """Columns of both (this one's win on a name clash)."""
        extra = other.frame[[c for c in other.frame.columns if c not in self.frame.columns]]
        return QueryGroups(self.frame.join(extra, how="outer"), f"{self.source}, {other.source}")


def _read_table(
    path: str | os.PathLike, required: tuple[str, ...]
) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """Header and (line number, fields) rows of a small TSV/CSV, checked field by field."""
    label = str(path)
    delimiter = "," if label.lower().endswith(".csv") else "\t"
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            lines = list(csv.reader(handle, delimiter=delimiter))
    except UnicodeDecodeError:
        raise FormatError(label, 0, None, "not UTF-8 text") from None
    except OSError as exc:
        raise FormatError(label, 0, None, f"cannot read ({exc.strerror})") from None
    numbered = [
        (n, [f.strip() for f in fields])
        for n, fields in enumerate(lines, start=1)
        if any(f.strip() for f in fields)
    ]
    if not numbered:
        raise FormatError(label, 0, None, "empty file")
    header_line, header = numbered[0]
    missing = [c for c in required if c not in header]
    if missing or header[0] != "qid":
        raise FormatError(
            label,
            header_line,
            delimiter.join(header),
            f"the header must start with qid and name {', '.join(required)}",
        )
    rows = []
    seen: dict[str, int] = {}
    for line_no, fields in numbered[1:]:
        if len(fields) != len(header):
            raise FormatError(
                label,
                line_no,
                delimiter.join(fields),
                f"expected {len(header)} fields, found {len(fields)}",
            )
        if not fields[0]:
            raise FormatError(label, line_no, delimiter.join(fields), "empty qid")
        if fields[0] in seen:
            raise FormatError(
                label,
                line_no,
                delimiter.join(fields),
                f"qid {fields[0]} already given on line {seen[fields[0]]}",
            )
        seen[fields[0]] = line_no
        rows.append((line_no, fields))
    return header, rows


def read_groups(path: str | os.PathLike) -> QueryGroups:
    """A groups file: header ``qid`` plus categorical columns (``query`` / ``text`` columns are
    skipped).

    Parameters
    ----------
    path
        A TSV or CSV file.

    Returns
    -------
    QueryGroups
        Each query's attributes, one column per attribute."""
    import pandas as pd

    header, rows = _read_table(path, ("qid",))
    keep = [i for i, name in enumerate(header) if i > 0 and name.lower() not in TEXT_COLUMNS]
    if not keep:
        raise FormatError(str(path), 1, "\t".join(header), "no group column after qid")
    frame = pd.DataFrame(
        {header[i]: [fields[i] for _, fields in rows] for i in keep},
        index=pd.Index([fields[0] for _, fields in rows], name="qid"),
    )
    return QueryGroups(frame, Path(path).name)


def read_weights(path: str | os.PathLike) -> pd.Series:
    """A weights file: ``qid`` and ``weight`` (a finite number >= 0).

    Parameters
    ----------
    path
        A TSV or CSV file.

    Returns
    -------
    pandas.Series
        Each query's weight, indexed by qid."""
    import pandas as pd

    header, rows = _read_table(path, ("qid", "weight"))
    at = header.index("weight")
    weights = {}
    for line_no, fields in rows:
        try:
            value = float(fields[at])
        except ValueError:
            value = float("nan")
        if not np.isfinite(value) or value < 0:
            raise FormatError(
                str(path),
                line_no,
                "\t".join(fields),
                f"weight {quoted(fields[at])} is not a finite number >= 0",
            )
        weights[fields[0]] = value
    return pd.Series(weights, name="weight").rename_axis("qid")


def derived_groups(qids) -> QueryGroups | None:
    """``conversation`` and ``turn`` when every qid looks like ``topic_turn`` (TREC CAsT); else
    None."""
    import pandas as pd

    qids = list(qids)
    matches = [_TOPIC_TURN.match(q) for q in qids]
    found = [m for m in matches if m is not None]
    if not qids or len(found) < len(matches):
        return None
    frame = pd.DataFrame(
        {"conversation": [m["conversation"] for m in found], "turn": [m["turn"] for m in found]},
        index=pd.Index(qids, name="qid"),
    )
    return QueryGroups(frame, "qid (topic_turn)")


@dataclass(frozen=True)
class Coverage:
    """How a groups (or weights) file lines up with the judged queries."""

    unknown: list[str]  # in the file, not judged: ignored
    ungrouped: list[str]  # judged, not in the file: group (no group), or an error for weights

    def messages(self, source: str) -> list[str]:
        lines = []
        if self.unknown:
            lines.append(
                f"{len(self.unknown)} queries of {source} are not in the qrels and are "
                f"ignored: {_listed(self.unknown)}"
            )
        if self.ungrouped:
            lines.append(
                f"{len(self.ungrouped)} judged queries have no entry in {source}: "
                f"{_listed(self.ungrouped)}"
            )
        return lines


def _listed(qids: list[str]) -> str:
    return ", ".join(qids[:5]) + (" ..." if len(qids) > 5 else "")


def coverage(index: pd.Index, judged) -> Coverage:
    judged = set(judged)
    return Coverage(sorted(set(index) - judged), sorted(judged - set(index)))


def group_of(groups: QueryGroups, column: str, qids) -> pd.Series:
    """Each qid's group in ``column``; judged queries without one get ``(no group)``."""
    import pandas as pd

    return (
        groups.column(column)
        .reindex(pd.Index(list(qids), name="qid"))
        .fillna(NO_GROUP)
        .rename("group")
    )
