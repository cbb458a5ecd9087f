"""Per-query scores of any evaluator, read into one long table (run, query, measure, value).

The forms read, each recognised by its content (never by the name alone):

- a table with a header naming a run column and a query column (TSV, CSV, Parquet, JSON lines),
  long (a ``measure`` and a ``value`` column) or wide (every other numeric column a measure);
- ``trec_eval -q`` output (``measure qid value``; the run named by its ``runid`` line, else by the
  file), ir_measures' ``-q`` output (``qid measure value``), pytrec_eval's JSON
  (``{qid: {measure: value}}``), both named by the file;
- a TREC AutoJudge leaderboard (``run measure topic value``), whose ``all`` rows are checked
  against the mean of the topics and then left out.

Every problem is one line naming the file and the line: a value that is not a number, a second value
for the same run, query and measure.
"""

from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from rankviz.errors import FormatError, quoted
from rankviz.io.delimited import read_delimited
from rankviz.io.score_forms import (
    QUERY_NAMES,
    RUN_NAMES,
    TABLE_FORMS,
    excel_separator,
    read_text,
    scores_form,
)
from rankviz.io.sources import sniff

MEASURE_NAMES = ("measure", "metric")
VALUE_NAMES = ("value", "score")
#: a table's column of the answers the scores judge (RAG answers, an LLM's responses)
TEXT_NAMES = ("answer", "text", "response")
#: a table's rows that summarise the queries (ir_measures' and trec_eval's all, ndeval's amean)
SUMMARY_ROWS = ("all", "amean")
#: trec_eval -q lines that are not per-query numbers
NOT_NUMBERS = ("runid", "relstring")


@dataclass(frozen=True, eq=False)
class Scores:
    """One file's scores: ``frame`` has columns run, query, measure, value and line (1-based, 0
    where the form has no lines); ``form`` says how it was read; ``notes`` what reading found."""

    source: str
    form: str
    frame: pd.DataFrame
    notes: tuple[str, ...] = ()
    #: a table's answers (an ``answer`` or ``text`` column): run, query, text, one per pair
    texts: pd.DataFrame | None = None


def read_scores(path: str | Path, *, label: str | None = None) -> Scores:
    """The scores of a file, in whichever form it holds them; a FormatError otherwise. ``label``:
    the file's name in messages and notes, and what names its run where the form does not (an
    upload's own name, not the path it was saved at)."""
    label = label or str(path)
    if not str(path).endswith(".parquet"):
        sniff(path, label)  # one that cannot be read (a truncated gzip) says so, not its form
    form = scores_form(path)
    if form is None:
        raise FormatError(label, 0, None, "not a file of per-query scores (see docs/scores.md)")
    if form == "parquet table":
        try:
            frame = pd.read_parquet(path)
        except (OSError, ValueError) as exc:  # pyarrow's ArrowInvalid is a ValueError
            reason = str(exc).splitlines()[0]
            raise FormatError(label, 0, None, f"not a readable Parquet file ({reason})") from None
        return _table(label, form, frame, first_row=0)
    text = read_text(label, path)
    if form == "pytrec_eval json":
        return _pytrec_json(label, text, Path(label).stem)
    if form == "json lines table":
        return _table(label, form, pd.DataFrame(_json_lines(label, text)), first_row=2)
    if form in TABLE_FORMS.values():
        return _table(label, form, *_delimited(label, form, text))
    fields = 4 if form == "autojudge leaderboard" else 3
    rows = [(n, line.split()) for n, line in enumerate(text.splitlines(), 1) if line.strip()]
    for n, row in rows:
        if len(row) != fields:
            raise FormatError(
                label, n, None, f"{len(row)} fields where {form} has {fields} on every line"
            )
    if form == "autojudge leaderboard":
        return _autojudge(label, rows)
    return _three_columns(label, form, rows, Path(label).stem)


def _delimited(label: str, form: str, text: str) -> tuple[pd.DataFrame, int]:
    """A TSV or CSV table as text cells (Excel's ``sep=`` line skipped), and the line of its first
    row (:func:`~rankviz.io.delimited.read_delimited`'s guards)."""
    separator = next(s for s, f in TABLE_FORMS.items() if f == form)
    header_line = 1
    first, _, rest = text.partition("\n")
    if excel_separator(first) is not None:
        text, header_line = rest, 2
    return read_delimited(text, label, separator, header_line=header_line), header_line + 1


def _json_lines(label: str, text: str) -> list[dict]:
    """One JSON object a line (blank lines skipped), or the line that is not one named."""
    rows = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise FormatError(label, n, None, f"not JSON ({exc.msg})") from None
        if not isinstance(row, dict):
            raise FormatError(label, n, None, "not a JSON object")
        rows.append(row)
    return rows


def scores_of_frame(frame: pd.DataFrame, *, source: str = "frame") -> Scores:
    """The scores of a frame with a run and a query column, long or wide, as a table file's."""
    return _table(source, "frame", frame.copy(), first_row=0)


def _number(label: str, line: int, text: object) -> float:
    try:
        value = float(str(text).strip())
    except ValueError:
        raise FormatError(
            label, line, None, f"the value {quoted(str(text))} is not a number"
        ) from None
    return value


def _numbers(label: str, long: pd.DataFrame, *, decimal_comma: bool) -> pd.Series:
    """The values as numbers (``nan`` and ``-nan`` too: no score), or the first row that is not
    one named: not a number, infinite (as run files refuse it), or so large that a sum of the
    table's values could overflow (a mean of ``inf``)."""
    text = long["value"].astype(str).str.strip()
    if decimal_comma:  # Excel's 0,5
        text = text.str.replace(",", ".", regex=False)
    value = pd.to_numeric(text, errors="coerce").astype(np.float64)
    bad = value.isna() & ~text.str.lower().isin(("nan", "-nan", "+nan"))
    if bad.any():
        first = long.index[bad.to_numpy()][0]
        _number(label, int(long.at[first, "line"]), long.at[first, "value"])  # says which
    largest = np.finfo(np.float64).max / max(len(value), 1)
    beyond = np.abs(value.to_numpy()) > largest  # inf too; NaN is not beyond
    if beyond.any():
        first = long.index[beyond][0]
        shown = quoted(str(long.at[first, "value"]).strip())
        raise FormatError(
            label,
            int(long.at[first, "line"]),
            None,
            f"the value {shown} is not a finite number"
            if np.isinf(value.at[first])
            else f"the value {shown} is too large to be averaged with the table's "
            f"{len(value):,} values (at most {largest:.3g}): scale the scores",
        )
    return value


def _column(label: str, frame: pd.DataFrame, wanted: tuple[str, ...], what: str) -> str | None:
    found = [c for c in frame.columns if str(c).strip().lower() in wanted]
    if len(found) > 1:
        raise FormatError(label, 1, None, f"two {what} columns ({', '.join(map(str, found))})")
    return found[0] if found else None


def _table(label: str, form: str, frame: pd.DataFrame, first_row: int) -> Scores:
    """A long table (run, query, measure, value) or a wide one (run, query, then a column per
    measure); ``first_row``: the file's line of row 0 (0: the form has no lines)."""
    run = _column(label, frame, RUN_NAMES, "run")
    query = _column(label, frame, QUERY_NAMES, "query")
    if run is None or query is None:
        raise FormatError(label, 1, None, "needs a run column and a query column")
    measure = _column(label, frame, MEASURE_NAMES, "measure")
    value = _column(label, frame, VALUE_NAMES, "value")
    text = _column(label, frame, TEXT_NAMES, "answer")
    texts = None if text is None else _texts(frame, run, query, text)
    if text is not None:
        frame = frame.drop(columns=[text])
    rows = range(first_row, len(frame) + first_row) if first_row else [0] * len(frame)
    line = pd.Series(rows, index=frame.index)
    if measure is not None and value is not None:
        long = frame[[run, query, measure, value]].set_axis(
            ["run", "query", "measure", "value"], axis=1
        )
        long = long.assign(line=line)
    else:
        kept = [run, query, *(c for c in frame.columns if c not in (run, query))]
        if len(kept) == 2:
            raise FormatError(label, 1, None, "names no measure column, and no measure and value")
        long = (
            frame[kept]
            .assign(line=line)
            .melt(id_vars=[run, query, "line"], var_name="measure", value_name="value")
            .rename(columns={run: "run", query: "query"})
        )
        long = long[long["value"].astype(str).str.strip() != ""]  # a blank cell: no score
    summary = long["query"].astype(str).str.strip().isin(SUMMARY_ROWS)
    left = int(summary.sum())
    notes = (f"summary values (query all or amean) left out: {left}",) if left else ()
    return dataclasses.replace(_checked(label, form, long[~summary].copy(), notes), texts=texts)


def _texts(frame: pd.DataFrame, run: str, query: str, text: str) -> pd.DataFrame:
    """Each (run, query)'s answer: the first one written (a long table repeats it per measure)."""
    found = frame[[run, query, text]].set_axis(["run", "query", "text"], axis=1).astype(str)
    found = found[found["text"].str.strip() != ""]
    return found.drop_duplicates(["run", "query"]).reset_index(drop=True)


def _checked(label: str, form: str, long: pd.DataFrame, notes: tuple[str, ...]) -> Scores:
    """Values as numbers, names as text, and no (run, query, measure) twice."""
    for column in ("run", "query", "measure"):
        long[column] = long[column].astype(str).str.strip()
    long["value"] = _numbers(label, long, decimal_comma=form == "semicolon csv table")
    twice = long.duplicated(["run", "query", "measure"], keep=False)
    if twice.any():
        rows = long[twice]
        first, second = rows.iloc[0], rows[rows.duplicated(["run", "query", "measure"])].iloc[0]
        raise FormatError(
            label,
            int(second["line"]),
            None,
            f"a second value for run {quoted(first['run'])}, query {quoted(first['query'])}, "
            f"measure {quoted(first['measure'])}"
            + (f" (the first at line {int(first['line'])})" if first["line"] else ""),
        )
    undefined = long["value"].isna()  # trec_eval's and ndeval's -nan: 0/0, no score
    if undefined.any():
        notes += (f"NaN values (undefined, 0/0) left out: {int(undefined.sum())}",)
    frame = long.loc[~undefined, ["run", "query", "measure", "value", "line"]]
    return Scores(label, form, frame.reset_index(drop=True), notes)


def _three_columns(label: str, form: str, rows: list[tuple[int, list[str]]], stem: str) -> Scores:
    """trec_eval -q (measure qid value; its ``all`` rows are its summary) or ir_measures -q (qid
    measure value)."""
    run = stem
    kept = []
    for n, (a, b, c) in rows:
        measure, query = (a, b) if form == "trec_eval -q" else (b, a)
        if form == "trec_eval -q" and measure == "runid":
            run = c
        if query == "all" or measure in NOT_NUMBERS:
            continue
        kept.append((measure, query, c, n))
    long = pd.DataFrame(kept, columns=["measure", "query", "value", "line"]).assign(run=run)
    rounded = ROUNDED.format(form) if _four_places(long["value"]) else None
    return _checked(label, form, long, (rounded,) if rounded else ())


#: Said of a file whose every value has four decimals (trec_eval's ``%6.4f``): two runs' values
#: equal there may differ in the fifth, so a tie it counts may be one of rounding.
ROUNDED = (
    "values printed to 4 decimals ({}): a tie counted between two runs may be one of rounding "
    "(ir_measures' or pytrec_eval's output keeps every digit)"
)


def _four_places(values: pd.Series) -> bool:
    text = values.astype(str).str.strip()
    return bool(len(text)) and bool(text.str.fullmatch(r"[-+]?\d+\.\d{4}").all())


def _pytrec_json(label: str, text: str, stem: str) -> Scores:
    try:
        found = json.loads(text)
    except json.JSONDecodeError as exc:
        raise FormatError(label, exc.lineno, None, f"not JSON ({exc.msg})") from None
    if not isinstance(found, dict) or not all(isinstance(v, dict) for v in found.values()):
        raise FormatError(label, 0, None, "pytrec_eval's JSON is {query: {measure: value}}")
    rows = [(stem, q, m, v, 0) for q, by in found.items() for m, v in by.items()]
    return _checked(
        label,
        "pytrec_eval json",
        pd.DataFrame(rows, columns=["run", "query", "measure", "value", "line"]),
        (),
    )


def _autojudge(label: str, rows: list[tuple[int, list[str]]]) -> Scores:
    """``run measure topic value``; each ``all`` row must be the mean of the run's topics (1e-6),
    then it is left out."""
    frame = pd.DataFrame(
        [(r, m, t, v, n) for n, (r, m, t, v) in rows],
        columns=["run", "measure", "query", "value", "line"],
    )
    summary = frame[frame["query"] == "all"]
    scores = _checked(label, "autojudge leaderboard", frame[frame["query"] != "all"].copy(), ())
    means = scores.frame.groupby(["run", "measure"])["value"].mean()
    for row in summary.itertuples():
        stated = _number(label, int(row.line), row.value)
        mean = means.get((row.run, row.measure))
        if mean is not None and not math.isclose(stated, mean, rel_tol=1e-6, abs_tol=1e-6):
            raise FormatError(
                label,
                int(row.line),
                None,
                f"the 'all' row of run {quoted(row.run)}, measure {quoted(row.measure)} says "
                f"{stated:g}, the mean of its topics is {mean:g}",
            )
    return scores
