"""Which form of per-query scores a file holds, if any, told from its first lines (the whole file
for the three-column forms): what decides, before anything is read, whether a command's first file
is qrels or scores. No pandas here: a command on qrels and runs never pays for it."""

from __future__ import annotations

import json
from pathlib import Path

from rankviz.errors import FormatError
from rankviz.io.sources import read_bounded, sniff

RUN_NAMES = ("run", "runid", "run_id", "system", "run_name")
QUERY_NAMES = ("query", "qid", "query_id", "topic", "topic_id", "qno")
SNIFFED_LINES = 200
#: The tables' separators by form; Excel's CSV where a comma is the decimal mark separates by ;
TABLE_FORMS = {"\t": "tsv table", ",": "csv table", ";": "semicolon csv table"}
#: A byte order mark, which Excel and Notepad write before a UTF-8 file's first line.
BOM = "\ufeff"


def excel_separator(line: str) -> str | None:
    """The separator Excel's first line ``sep=;`` names, or None when the line is not one."""
    text = line.strip()
    return text[4] if len(text) == 5 and text.lower().startswith("sep=") else None


def is_scores(path: str | Path) -> bool:
    """Whether a file holds per-query scores (not qrels, not a run, not a folder)."""
    return Path(path).is_file() and scores_form(path) is not None


def scores_form(path: str | Path) -> str | None:
    """The form of the scores a file holds, or None when it holds something else (qrels, a run)."""
    if str(path).endswith(".parquet"):
        import pyarrow.parquet as pq

        try:
            names = [n.lower() for n in pq.read_schema(path).names]
        except (OSError, ValueError) as exc:  # pyarrow's ArrowInvalid is a ValueError
            raise FormatError(
                str(path), 0, None, f"not a readable Parquet file ({str(exc).splitlines()[0]})"
            ) from None
        return "parquet table" if _named(names, RUN_NAMES) and _named(names, QUERY_NAMES) else None
    try:  # a file that cannot be read (a truncated gzip too) is another reader's to name
        head = sniff(str(path), str(path)).decode("utf-8", errors="replace")
    except FormatError:
        return None
    lines = [line for line in head.removeprefix(BOM).splitlines() if line.strip()][:SNIFFED_LINES]
    if not lines:
        return None
    first = lines[0].strip()
    if first.startswith("{"):
        return "json lines table" if _a_record(first) else "pytrec_eval json"
    given = excel_separator(first)
    if given is not None:
        first = lines[1].strip() if len(lines) > 1 else ""
    for separator, form in TABLE_FORMS.items():
        names = [n.strip().strip('"').strip().lower() for n in first.split(separator)]
        if given in (None, separator) and _named(names, RUN_NAMES) and _named(names, QUERY_NAMES):
            return form
    fields = [line.split() for line in lines]
    if all(len(f) == 3 for f in fields):
        return _which_three_columns(path)
    if all(len(f) == 4 for f in fields) and _leaderboard(fields):
        return "autojudge leaderboard"
    return None


def _which_three_columns(path: str | Path) -> str:
    """trec_eval's (its ``runid`` line, its ``all`` rows in the second column, at the end) or
    ir_measures' (``all`` in the first, or none under its ``-n``): the whole file decides."""
    for line in read_text(str(path), path).splitlines():
        fields = line.split()
        if len(fields) == 3 and (fields[0] == "runid" or fields[1] == "all"):
            return "trec_eval -q"
    return "ir_measures -q"


def _a_record(line: str) -> bool:
    """Whether a line is one JSON object naming a run and a query (a line of a JSON lines table),
    not the start of pytrec_eval's ``{query: {measure: value}}``."""
    try:
        found = json.loads(line)
    except json.JSONDecodeError:
        return False
    names = [str(k).strip().lower() for k in found] if isinstance(found, dict) else []
    return _named(names, RUN_NAMES) and _named(names, QUERY_NAMES)


def _named(names: list[str], wanted: tuple[str, ...]) -> bool:
    return any(n in wanted for n in names)


def _leaderboard(fields: list[list[str]]) -> bool:
    """``run measure topic value``: a measure where qrels hold an iteration, a value that is not a
    grade (a fraction), or an ``all`` row."""
    named = all(not f[1].lstrip("+-").isdigit() and f[1] != "Q0" for f in fields)
    return named and any(f[2] == "all" or not f[3].lstrip("+-").isdigit() for f in fields)


def read_text(label: str, path: str | Path) -> str:
    """The file's text (decompressed, without a byte order mark), or a FormatError naming the line
    that is not UTF-8."""
    data = read_bounded(str(path), label)
    try:
        return data.decode("utf-8").removeprefix(BOM)
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise FormatError(label, line, None, "not UTF-8 text") from None
