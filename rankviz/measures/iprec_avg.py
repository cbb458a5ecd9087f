"""The interpolated precision averaged over the eleven recall levels 0.0, 0.1, .., 1.0
(trec_eval's ``11pt_avg``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from rankviz.measures._common import REL
from rankviz.measures.iprec import interpolated_precision
from rankviz.measures.spec import Family, register
from rankviz.measures.spellings import IPREC_LEVELS

if TYPE_CHECKING:
    from rankviz.ranking import RankingTable


def iprec_avg(table: RankingTable, cutoff: None, *, rel: int) -> np.ndarray:
    """The mean of IPrec@0.0 .. IPrec@1.0, summed from the highest level down as trec_eval adds
    them (so equal to its last digit)."""
    levels = interpolated_precision(table, IPREC_LEVELS, rel=rel)
    total = np.zeros(table.n_queries)
    for column in range(len(IPREC_LEVELS) - 1, -1, -1):
        total += levels[:, column]
    return total / len(IPREC_LEVELS)


FAMILY = register(
    Family(
        name="IPrecAvg",
        aliases=("11pt_avg",),
        params=(REL,),
        cutoff_required=False,
        cutoff_allowed=False,
        kernel=iprec_avg,
        expected=None,  # maxima over ranks: no closed form over the orders of tied documents
        definition="the mean of the interpolated precision at the recall levels 0.0, 0.1, .., 1.0",
        convention="trec_eval 11pt_avg (levels rounded as its lround); no closed form under "
        "ties=expected",
    )
)
