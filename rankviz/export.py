"""Tables as files a colleague opens elsewhere: CSV for spreadsheets, LaTeX for papers.

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
    """A cell value that no spreadsheet evaluates (text starting like a formula gets a leading ``'``)."""
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


def latex(means: pd.DataFrame, *, best: Mapping[str, list[str]] | None = None, digits: int = 4) -> str:
    """A LaTeX tabular of runs x measures, the best value per measure in bold."""
    lines = [r"\begin{tabular}{l" + "r" * len(means.columns) + "}", r"\toprule"]
    lines.append("Run & " + " & ".join(latex_escape(c) for c in means.columns) + r" \\")
    lines.append(r"\midrule")
    for run, row in means.iterrows():
        cells = []
        for col, value in row.items():
            text = "n/a" if value is None or (isinstance(value, float) and np.isnan(value)) else f"{value:.{digits}f}"
            cells.append(rf"\textbf{{{text}}}" if best and run in best.get(col, []) else text)
        lines.append(latex_escape(str(run)) + " & " + " & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(lines) + "\n"
