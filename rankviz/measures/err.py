"""Expected reciprocal rank (ERR, ERR@K), Chapelle et al. (CIKM 2009), as gdeval computes it."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from rankviz.errors import MeasureError
from rankviz.measures._groups import expected_cascade
from rankviz.measures._segments import exclusive_prefix_sum, per_query_sum, rows_with_grade_at_least
from rankviz.measures.spec import Family, register
from rankviz.settings import eval_settings as settings

if TYPE_CHECKING:
    from rankviz.ranking.ranking_table import RankingTable

GMAX = settings.GMAX


def expected_reciprocal_rank(table: RankingTable, cutoff: int | None, *, gmax: int) -> np.ndarray:
    """ERR@K = sum_{i<=K} R_i / i * prod_{j<i} (1 - R_j), with R = (2^g - 1) / 2^gmax.

    g is the grade when positive, else 0 (unjudged documents too). gmax is a constant of the
    measure, not the largest grade of the qrels (gdeval fixes it at 4); a grade above gmax anywhere
    in the qrels is an error, whatever the cutoff or the tie order. No normalisation. The product
    runs in log space per query so long lists cannot underflow.
    """
    table = table.top(cutoff)
    gained, stop = _stops(table, gmax)
    reach = np.exp(exclusive_prefix_sum(table, gained, np.log1p(-stop)))
    return per_query_sum(table, gained, stop * reach / (table.pos[gained] + 1.0))


def _stops(table: RankingTable, gmax: int) -> tuple[np.ndarray, np.ndarray]:
    """Rows with a positive grade (grade 0 stops no one: R = 0, continuation 1) and their R."""
    top = int(table.ideal_grades.max(initial=0))
    if top > gmax:
        raise MeasureError(
            f"ERR(gmax={gmax}): the qrels have grade {top} > gmax; set gmax to the "
            f"top grade ({top})"
        )
    gained = rows_with_grade_at_least(table, 1)
    return gained, (np.exp2(table.grade[gained].astype(np.float64)) - 1.0) / 2.0**gmax


def expected_err(table: RankingTable, cutoff: int | None, *, gmax: int) -> np.ndarray:
    """E[ERR@K] over random orders inside tie groups, exactly.

    The continuation past a whole earlier group is order-free; inside a group the chance of stopping
    at its x-th position is A(x-1) - A(x), A(t) the mean continuation of a random t-prefix, which
    depends on the group's grade counts only (:func:`rankviz.measures._groups.expected_cascade`).
    """
    gained, stop = _stops(table, gmax)
    return expected_cascade(table, cutoff, gained, stop, lambda rank: 1.0 / rank)


FAMILY = register(
    Family(
        name="ERR",
        aliases=(),
        params=(GMAX,),
        cutoff_required=False,
        kernel=expected_reciprocal_rank,
        expected=expected_err,
        definition="sum over ranks i <= K of R_i / i times the chance the user reached i, R = (2^g "
        "- 1) / 2^gmax",
        convention="gdeval ERR@K with gmax = 4 by default; not normalised",
    )
)
