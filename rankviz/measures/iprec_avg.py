"""The interpolated precision averaged over the eleven recall levels 0.0, 0.1, .., 1.0, or over
the levels given (trec_eval's ``11pt_avg`` and ``11pt_avg.0.25,0.5,0.75``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from rankviz.errors import OptionError
from rankviz.measures._common import REL
from rankviz.measures.iprec import interpolated_precision, undefined_at
from rankviz.measures.spec import Family, register
from rankviz.measures.spellings import IPREC_LEVELS
from rankviz.settings.options import Option

if TYPE_CHECKING:
    from rankviz.ranking.ranking_table import RankingTable


def recall_levels(text: str) -> tuple[float, ...]:
    """The recall levels written ``{0.25,0.5,0.75}`` (braces optional), sorted as trec_eval sorts
    them; each in [0, 1]."""
    items = [item for item in text.strip().strip("{}").split(",") if item.strip()]
    try:
        levels = sorted(float(item) for item in items)
    except ValueError:
        raise OptionError(
            f"levels={text!r}: expected recall levels like {{0.25,0.5,0.75}}"
        ) from None
    if not levels or not all(0.0 <= level <= 1.0 for level in levels):
        raise OptionError(f"levels={text!r}: recall levels are from 0 to 1, at least one")
    return tuple(levels)


def _canonical(text: str) -> str:
    return "{" + ",".join(repr(level) for level in recall_levels(text)) + "}"


LEVELS = Option(
    "levels",
    None,
    "the recall levels averaged, {0.25,0.5,0.75} (trec_eval's 11pt_avg.0.25,0.5,0.75); none "
    "given: the eleven levels 0.0, 0.1, .., 1.0",
    kind=str,
    optional=True,
    validate=_canonical,
)


def iprec_avg(table: RankingTable, cutoff: None, *, rel: int, levels: str | None) -> np.ndarray:
    """The mean of the interpolated precision at each level, summed from the highest level down
    as trec_eval adds them (so equal to its last digit)."""
    at = IPREC_LEVELS if levels is None else recall_levels(levels)
    grid = interpolated_precision(table, at, rel=rel)
    total = np.zeros(table.n_queries)
    for column in range(len(at) - 1, -1, -1):
        total += grid[:, column]
    return total / len(at)


def _undefined(table: RankingTable, cutoff: None, *, rel: int, levels: str | None) -> np.ndarray:
    """A 0 / 0 at any level makes the sum one."""
    at = IPREC_LEVELS if levels is None else recall_levels(levels)
    return np.asarray(undefined_at(table, at, rel=rel).any(axis=1))


FAMILY = register(
    Family(
        name="IPrecAvg",
        aliases=("11pt_avg",),
        params=(REL, LEVELS),
        cutoff_required=False,
        cutoff_allowed=False,
        kernel=iprec_avg,
        undefined=_undefined,
        expected=None,  # maxima over ranks: no closed form over the orders of tied documents
        definition="the mean of the interpolated precision at the recall levels 0.0, 0.1, .., 1.0 "
        "(or at those given)",
        convention="trec_eval 11pt_avg (levels rounded as its lround); no closed form under "
        "ties=expected",
    )
)
