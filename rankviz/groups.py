"""Query groups and weights: break every mean down by a query facet, or weigh queries unequally.

A groups file is a TSV (or CSV) with a header: ``qid`` and any categorical columns (a column named
``query`` or ``text`` is the query's text, not a group). A weights file has ``qid`` and ``weight``.
Conversation ids of the form ``topic_turn`` (TREC CAsT) give derived groups ``conversation`` and
``turn``.

Aggregation (the ``aggregate`` option) of per-query values into one number:

- ``query`` (default): the mean over queries, each counting once;
- ``macro``: the mean of the group means of a column, each group counting once;
- ``weights``: sum(w_q v_q) / sum(w_q) with weights from a file.

pandas is imported where a function needs it, so that ``python -m rankviz evaluate`` without
groups does not pay for it. Nothing is dropped silently: queries of the groups file that the qrels do not judge, and judged
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

from rankviz.errors import FormatError, OptionError

if TYPE_CHECKING:
    import pandas as pd

NO_GROUP = "(no group)"
ALL = "all"
TEXT_COLUMNS = ("query", "text")
AGGREGATES = ("query", "macro", "weights")
_TOPIC_TURN = re.compile(r"^(?P<conversation>.+)_(?P<turn>\d+)$")


@dataclass(frozen=True, eq=False)
class QueryGroups:
    """Categorical attributes of queries: ``frame`` is indexed by qid, one string column per attribute."""

    frame: pd.DataFrame
    source: str

    @property
    def columns(self) -> list[str]:
        return list(self.frame.columns)

    def column(self, name: str) -> pd.Series:
        if name not in self.frame.columns:
            raise OptionError(f"no group column {name!r} in {self.source}; columns: {', '.join(self.columns) or 'none'}")
        return self.frame[name]

    def merged(self, other: QueryGroups) -> QueryGroups:
        """Columns of both (this one's win on a name clash)."""
        extra = other.frame[[c for c in other.frame.columns if c not in self.frame.columns]]
        return QueryGroups(self.frame.join(extra, how="outer"), f"{self.source}, {other.source}")


def _read_table(path: str | os.PathLike, required: tuple[str, ...]) -> tuple[list[str], list[tuple[int, list[str]]]]:
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
    numbered = [(n, [f.strip() for f in fields]) for n, fields in enumerate(lines, start=1) if any(f.strip() for f in fields)]
    if not numbered:
        raise FormatError(label, 0, None, "empty file")
    header_line, header = numbered[0]
    missing = [c for c in required if c not in header]
    if missing or header[0] != "qid":
        raise FormatError(
            label, header_line, delimiter.join(header), f"the header must start with qid and name {', '.join(required)}"
        )
    rows = []
    seen: dict[str, int] = {}
    for line_no, fields in numbered[1:]:
        if len(fields) != len(header):
            raise FormatError(label, line_no, delimiter.join(fields), f"expected {len(header)} fields, found {len(fields)}")
        if not fields[0]:
            raise FormatError(label, line_no, delimiter.join(fields), "empty qid")
        if fields[0] in seen:
            raise FormatError(label, line_no, delimiter.join(fields), f"qid {fields[0]} already given on line {seen[fields[0]]}")
        seen[fields[0]] = line_no
        rows.append((line_no, fields))
    return header, rows


def read_groups(path: str | os.PathLike) -> QueryGroups:
    """A groups file: header ``qid`` plus categorical columns (``query`` / ``text`` columns are skipped)."""
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
    """A weights file: ``qid`` and ``weight`` (a finite number >= 0)."""
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
            raise FormatError(str(path), line_no, "\t".join(fields), f"weight {fields[at]!r} is not a finite number >= 0")
        weights[fields[0]] = value
    return pd.Series(weights, name="weight").rename_axis("qid")


def derived_groups(qids) -> QueryGroups | None:
    """``conversation`` and ``turn`` when every qid looks like ``topic_turn`` (TREC CAsT); else None."""
    import pandas as pd

    qids = list(qids)
    matches = [_TOPIC_TURN.match(q) for q in qids]
    if not qids or not all(matches):
        return None
    frame = pd.DataFrame(
        {"conversation": [m["conversation"] for m in matches], "turn": [m["turn"] for m in matches]},
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
            lines.append(f"{len(self.unknown)} queries of {source} are not in the qrels and are ignored: {_listed(self.unknown)}")
        if self.ungrouped:
            lines.append(f"{len(self.ungrouped)} judged queries have no entry in {source}: {_listed(self.ungrouped)}")
        return lines


def _listed(qids: list[str]) -> str:
    return ", ".join(qids[:5]) + (" ..." if len(qids) > 5 else "")


def coverage(index: pd.Index, judged) -> Coverage:
    judged = set(judged)
    return Coverage(sorted(set(index) - judged), sorted(judged - set(index)))


def group_of(groups: QueryGroups, column: str, qids) -> pd.Series:
    """Each qid's group in ``column``; judged queries without one get ``(no group)``."""
    import pandas as pd

    return groups.column(column).reindex(pd.Index(list(qids), name="qid")).fillna(NO_GROUP).rename("group")


def aggregate(
    values: pd.Series | pd.DataFrame, *, how: str = "query", groups: pd.Series | None = None, weights: pd.Series | None = None
):
    """Per-query values (Series, or a queries x runs frame) into one mean per column.

    ``how="macro"`` needs ``groups`` (qid -> group); ``how="weights"`` needs ``weights`` covering
    every query (an uncovered query raises rather than silently weighing 0).
    """
    import pandas as pd

    if how == "query":
        return values.mean()
    if how == "macro":
        if groups is None:
            raise OptionError("aggregate=macro needs a group column")
        return values.groupby(groups.reindex(values.index)).mean().mean()
    if how == "weights":
        if weights is None:
            raise OptionError("aggregate=weights needs a weights file")
        w = weights.reindex(values.index)
        if w.isna().any():
            raise OptionError(f"no weight for {int(w.isna().sum())} queries: {_listed(list(w.index[w.isna()]))}")
        if w.sum() <= 0:
            raise OptionError("the weights of the evaluated queries sum to 0")
        if isinstance(values, pd.DataFrame):
            return values.mul(w, axis=0).sum() / w.sum()
        return float((values * w).sum() / w.sum())
    raise OptionError(f"unknown aggregate {how!r}; choose one of {', '.join(AGGREGATES)}")


def weight_vector(qids, *, how: str = "query", groups: pd.Series | None = None, weights: pd.Series | None = None) -> np.ndarray:
    """The aggregate as weights over ``qids`` that sum to 1, so that any aggregate of per-query values
    is ``values @ w`` (used for many random trials at once)."""
    import pandas as pd

    index = pd.Index(list(qids))
    if not len(index):
        return np.zeros(0)
    if how == "query":
        return np.full(len(index), 1.0 / len(index))
    if how == "macro":
        if groups is None:
            raise OptionError("aggregate=macro needs a group column")
        member = groups.reindex(index)
        sizes = member.map(member.value_counts())
        return (1.0 / (sizes * member.nunique())).to_numpy(dtype=float)
    if how == "weights":
        if weights is None:
            raise OptionError("aggregate=weights needs a weights file")
        w = weights.reindex(index)
        if w.isna().any():
            raise OptionError(f"no weight for {int(w.isna().sum())} queries: {_listed(list(index[w.isna()]))}")
        return (w / w.sum()).to_numpy(dtype=float)
    raise OptionError(f"unknown aggregate {how!r}; choose one of {', '.join(AGGREGATES)}")


def group_means(matrix: pd.DataFrame, groups: pd.Series) -> pd.DataFrame:
    """Groups x runs means of a queries x runs matrix, with the number of queries per group (``queries``)."""
    by = groups.reindex(matrix.index)
    means = matrix.groupby(by, sort=True).mean()
    means.insert(0, "queries", matrix.groupby(by, sort=True).size())
    return means


@dataclass(frozen=True)
class Protocol:
    """A benchmark protocol (``[protocol]`` in collection.toml): per group of ``group_by``, its primary measure."""

    group_by: str
    default: str
    primary: dict[str, str]

    def measure_for(self, group: str) -> str:
        return self.primary.get(group, self.default)


def protocol_values(tables, groups: QueryGroups, protocol: Protocol, *, parse_measure, missing: str = "zero") -> pd.DataFrame:
    """Runs x groups: each group's mean of its primary measure, and ``macro``, the mean over groups.

    ``tables`` maps run names to ranking tables; ``parse_measure`` turns a measure name into a
    Measure with the collection's defaults. Judged queries without a group form ``(no group)``.
    """
    import pandas as pd

    from rankviz.compare import per_query_matrix

    columns = {}
    for group in sorted(set(group_of(groups, protocol.group_by, next(iter(tables.values())).qids))):
        measure = parse_measure(protocol.measure_for(group))
        matrix = per_query_matrix(tables, measure, missing=missing)
        members = group_of(groups, protocol.group_by, matrix.index)
        columns[f"{group}: {measure}"] = matrix[members == group].mean()
    frame = pd.DataFrame(columns)
    frame["macro"] = frame.mean(axis=1)
    return frame
