"""The grades a meeting may give: a collection's scale, and the check every grade passes on its way
in."""

from __future__ import annotations

import re
from collections.abc import Iterable

from rankviz.errors import RankvizError

#: The widest grades any record accepts; a collection's own scale (:func:`grade_scale`) is narrower.
GRADE_RANGE = (-1000, 1000)
Scale = tuple[int, int]


class GradeError(RankvizError, ValueError):
    """A grade that is not a whole number in the scale."""


def grade_scale(
    grades: Iterable[int], *, gmax: int | None = None, given: Scale | None = None
) -> Scale:
    """The grades a collection's record accepts: ``given`` (collection.toml's ``grades``), else from
    0 (or the lowest grade the qrels use, if lower) to the highest they use; never above ERR's
    ``gmax``,
    which no measure could read."""
    if given is not None:
        low, high = given
    else:
        used = [int(g) for g in grades]
        low, high = min([0, *used]), max([1, *used])
    if gmax is not None:
        high = min(high, gmax)
    if low > high:
        raise GradeError(f"the collection's grades {low} to {high} are empty (gmax is {gmax})")
    return low, high


def scale_text(scale: Scale) -> str:
    low, high = scale
    return f"{low} to {high}" if high - low > 9 else ", ".join(map(str, range(low, high + 1)))


def checked_grade(grade: object, scale: Scale = GRADE_RANGE) -> int:
    """A grade as an int, refused (with the allowed grades named) outside ``scale``."""
    if isinstance(grade, str) and re.fullmatch(r"[+-]?[0-9]+", grade.strip()):
        grade = int(grade)
    if isinstance(grade, bool) or not isinstance(grade, int):
        raise GradeError(f"a grade must be a whole number, not {grade!r}")
    low, high = scale
    if not low <= grade <= high:
        where = "" if scale == GRADE_RANGE else " of this collection"
        raise GradeError(f"grade {grade} is not one of the grades{where}: {scale_text(scale)}")
    return grade
