"""What a ranking table derives once for several measures (``RankingTable.derived``): the gain walk
of ``G``, ``ndcg_rel`` and ``Rndcg``, the running best precision of every ``IPrec`` level. Shared
within one table, never across tables: a table regraded by a meeting's judgments derives its own."""

from __future__ import annotations

import numpy as np

import rankviz as rv
from rankviz.measures._ideal import GainWalk
from rankviz.ranking.ordering import rank
from rankviz.ranking.regrading import regrade

QRELS = "".join(f"{q} 0 d{q}{i} {g}\n" for q in (1, 2) for i, g in enumerate([2, 0, 1, 3, 0]))
RUN = "".join(f"{q} Q0 d{q}{i} {i + 1} {10 - i} r\n" for q in (1, 2) for i in range(6))
MEASURES = ["G", "ndcg_rel", "Rndcg", *(f"IPrec@{r / 10:.1f}" for r in range(11))]


def _values(table) -> dict[str, list[float]]:
    return {m: rv.parse(m)(table).tolist() for m in MEASURES}


def test_a_walk_is_made_once_a_table_and_regraded_tables_make_their_own() -> None:
    run = rv.read_run(RUN.encode(), filename="run")
    table = rank(run, rv.read_qrels(QRELS.encode(), filename="qrels"))
    before = _values(table)
    assert GainWalk.of(table) is GainWalk.of(table)  # the families share one walk
    other = rv.read_qrels(QRELS.replace("d10 2", "d10 0").replace("d23 3", "d23 1").encode())
    regraded = regrade(table, run, other)
    assert GainWalk.of(regraded) is not GainWalk.of(table)
    assert _values(regraded) == _values(rank(run, other))  # not the first table's walk
    assert _values(regraded) != before
    assert _values(table) == before
    assert np.isfinite(np.array(list(before.values()))).all()
