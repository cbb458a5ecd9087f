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


def _ideal_order(text: str) -> str:
    """``gain``, ``trec_eval``, or ``trec_eval{2,1}``: trec_eval's order with the table's grades
    in the order its ``-m`` wrote them (which its sort keeps for gains under 1 apart)."""
    found = re.fullmatch(
        r"\s*(gain|trec_eval)\s*(?:\{\s*([0-9]+(?:\s*,\s*[0-9]+)*)\s*\})?\s*", text
    )
    if found is None or (found[1] == "gain" and found[2]):
        raise OptionError(
            f"ideal={text!r}: choose gain or trec_eval (trec_eval{{2,1}}: the table's grades in "
            "the order written)"
        )
    written = [int(g) for g in found[2].split(",")] if found[2] else []
    if len(set(written)) < len(written):
        raise OptionError(f"ideal={text!r}: a grade is given twice")
    return found[1] + ("{" + ",".join(map(str, written)) + "}" if written else "")


IDEAL = Option(
    "ideal",
    "gain",
    "the order of the ideal ranking under a gain table",
    kind=str,
    validate=_ideal_order,
    meanings={
        "gain": "the judged documents by gain, highest first",
        "trec_eval": "trec_eval 10's (gain_init.c): the grades sorted comparing gains cut to "
        "whole numbers, so gains under 1 apart keep the table's order (trec_eval{2,1}: as "
        "written), the ranking ending at the first grade that gains nothing",
    },
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


def ideal_gains(
    table: RankingTable, gain: str, gains: str | None, ideal: str = "gain"
) -> np.ndarray:
    """Each query's ideal ranking as gains, aligned with ``table.ideal_pos``: its judged documents'
    gains, highest first, a gain below 0 as 0 (no ideal ranking ranks a document that costs);
    ``ideal="trec_eval"``: in trec_eval's order (:func:`trec_eval_ideal`)."""
    if gains is None:
        return gain_of(table.ideal_grades, gain)
    if ideal.startswith("trec_eval"):
        return trec_eval_ideal(table, gains, ideal)
    mapped = np.maximum(grade_gains(table.ideal_grades, None, gain, gains), 0.0)
    return mapped[np.lexsort((-mapped, table.ideal_query))]


def trec_eval_ideal(table: RankingTable, gains: str, ideal: str = "trec_eval") -> np.ndarray:
    """The ideal gains as trec_eval 10 walks them (gain_init.c): the table's grades, then each
    other grade of the query at its own value, sorted by glibc's merge sort comparing the gains'
    difference cut to an int; walked from the last down, a grade without documents skipped, to the
    first that gains nothing (the last itself too: a walk that starts on no gain never starts)."""
    written = [int(g) for g in ideal.partition("{")[2].rstrip("}").split(",") if g]
    table_pairs = sorted(
        read_table(gains), key=lambda pair: written.index(pair[0]) if pair[0] in written else 1e9
    )
    listed = {grade for grade, _ in table_pairs}
    out = np.zeros(len(table.ideal_grades))
    for query in range(table.n_queries):
        low, high = table.ideal_offsets[query], table.ideal_offsets[query + 1]
        grades = table.ideal_grades[low:high]
        counts = np.bincount(grades[grades >= 0]).tolist()
        levels = [(value, counts[g] if g < len(counts) else 0) for g, value in table_pairs]
        levels += [(float(g), c) for g, c in enumerate(counts) if g not in listed]
        walked: list[float] = []
        ordered = _merge_sorted(levels)
        for value, count in reversed(ordered if ordered and ordered[-1][0] > 0 else []):
            if count and value <= 0:
                break
            walked += [value] * count
        out[low : low + len(walked)] = walked
    return out


def _merge_sorted(levels: list[tuple[float, int]]) -> list[tuple[float, int]]:
    """glibc's qsort of small arrays (msort.c, a top-down merge that takes from the left while
    ``cmp <= 0``) with gain_init.c's comparison, ``(int)(a - b)``: not an order, so no other sort
    gives its result."""
    if len(levels) <= 1:
        return levels
    left, right = (
        _merge_sorted(levels[: len(levels) // 2]),
        _merge_sorted(levels[len(levels) // 2 :]),
    )
    merged = []
    while left and right:
        merged.append(left.pop(0) if int(left[0][0] - right[0][0]) <= 0 else right.pop(0))
    return merged + left + right
