"""Tables as files a colleague opens elsewhere: CSV for spreadsheets, LaTeX for papers, and the
meeting's report as one HTML page (:func:`meeting_html`). A report's JSON is
:func:`rankviz.settings.numbers.to_json`, the command line's too.

User text (run names, query texts, docids) goes into both, so both are made inert: a CSV cell that
starts with ``=``, ``+``, ``-`` or ``@`` (or a tab or carriage return) is a formula to Excel and
LibreOffice and is prefixed with ``'`` (OWASP's advice; numbers are left as numbers), and every
LaTeX special character is escaped.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_LATEX = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def inert(value: object) -> object:
    """A cell value that no spreadsheet evaluates (text starting like a formula gets a leading
    ``'``)."""
    if isinstance(value, str) and value.startswith(_FORMULA_STARTS):
        return "'" + value
    return value


def csv(frame: pd.DataFrame, *, index: bool = True) -> bytes:
    """The frame as UTF-8 CSV with every text cell, index and header made inert."""
    safe = frame.copy()
    for column in safe.columns:
        if safe[column].dtype == object or pd.api.types.is_string_dtype(safe[column]):
            safe[column] = safe[column].map(inert)
    safe.columns = [inert(str(c)) for c in safe.columns]
    if index:
        safe.index = safe.index.map(lambda v: inert(v) if isinstance(v, str) else v)
        if safe.index.name is not None:
            safe.index.name = inert(str(safe.index.name))
    return safe.to_csv(index=index).encode()


def latex_escape(text: str) -> str:
    return "".join(_LATEX.get(char, char) for char in str(text))


def latex(
    means: pd.DataFrame, *, best: Mapping[str, list[str]] | None = None, digits: int = 4
) -> str:
    """A LaTeX tabular of runs x measures, the best value per measure in bold."""
    lines = [r"\begin{tabular}{l" + "r" * len(means.columns) + "}", r"\toprule"]
    lines.append("Run & " + " & ".join(latex_escape(c) for c in means.columns) + r" \\")
    lines.append(r"\midrule")
    for run, row in means.iterrows():
        cells = []
        for col, value in row.items():
            text = (
                "n/a"
                if value is None or (isinstance(value, float) and np.isnan(value))
                else f"{value:.{digits}f}"
            )
            cells.append(rf"\textbf{{{text}}}" if best and run in best.get(col, []) else text)
        lines.append(latex_escape(str(run)) + " & " + " & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(lines) + "\n"


# --- the meeting's report as one HTML page -------------------------------------------------------

_PAGE_CSS = """
body { font: 16px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto;
       max-width: 75rem; padding: 0 1rem; color: #111; background: #fff;
       overflow-wrap: anywhere; }
bdi, td, th { unicode-bidi: isolate; }
h1 { font-size: 1.6rem; } h2 { font-size: 1.25rem; margin-top: 2rem; }
h3 { font-size: 1.05rem; margin: 1.5rem 0 .3rem; }
.conventions { color: #555; font-size: .9rem; }
table { border-collapse: collapse; width: 100%; table-layout: fixed; margin: .4rem 0 1rem; }
th, td { border: 1px solid #ccc; padding: .2rem .35rem; text-align: left; vertical-align: top;
         overflow-wrap: anywhere; }
th { background: #f0f0f0; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
.better { color: #1a7a6e; font-weight: bold; } .worse { color: #b8472b; font-weight: bold; }
.note { white-space: pre-wrap; border-left: 3px solid #4477AA; padding-left: .6rem; }
section { break-inside: avoid-page; }
@media print { body { margin: 0; max-width: none; font-size: 10pt; } th, td { font-size: 8.5pt; } }
"""


def _when(text: str) -> str:
    """A time of the record in a reader's words (``2 Dec 2026, 06:28 UTC``), the exact instant
    kept in a ``<time>`` element; text that is not a time, escaped as it is."""
    import html
    from datetime import UTC, datetime

    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)
    except ValueError:
        return html.escape(text)
    said = f"{moment.day} {moment:%b %Y, %H:%M} UTC"
    return f'<time datetime="{html.escape(text)}">{said}</time>'


def _user(text: object) -> str:
    """Text from the record or the collection: escaped, and isolated from the text around it
    (a right-to-left override in a query id reverses nothing after it)."""
    import html

    return f"<bdi>{html.escape(str(text))}</bdi>"


def _cell(value: object, *, digits: int | None = None, time: bool = False) -> str:
    """One table cell, escaped; numbers right-aligned (``digits`` after the point when given)."""
    import html

    if value is None or (isinstance(value, float) and np.isnan(value)):
        return "<td></td>"
    if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
        if digits is None:
            shown = f"{value:g}"
        else:  # a negative digits: signed (a change)
            shown = f"{value:{'+' if digits < 0 else ''}.{abs(digits)}f}"
        return f'<td class="num">{html.escape(shown)}</td>'
    text = _when(str(value)) if time else html.escape(str(value))
    kind = {"better": "better", "worse": "worse"}.get(str(value))
    return f'<td class="{kind}">{text}</td>' if kind else f"<td>{text}</td>"


def _table(
    frame: pd.DataFrame,
    digits: Mapping[str, int] | None = None,
    widths: Mapping[str, str] | None = None,
) -> str:
    import html

    digits, widths = digits or {}, widths or {}
    cols = "".join(
        f'<col style="width:{widths[c]}">' if c in widths else "<col>" for c in frame.columns
    )
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in frame.columns)
    body = "".join(
        "<tr>"
        + "".join(
            _cell(v, digits=digits.get(c), time=c == "at")
            for c, v in zip(frame.columns, row, strict=True)
        )
        + "</tr>"
        for row in frame.itertuples(index=False)
    )
    columns = f"<colgroup>{cols}</colgroup><thead><tr>{head}</tr></thead>"
    return f"<table>{columns}<tbody>{body}</tbody></table>"


def meeting_html(report) -> str:
    """The meeting's report (:class:`rankviz.analyses.meeting_report.MeetingReport`) as one
    self-contained HTML page: no script, no request leaves it, every piece of user text escaped, and
    fixed-width tables that print on A4 without cut columns."""
    import html

    e = html.escape
    parts = [
        '<!doctype html><html lang="en"><head><meta charset="utf-8">',
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; style-src '
        "'unsafe-inline'\">",
        f"<title>{e(report.collection)}: the meeting's "
        f"report</title><style>{_PAGE_CSS}</style></head><body>",
        f"<h1>{_user(report.collection)}: what the meeting decided</h1>",
        f'<p class="conventions">{" · ".join(_user(c) for c in report.conventions)}</p>',
        f"<p>{report.judgments:,} document(s) judged by the meeting; {len(report.queries):,} "
        "query(ies) discussed. "
        f"Verdicts: each run against {_user(report.baseline)}.</p>",
        f"<p>{_user(report.authorship)}"
        + (
            f" The meeting is locked (by {_user(report.lock.by)} at {_user(report.lock.at)})."
            if report.lock.locked
            else ""
        )
        + "</p>",
        "<h2>Means under the qrels file and with the meeting's judgments</h2>",
        _table(report.means, {"qrels file": 4, "with the meeting's": 4, "change": -4}),
        "<h2>The queries the meeting discussed</h2>",
    ]
    for query in report.queries:
        parts.append(
            f"<section><h3>Query {_user(query.qid)}"
            f"{': ' + _user(query.text) if query.text else ''}</h3>"
        )
        if query.tags:
            parts.append(f"<p>Tags: {', '.join(_user(t) for t in query.tags)}</p>")
        if query.note:
            parts.append(f'<p class="note">{_user(query.note)}</p>')
        widths = {
            "docid": "11%",
            "move": "8%",
            "qrels file": "7%",
            "meeting": "7%",
            "by": "8%",
            "at": "14%",
            "title": "31%",
        }
        parts.append(_table(query.documents, widths=widths))
        if query.history:
            history = pd.DataFrame([vars(entry) for entry in query.history])[
                ["at", "by", "via", "kind", "what", "previous", "note"]
            ].rename(columns={"via": "known by"})
            parts.append(
                "<details open><summary>History</summary>" + _table(history) + "</details>"
            )
        parts.append("</section>")
    parts.append("</body></html>\n")
    return "".join(parts)
