"""Normalised cumulated gain (NCG, NCG@K; Järvelin & Kekäläinen, TOIS 2002): nDCG without the
discount, the gain a run gathers in its top K over the most the top K could gather."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from rankviz.measures._gains import GAINS, ideal_gains, row_gains
from rankviz.measures._groups import expected_positional_sum
from rankviz.measures._segments import per_query_ideal_sum, per_query_sum, safe_divide
from rankviz.measures.spec import Family, register
from rankviz.settings import eval_settings as settings

if TYPE_CHECKING:
    from rankviz.ranking.ranking_table import RankingTable


def ncg(table: RankingTable, cutoff: int | None, *, gain: str, gains: str | None) -> np.ndarray:
    """NCG@K = CG@K / ideal CG@K, CG@K = the sum of the gains of the top K documents.

    The ideal ranking sorts every judged document of the query by grade, truncated at K; without
    K it is the whole ideal list, and NCG is the share of the qrels' gain the run retrieved. 0 when
    the ideal gains nothing. Negative grades and unjudged documents gain 0.
    """
    top = table.top(cutoff)
    gained, values = row_gains(top, gain, gains)
    found = per_query_sum(top, gained, values)
    return safe_divide(found, _ideal_cg(table, cutoff, gain, gains))


def _ideal_cg(table: RankingTable, cutoff: int | None, gain: str, gains: str | None) -> np.ndarray:
    ideal_in = np.ones(len(table.ideal_pos), bool) if cutoff is None else table.ideal_pos < cutoff
    return per_query_ideal_sum(table, ideal_gains(table, gain, gains) * ideal_in)


def expected_ncg(
    table: RankingTable, cutoff: int | None, *, gain: str, gains: str | None
) -> np.ndarray:
    """E[NCG@K] over random orders inside tie groups: a group cut by K brings its mean gain for
    each of its positions inside K; the ideal does not depend on the run's order."""
    gained, values = row_gains(table, gain, gains)
    found = expected_positional_sum(table, cutoff, gained, values)
    return safe_divide(found, _ideal_cg(table, cutoff, gain, gains))


FAMILY = register(
    Family(
        name="NCG",
        aliases=("ncg",),
        params=(settings.GAIN, GAINS),
        cutoff_required=False,
        kernel=ncg,
        expected=expected_ncg,
        definition="CG@K / ideal CG@K, CG = sum of the gains of the top K documents",
        convention="Järvelin & Kekäläinen 2002 (nDCG without its discount); linear gain or "
        "gain=exp or a gain table (gains={1:1,2:3}); ideal from all judged documents; negative "
        "grades gain 0",
    )
)
