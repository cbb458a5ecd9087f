"""trec_eval 10's judgment-group measures (``-R qrels_jg``): ``map_avgjg``, ``P_avgjg`` and
``Rprec_mult_avgjg``, each query's value under each group's judgments (a group: one user's own set),
averaged over the groups that judge the query, step for step as its ``m_*_avgjg.c`` compute them."""

from __future__ import annotations

from rankviz.io.model import Qrels, Run
from rankviz.trec_eval.lists import QueryList, query_lists
from rankviz.trec_eval.measures import RPREC_MULTIPLES, rprec_mult, share_at_cutoffs

MEASURES = ("map_avgjg", "P_avgjg", "Rprec_mult_avgjg")
P_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)


def group_lists(
    groups: dict[str, Qrels], run: Run, *, rel: int, depth: int | None, judged_only: bool
) -> dict[str, list[QueryList]]:
    """Each query's lists, one per group that judges it (in the groups' byte order), each in
    trec_eval's order under that group's judgments."""
    from rankviz.ranking.ordering import rank
    from rankviz.settings.eval_settings import RunCut

    found: dict[str, list[QueryList]] = {}
    for qrels in groups.values():
        table = rank(run, qrels, ties="trec_eval", cut=RunCut(depth=depth))
        table = table.condensed() if judged_only else table
        for qid, ql in query_lists(table, qrels, rel, judged_only=judged_only).items():
            found.setdefault(qid, []).append(ql)
    return found


def columns(name: str, params: tuple, lists: dict[str, list[QueryList]], *, rel: int):
    """The measure's printed names, each with its value per query: the groups' values summed in
    their order, then divided by their number when there is more than one (as trec_eval)."""
    if name == "map_avgjg":
        return {name: {q: _averaged([[_ap(ql, rel)] for ql in qls])[0] for q, qls in lists.items()}}
    if name == "P_avgjg":
        cutoffs = params or P_CUTOFFS
        values = {
            q: _averaged([_precision(ql, cutoffs, rel) for ql in qls]) for q, qls in lists.items()
        }
        return {f"{name}_{c}": {q: v[i] for q, v in values.items()} for i, c in enumerate(cutoffs)}
    multiples = params or RPREC_MULTIPLES
    values = {
        q: _averaged([rprec_mult(ql, multiples, rel) for ql in qls]) for q, qls in lists.items()
    }
    return {
        f"{name}_{m:3.2f}": {q: v[i] for q, v in values.items()} for i, m in enumerate(multiples)
    }


def _averaged(per_group: list[list[float]]) -> list[float]:
    totals = [0.0] * len(per_group[0])
    for values in per_group:
        totals = [t + v for t, v in zip(totals, values, strict=True)]
    return [t / len(per_group) for t in totals] if len(per_group) > 1 else totals


def _ap(ql: QueryList, level: int) -> float:
    """m_map_avgjg.c for one group: precision at each relevant document retrieved, over R."""
    so_far, total = 0, 0.0
    for i, r in enumerate(ql.rels):
        if r >= level:
            so_far += 1
            total += so_far / (i + 1)
    return total / ql.num_rel if so_far else 0.0


def _precision(ql: QueryList, cutoffs, level: int) -> list[float]:
    """m_P_avgjg.c for one group: relevant in the top K / K (K past the list: still over K)."""
    return share_at_cutoffs([r >= level for r in ql.rels], cutoffs)
