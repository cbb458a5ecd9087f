"""A gain table: the gain of each grade it lists, as trec_eval's ``ndcg.1=3,2=9`` and ir_measures'
``nDCG(gains={1:3,2:9})`` give one; a grade it does not list gains as the measure's ``gain`` says
(linear: the grade itself, trec_eval's default). The table is a parameter of the gain measures
(nDCG, DCG, NCG, G, ndcg_rel, Rndcg, the graded RBP), held as its canonical text so a measure
stays a frozen, printable value; the ideal ranking is the judged documents sorted by their gains."""

from __future__ import annotations

import math
import re
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from rankviz.errors import OptionError
from rankviz.measures._common import gain_of
from rankviz.settings.options import Option

if TYPE_CHECKING:
    from rankviz.ranking.ranking_table import RankingTable

_ENTRY = re.compile(r"^\s*(?P<grade>[0-9]+)\s*[:=]\s*(?P<gain>[+-]?[0-9.eE+-]+)\s*$")


@lru_cache(maxsize=256)
def read_table(text: str) -> tuple[tuple[int, float], ...]:
    """The (grade, gain) pairs of ``{1:3,2:9}`` (or trec_eval's ``1=3,2=9``), by grade; an
    OptionError saying what is wrong otherwise. Grades are whole numbers >= 0 (a negative grade
    is in the pool, unjudged: it gains 0), gains finite numbers, each grade once."""
    body = text.strip()
    if body.startswith("{") and body.endswith("}"):
        body = body[1:-1]
    pairs: dict[int, float] = {}
    for item in body.split(","):
        entry = _ENTRY.match(item)
        gain = _number(entry["gain"]) if entry else None
        if entry is None or gain is None:
            raise OptionError(
                f"gains={text!r}: {item.strip()!r} should be grade:gain, a whole grade >= 0 and "
                "a finite gain, e.g. gains={1:3,2:9}"
            )
        grade = int(entry["grade"])
        if grade in pairs:
            raise OptionError(f"gains={text!r}: grade {grade} is given twice")
        pairs[grade] = gain
    return tuple(sorted(pairs.items()))


def _number(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def canonical(text: str) -> str:
    """The table as every output prints it: ``{1:3,2:9,4:4.5}``, by grade, whole gains without a
    point."""
    return "{" + ",".join(f"{g}:{_written(v)}" for g, v in read_table(text)) + "}"


def _written(value: float) -> str:
    return str(int(value)) if value == int(value) else repr(value)


GAINS = Option(
    "gains",
    None,
    "the gain of each grade listed, {grade:gain,...} (trec_eval's gain table ndcg.1=3,2=9); a "
    "grade not listed gains as gain says",
    kind=str,
    optional=True,
    validate=canonical,
)


def grade_gains(
    grades: np.ndarray, judged: np.ndarray | None, gain: str, gains: str | None
) -> np.ndarray:
    """The gain of each grade: the table's where it lists the grade, else ``gain``'s (negative
    grades gain 0). ``judged`` marks the grades read from the qrels: an unjudged document's grade 0
    gains 0 whatever the table gives grade 0 (None: all judged)."""
    out = gain_of(grades, gain)
    if gains is None:
        return out
    for grade, value in read_table(gains):
        listed = grades == grade
        if grade == 0 and judged is not None:
            listed &= judged
        out[listed] = value
    return out


def row_gains(table: RankingTable, gain: str, gains: str | None) -> tuple[np.ndarray, np.ndarray]:
    """The table's rows that gain something (in table order) and their gains."""
    if gains is None:
        rows = np.flatnonzero(table.grade >= 1)
        return rows, gain_of(table.grade[rows], gain)
    every = grade_gains(table.grade, table.judged, gain, gains)
    rows = np.flatnonzero(every != 0)
    return rows, every[rows]


def ideal_gains(table: RankingTable, gain: str, gains: str | None) -> np.ndarray:
    """Each query's ideal ranking as gains, aligned with ``table.ideal_pos``: its judged documents'
    gains, highest first, a gain below 0 as 0 (no ideal ranking ranks a document that costs)."""
    if gains is None:
        return gain_of(table.ideal_grades, gain)
    mapped = np.maximum(grade_gains(table.ideal_grades, None, gain, gains), 0.0)
    return mapped[np.lexsort((-mapped, table.ideal_query))]
