"""logAP and logBpref: the log of AP and of Bpref (floored at 1e-5), whose mean over queries is the
log of trec_eval's ``gm_map`` and ``gm_bpref``. A geometric mean is a mean of logs: these per-query
values are what its paired tests and intervals take (Robertson's GMAP), and exp of their mean is
the number trec_eval prints."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from rankviz.measures._common import REL
from rankviz.measures.ap import average_precision
from rankviz.measures.bpref import bpref
from rankviz.measures.spec import Family, register

if TYPE_CHECKING:
    from rankviz.ranking import RankingTable

#: trec_eval's MIN_GEO_MEAN: a 0 would make the geometric mean 0 whatever the other queries
FLOOR = 0.00001


def log_ap(table: RankingTable, cutoff: int | None, *, rel: int) -> np.ndarray:
    """log(max(AP, 1e-5)), as trec_eval's gm_map stores each query's value."""
    return np.log(np.maximum(average_precision(table, cutoff, rel=rel), FLOOR))


def log_bpref(table: RankingTable, cutoff: None, *, rel: int) -> np.ndarray:
    """log(max(Bpref, 1e-5)), as trec_eval's gm_bpref stores each query's value."""
    return np.log(np.maximum(bpref(table, cutoff, rel=rel), FLOOR))


FAMILY = register(
    Family(
        name="logAP",
        aliases=(),
        params=(REL,),
        cutoff_required=False,
        kernel=log_ap,
        expected=None,  # the log of a sum over orders: no closed form here
        definition="log(max(AP, 1e-5)); exp of its mean over queries is the geometric mean of AP",
        convention="exp of the mean is trec_eval gm_map (its summary line; GMAP); no closed form "
        "under ties=expected",
    )
)
BPREF_FAMILY = register(
    Family(
        name="logBpref",
        aliases=(),
        params=(REL,),
        cutoff_required=False,
        cutoff_allowed=False,
        kernel=log_bpref,
        expected=None,
        definition="log(max(Bpref, 1e-5)); exp of its mean over queries is the geometric mean of "
        "Bpref",
        convention="exp of the mean is trec_eval gm_bpref (its summary line); no closed form under "
        "ties=expected",
    )
)
