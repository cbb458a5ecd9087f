"""The ideal ranking's DCG (trec_eval's ``ideal_dcg``): every judged document with a gain, highest
gain first, however few the run retrieves; the denominator nDCG divides by."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from rankviz.measures._gains import GAINS, IDEAL
from rankviz.measures._ideal import GainWalk
from rankviz.measures.spec import Family, register

if TYPE_CHECKING:
    from rankviz.ranking.ranking_table import RankingTable


def ideal_dcg(table: RankingTable, cutoff: None, *, gains: str | None, ideal: str) -> np.ndarray:
    """sum over the ideal ranking's positions i of gain_i / log2(i + 1), summed in rank order (as
    trec_eval adds them); a gain below 0 is not in the ideal ranking."""
    return GainWalk.of(table, gains, ideal).whole_ideal_dcg(np.arange(table.n_queries))


def _expected(table: RankingTable, cutoff: None, *, gains: str | None, ideal: str) -> np.ndarray:
    """The ideal ranking does not depend on the run's order: the same under every tie order."""
    return ideal_dcg(table, cutoff, gains=gains, ideal=ideal)


FAMILY = register(
    Family(
        name="IdealDCG",
        aliases=("ideal_dcg",),
        params=(GAINS, IDEAL),
        cutoff_required=False,
        cutoff_allowed=False,
        kernel=ideal_dcg,
        expected=_expected,
        definition="the DCG of the ideal ranking: every judged document with a gain, highest "
        "first (nDCG's denominator)",
        convention="trec_eval ideal_dcg: a grade is its gain, or a gain table's "
        "(ideal_dcg.1=3,2=9: gains={1:3,2:9}); the whole ideal ranking, whatever the run's length",
    )
)
