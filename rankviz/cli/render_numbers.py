"""Evaluations and comparisons as text: ``table`` (aligned, for people, with the conventions in
force below it), ``tsv`` (every value at full double precision) and ``json`` (a list or object of
records; NaN as null); and the measure catalogue. An empty cell in a table is never unexplained:
``n/a`` marks it and a footnote says why (the reports: :mod:`rankviz.cli.render_reports`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import chain, repeat
from json.encoder import encode_basestring
from typing import TYPE_CHECKING

import numpy as np

from rankviz.cli.tables import (
    NA,
    aligned,
    aligned_columns,
    footer,
    frame_table,
    frame_tsv,
    full,
    na_notes,
    number,
)
from rankviz.settings.eval_settings import ALL
from rankviz.settings.numbers import to_json

if TYPE_CHECKING:
    import pandas as pd

    from rankviz.study import Comparison, Evaluation, Standings


# --- evaluate ------------------------------------------------------------------------------------


def evaluation(result: Evaluation, fmt: str, *, per_query: bool = False) -> str:
    """The tidy records (tsv / json) or the runs x measures table (per query too, when asked).

    Each query's rows are written column by column from the evaluation's arrays, the same text
    as its records give: a dict per value (cleaned for json), then a cell at a time, cost a
    million queries several times their evaluation's CPU."""
    records = result.to_dict()  # the means
    keys = list(records[-1]) if records else ["run", "measure", "qid", "value"]
    if fmt == "json":
        objects = [
            *(
                map(_json_object, _query_cells_by_key(result, keys, _json_cells))
                if per_query
                else ()
            ),
            *(to_json(r)[:-1] for r in records),
        ]
        return "[" + ", ".join(objects) + "]\n"
    if fmt == "tsv":
        lines = [
            "\t".join(keys),
            *(map("\t".join, _query_cells_by_key(result, keys, _tsv_cells)) if per_query else ()),
            *("\t".join(full(r.get(k)) for k in keys) for r in records),
        ]
        return "\n".join(lines) + "\n"
    measures = [str(m) for m in result.measures]
    grouped = "group" in (records[-1] if records else {})
    # ties=random: each value's std over the trials
    spread = "std" in (records[-1] if records else {})
    columns = [(m, key) for m in measures for key in (("value", "std") if spread else ("value",))]
    heads = [m if key == "value" else f"{m} std" for m, key in columns]
    means = {(r["run"], r.get("group", ALL), r["measure"]): r for r in records}
    shown: list[tuple[str, str]] = list(
        dict.fromkeys((r["run"], r.get("group", ALL)) for r in records)
    )
    header = ["run", *(["group"] if grouped else []), *heads]
    rows = [
        [
            run,
            *([group] if grouped else []),
            *(number(means.get((run, group, m), {}).get(key)) for m, key in columns),
        ]
        for run, group in shown
    ]
    text = aligned(header, rows, labels=2 if grouped else 1)
    if per_query:
        cells = _query_cells(result, columns)
        text = aligned_columns(["run", "qid", *heads], cells, labels=2) + "\n" + text
    return text + footer(result.conventions())


def _query_cells_by_key(
    result: Evaluation, keys: list[str], cells_of: Callable[..., list[str]]
) -> Iterator[tuple[str, ...]]:
    """Each query's record of :meth:`Evaluation.records` (in their order) as the cells of its
    ``keys``; ``cells_of(key, strings=...)`` or ``cells_of(key, doubles=...)`` writes a column."""
    for run in result.runs:
        for measure in map(str, result.measures):
            qids, values = result.run_values(measure, run)
            std = result.query_std(measure, run)
            columns: dict[str, Iterable[str]] = {
                "run": repeat(cells_of("run", strings=[run])[0]),
                "measure": repeat(cells_of("measure", strings=[measure])[0]),
                "qid": cells_of("qid", strings=qids.tolist()),
                "value": cells_of("value", doubles=values),
            }
            if "group" in keys:
                columns["group"] = cells_of("group", strings=result.aggregation.groups(qids))
            if std is not None:
                columns["std"] = cells_of("std", doubles=std)
            yield from zip(*(columns[k] for k in keys))


def _tsv_cells(key: str, *, strings: Sequence = (), doubles: np.ndarray | None = None) -> list[str]:
    """:func:`full` of each: text as is, a double's repr, empty where it is not finite."""
    if doubles is not None:
        return _each(doubles, lambda v: repr(v) if v - v == 0.0 else "")
    return [v if type(v) is str else full(v) for v in strings]


def _json_cells(
    key: str, *, strings: Sequence = (), doubles: np.ndarray | None = None
) -> list[str]:
    """``"key": value`` as :func:`~rankviz.settings.numbers.to_json` writes a record's member:
    a double not finite is null, an infinite one followed by ``key_not_finite``."""
    name = encode_basestring(key)
    if doubles is None:
        return [
            f"{name}: {encode_basestring(v) if type(v) is str else to_json(v)[:-1]}"
            for v in strings
        ]

    def member(v: float) -> str:
        if v - v == 0.0:
            return f"{name}: {v!r}"
        if v != v:  # NaN
            return f"{name}: null"
        sign = "+inf" if v > 0 else "-inf"
        return f'{name}: null, {encode_basestring(key + "_not_finite")}: "{sign}"'

    return _each(doubles, member)


def _json_object(members: tuple[str, ...]) -> str:
    return "{" + ", ".join(members) + "}"


def _each(values: np.ndarray, text: Callable[[float], str]) -> list[str]:
    """``text`` of each value, made once per distinct double (bit for bit: 0.0 and -0.0 apart).
    Per-query values repeat: a measure of queries with one relevant document each takes a dozen
    values over a million queries, and a double's repr costs more than looking it up."""
    bits, where = np.unique(
        np.ascontiguousarray(values, dtype=np.float64).view(np.int64), return_inverse=True
    )
    texts = np.array([text(v) for v in bits.view(np.float64).tolist()], dtype=object)
    return texts[where.reshape(-1)].tolist()


def _query_cells(result: Evaluation, columns: list[tuple[str, str]]) -> list[list[str]]:
    """The per-query table's columns (run, qid, then each of ``columns``' cells): a run's rows are
    its queries in the order its measures first give them, n/a where a measure has no value."""
    run_cells: list[str] = []
    qid_cells: list[str] = []
    value_cells: list[list[str]] = [[] for _ in columns]
    for run in result.runs:
        given = {}
        for measure in dict.fromkeys(m for m, _ in columns):
            qids, values = result.run_values(measure, run)
            given[measure, "value"] = (qids, values)
            std = result.query_std(measure, run)
            if std is not None:
                given[measure, "std"] = (qids, std)
        answered = [qids for qids, _ in given.values()]
        same = all(np.array_equal(qids, answered[0]) for qids in answered)
        if same:
            order = answered[0].tolist()
        else:
            order = list(dict.fromkeys(chain.from_iterable(q.tolist() for q in answered)))
        run_cells += [run] * len(order)
        qid_cells += [q if type(q) is str else str(q) for q in order]
        for cells, column in zip(value_cells, columns):
            qids, values = given[column]
            numbers = _each(values, lambda v: f"{v:.4f}" if v - v == 0.0 else NA)
            if same:
                cells += numbers
            else:
                found = dict(zip(qids.tolist(), numbers))
                cells += [found.get(q, NA) for q in order]
    return [run_cells, qid_cells, *value_cells]


def protocol(values: pd.DataFrame, fmt: str) -> str:
    if fmt == "json":
        return to_json(values.to_dict(orient="index"))
    if fmt == "tsv":
        return frame_tsv(values.rename_axis("run"))
    return frame_table(values.rename_axis("run"))


# --- compare -------------------------------------------------------------------------------------

COMPARE_NOTES = {
    "statistic": "the test has no statistic here (Wilcoxon: every difference is zero)",
    "effect_size": "every per-query difference is the same: no spread to standardise by",
    "queries_needed": "every per-query difference is the same: any number of queries detects it",
    "ci_low": "fewer than two queries",
    "p_value": "fewer than two queries (both runs answer): no paired test",
}


def comparison(result: Comparison, fmt: str, *, conventions: list[str]) -> str:
    table = result.table
    if fmt == "json":
        return to_json(result.to_dict())
    if fmt == "tsv":
        return frame_tsv(table, index=False)
    shown = table.assign(verdict=result.verdicts()).drop(columns=["test"])
    notes = [
        result.describe(),
        "delta, statistic and interval are run - baseline",
        *na_notes(shown, COMPARE_NOTES),
        *conventions,
    ]
    return frame_table(shown, index=False) + footer(notes)


def with_standings(text: str, records: object, key: str, standings: Standings, fmt: str) -> str:
    """The output ``text`` (of ``records``) followed by the standings: table and tsv after a blank
    line; json one object ``{key: records, "standings": {...}}``."""
    if fmt == "json":
        return to_json({key: records, "standings": standings.to_dict()})
    frame = standings.to_frames()["standings"]
    if fmt == "tsv":
        return text + "\n" + frame_tsv(frame, index=False)
    shown = frame.assign(
        interval=[
            f"{low}-{high}" for low, high in zip(frame["rank_low"], frame["rank_high"], strict=True)
        ]
    )
    shown = shown[["measure", "run", "mean", "rank", "interval", "group", "queries"]]
    return text + "\n" + frame_table(shown, index=False) + footer([standings.describe()])


# --- measures -------------------------------------------------------------------------------------


def measures_table() -> str:
    from rankviz.measures import describe_families

    rows = describe_families()
    return aligned(
        ["measure", "definition", "convention", "parameters"], [list(r) for r in rows], labels=4
    )
