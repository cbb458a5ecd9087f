"""The geometric means of AP and Bpref (trec_eval's ``gm_map`` and ``gm_bpref``; Robertson's GMAP)
and the logs they are means of. A geometric mean is a mean of logs: GMAP's and GMBpref's per-query
values are log(max(AP, 1e-5)) and log(max(Bpref, 1e-5)), as trec_eval keeps them, which paired
tests and intervals take; their mean is shown as exp of the mean of those logs (the family's
:data:`~rankviz.measures.aggregators.GEOMETRIC` aggregator), the number trec_eval prints. logAP and
logBpref are the same logs with their mean shown as it is (the log of the geometric mean)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from rankviz.measures._common import REL
from rankviz.measures.aggregators import GEOMETRIC
from rankviz.measures.ap import average_precision
from rankviz.measures.bpref import bpref
from rankviz.measures.spec import Family, register

if TYPE_CHECKING:
    from rankviz.ranking.ranking_table import RankingTable

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
GMAP_FAMILY = register(
    Family(
        name="GMAP",
        aliases=("gm_map",),
        params=(REL,),
        cutoff_required=False,
        kernel=log_ap,
        expected=None,
        definition="the geometric mean of AP (floored at 1e-5); per query, log(max(AP, 1e-5))",
        convention="trec_eval gm_map; per-query values and paired tests are the logs (Robertson's "
        "GMAP), the mean is exp of their mean; no closed form under ties=expected",
        aggregator=GEOMETRIC,
    )
)
GM_BPREF_FAMILY = register(
    Family(
        name="GMBpref",
        aliases=("gm_bpref",),
        params=(REL,),
        cutoff_required=False,
        cutoff_allowed=False,
        kernel=log_bpref,
        expected=None,
        definition="the geometric mean of Bpref (floored at 1e-5); per query, "
        "log(max(Bpref, 1e-5))",
        convention="trec_eval gm_bpref; per-query values and paired tests are the logs, the mean "
        "is exp of their mean; no closed form under ties=expected",
        aggregator=GEOMETRIC,
    )
)
