"""The judgment-group families: trec_eval 10's measures of ``-R qrels_jg`` (``map_avgjg``,
``P_avgjg_K``, ``Rprec_mult_avgjg_M``), each query's value under each group's judgments (a group:
one user's own set, ``qid group docno rel``; the qrels' ``beside["groups"]``) averaged over the
groups that judge the query, as trec_eval's ``m_*_avgjg.c`` average them. Under each group a value
is the catalogue's (AP, P@K, Rprec(mult=M)) on the ranking table's own order, re-graded with the
group's judgments: one implementation of each measure, under every tie policy and cut.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from rankviz.io.id_keys import id_positions, sorted_unique_ids
from rankviz.io.model import Qrels, Run
from rankviz.measures._common import REL
from rankviz.measures.spec import Family, Measure, make, register
from rankviz.measures.spellings import CUTOFFS, RPREC_MULTIPLES
from rankviz.ranking import sorting
from rankviz.ranking.ordering import rank
from rankviz.settings.eval_settings import JUDGED_ONLY, RunCut
from rankviz.settings.options import Option

if TYPE_CHECKING:
    from rankviz.ranking.ranking_table import RankingTable

#: trec_eval's measures of judgment groups, and their default parameters (P's cutoffs, Rprec_mult's
#: multiples of R), as ``-m`` takes them
DEFAULTS = {
    "map_avgjg": (),
    "P_avgjg": CUTOFFS,
    "Rprec_mult_avgjg": RPREC_MULTIPLES,
}
#: every measure a collection with judgment groups offers, at trec_eval's default parameters
OFFERED = (
    "map_avgjg",
    *(f"P_avgjg_{k}" for k in CUTOFFS),
    *(f"Rprec_mult_avgjg_{m:3.2f}" for m in RPREC_MULTIPLES),
)


def group_values(
    groups: Mapping[str, Qrels],
    run: Run,
    measures: Sequence[Measure],
    *,
    depth: int | None = None,
) -> tuple[dict[str, dict[str, float]], list[str]]:
    """Each measure's value per query, averaged over the groups that judge it (the families on the
    run ranked in trec_eval's order against the groups' queries, what ``rankviz trec-eval -R
    qrels_jg`` prints).

    Parameters
    ----------
    groups
        Each group's judgments, in the order their values are summed (trec_eval's: the groups'
        byte order).
    run
        The run, ordered as trec_eval orders it.
    measures
        The judgment-group families' measures (their ``rel`` trec_eval's ``-l``, their
        ``judged_only`` its ``-J``).
    depth
        The first N documents of each ranking count (``-M``).

    Returns
    -------
    tuple
        (each measure's printed name -> {query: value}, the judged queries the run has no line
        for, which score 0)."""
    import pandas as pd

    from rankviz.io.frames import qrels_from_frame

    union = qrels_from_frame(
        pd.concat([q.to_frame() for q in groups.values()]).drop_duplicates(["qid", "docid"])
    ).with_beside(groups=dict(groups))
    table = rank(run, union, ties="trec_eval", cut=RunCut(depth=depth))
    found: dict[str, dict[str, float]] = {}
    for measure in measures:
        found[str(measure)] = dict(zip(map(str, table.qids), measure(table).tolist(), strict=True))
    return found, sorted(
        str(q) for q, kept in zip(table.qids, table.in_run, strict=True) if not kept
    )


def _regraded(table: RankingTable, name: str, qrels: Qrels) -> RankingTable:
    """The table's rows of the queries the group judges, with the group's grades and ideal
    rankings (its order kept): made once per table and group."""
    key = ("judgment group", name)
    if key not in table._cache:
        judged = sorted_unique_ids(qrels.query_ids)
        part = table.of_queries(judged)
        frame = qrels.to_frame()
        lookup = dict(zip(zip(frame.qid, frame.docid), frame.rel.tolist(), strict=True))
        qids = part.qids[part.row_query].tolist()
        grades = np.array(
            [lookup.get(pair, _NOT_JUDGED) for pair in zip(qids, part.docids().tolist())],
            dtype=np.int64,
        )
        listed = grades != _NOT_JUDGED
        own = qrels.restricted(part.qids.tolist())  # the queries of both
        seg_order = id_positions(part.qids, own.query_ids)
        ideal_offsets, ideal_grades, ideal_query, ideal_pos = sorting.ideal(
            own, np.arange(len(own.query_ids)), seg_order
        )
        table._cache[key] = replace(
            part,
            # as sorting.lookup_grades reads a qrels: a grade below 0 kept, and not judged
            grade=np.where(listed, grades, 0).astype(np.int32),
            judged=listed & (grades >= 0),
            ideal_offsets=ideal_offsets,
            ideal_grades=ideal_grades,
            ideal_query=ideal_query,
            ideal_pos=ideal_pos,
            _cache={},
        )
    return table._cache[key]


_NOT_JUDGED = -(2**31)


def _averaged(inner: Callable[..., Measure]) -> Callable[..., np.ndarray]:
    """A judgment-group family's kernel: ``inner(params)``'s value under each group that judges a
    query, summed group by group and divided by their number, as trec_eval's ``m_*_avgjg.c``."""

    def kernel(table, cutoff, *, rel: int, judged_only: bool, mult: float = 1.0) -> np.ndarray:
        measure = inner(cutoff=cutoff, rel=rel, mult=mult, judged_only=judged_only)
        total, count = np.zeros(table.n_queries), np.zeros(table.n_queries, dtype=np.int64)
        at = {q: i for i, q in enumerate(table.qids.tolist())}
        for name, qrels in table.beside["groups"].items():
            part = _regraded(table, name, qrels)
            rows = np.array([at[q] for q in part.qids.tolist()], dtype=np.int64)
            total[rows] = total[rows] + measure(part)
            count[rows] += 1
        return np.where(count > 1, total / np.maximum(count, 1), total)

    return kernel


def _written(measure: Measure) -> str:
    """trec_eval's name (``P_avgjg_10``, ``Rprec_mult_avgjg_0.50``) at the default relevance and
    lists; the catalogue's otherwise."""
    others = [(k, v) for k, v in measure.params if k != "mult"]
    if others:
        shown = ",".join(f"{k}={v}" for k, v in measure.params)
        return f"{measure.name}({shown})" + (f"@{measure.cutoff}" if measure.cutoff else "")
    if measure.name == "P_avgjg":
        return f"P_avgjg_{measure.cutoff}"
    if measure.name == "Rprec_mult_avgjg":
        return f"Rprec_mult_avgjg_{measure.number('mult'):3.2f}"
    return measure.name


MULT = Option(
    "mult", 1.0, "the multiple of R whose precision is taken", kind=float, low=1e-9, high=1e9
)
NEEDS = (
    "groups",
    "judgment groups (qid group docno rel, trec_eval's -R qrels_jg file): --judgment-groups FILE, "
    "or a collection folder's qrels_jg.txt",
)
_FAMILIES = {
    "map_avgjg": (
        lambda cutoff, rel, mult, judged_only: make("AP", rel=rel, judged_only=judged_only),
        "AP under each judgment group that judges the query, averaged over them",
    ),
    "P_avgjg": (
        lambda cutoff, rel, mult, judged_only: make("P", cutoff, rel=rel, judged_only=judged_only),
        "P@K under each judgment group that judges the query, averaged over them",
    ),
    "Rprec_mult_avgjg": (
        lambda cutoff, rel, mult, judged_only: make(
            "Rprec", rel=rel, mult=mult, judged_only=judged_only
        ),
        "precision at mult x R under each judgment group that judges the query, averaged",
    ),
}
for _name, (_inner, _definition) in _FAMILIES.items():
    register(
        Family(
            name=_name,
            aliases=(),
            params=(REL, *((MULT,) if _name == "Rprec_mult_avgjg" else ()), JUDGED_ONLY),
            cutoff_required=_name == "P_avgjg",
            cutoff_allowed=_name == "P_avgjg",
            kernel=_averaged(_inner),
            expected=None,  # an average over groups of their own rankings' values
            definition=_definition,
            convention="trec_eval -R qrels_jg (m_*_avgjg.c): a query's groups summed in the "
            "groups' byte order, then divided; a query no group judges scores 0",
            condensable=False,
            reads=NEEDS,
            written=_written,
        )
    )
