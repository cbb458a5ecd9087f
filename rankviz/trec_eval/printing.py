"""trec_eval 10's lines: a measure's name in 22 columns, the query, the value (``%6.4f``, counts as
whole numbers, a NaN as C prints it), each query's lines one after another."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain, repeat

#: The NaN an x86-64 CPU makes of an invalid operation (0 / 0): its sign bit set, so C's printf,
#: and trec_eval 10 built there, prints it ``-nan``.
C_NAN = -math.nan
#: trec_eval's counts, printed as whole numbers
COUNTS = (
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "num_nonrel_judged_ret",
    "prefs_num_prefs_poss",
    "prefs_num_prefs_ful",
    "prefs_num_prefs_ful_ret",
)


@dataclass(frozen=True)
class Form:
    """How lines print: ``z``, the name's prefix under -Z (every number a fraction then);
    ``number``, the format of a fraction (trec_eval's ``6.4f``)."""

    z: str
    number: str


def line(printed: str, qid: str, value: float | str, *, counts: bool, form: Form) -> str:
    """One line as trec_eval prints it: the name in 22 columns, counts as whole numbers, the rest
    in ``form``; under -Z every number in ``form`` and the name after a ``Z``."""
    if isinstance(value, str):  # relstring
        return f"{printed:<22}\t{qid}\t'{value}'\n"
    return f"{form.z}{printed:<22}\t{qid}\t{_text(value, counts and not form.z, form.number)}\n"


def _text(value: float, whole: bool, number: str) -> str:
    if value != value:  # C prints the sign of a NaN (Python does not), in the number's width
        width = int(number.split(".")[0] or 0)
        return f"{'-nan' if math.copysign(1.0, value) < 0 else 'nan':>{width}}"
    return str(int(value)) if whole else format(value, number)


def per_query_lines(
    shown: Sequence[tuple[str, str, list]], queries: Sequence[str], form: Form
) -> list[str]:
    """Every query's lines, as :func:`line` prints each: ``shown`` holds each printed name, its
    measure and its values in the order of ``queries``. One format string per query, each
    column's value formatted by it (``%`` formats a double as ``format`` does): a drop-in prints
    670,000 lines."""
    parts, texts = [], []
    for printed, base, values in shown:
        name = printed.replace("%", "%%")
        if base == "relstring":
            parts.append(f"{name:<22}\t%s\t'%s'\n")
            texts.append(values)
            continue
        whole = base in COUNTS and not form.z
        if any(v != v for v in values):  # a NaN: C prints its sign, Python does not
            spec, values = "%s", [_text(v, whole, form.number) for v in values]
        else:
            spec = "%d" if whole else f"%{form.number}"
        parts.append(f"{form.z}{name:<22}\t%s\t{spec}\n")
        texts.append(values)
    if not texts:
        return []
    template = "".join(parts)
    return [
        template % tuple(chain.from_iterable(zip(repeat(q), row)))
        for q, row in zip(queries, zip(*texts), strict=True)
    ]
