"""The judgment-group family: trec_eval 10's measures of ``-R qrels_jg`` (``map_avgjg``,
``P_avgjg_K``, ``Rprec_mult_avgjg_M``), each query's value under each group's judgments (a group:
one user's own set, ``qid group docno rel``) averaged over the groups that judge the query, as
trec_eval's ``m_*_avgjg.c`` average them. Under each group a value is the catalogue's (AP, P@K,
Rprec(mult=M), on that group's ranking in trec_eval's order): one implementation of each measure.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from rankviz.errors import MeasureError
from rankviz.io.model import Qrels, Run
from rankviz.measures.spec import Measure, make
from rankviz.measures.spellings import CUTOFFS, RPREC_MULTIPLES
from rankviz.ranking.ordering import rank
from rankviz.settings.eval_settings import RunCut

#: trec_eval's measures of judgment groups, and their default parameters (P's cutoffs, Rprec_mult's
#: multiples of R), as ``-m`` takes them
DEFAULTS = {
    "map_avgjg": (),
    "P_avgjg": CUTOFFS,
    "Rprec_mult_avgjg": RPREC_MULTIPLES,
}
_NAMED = re.compile(r"^\s*(?P<name>map_avgjg|P_avgjg|Rprec_mult_avgjg)(?:[._](?P<param>\S+))?\s*$")


@dataclass(frozen=True)
class GroupMeasure:
    """One judgment-group measure (trec_eval's name) at a parameter (P's cutoff, Rprec_mult's
    multiple); printed as trec_eval prints it: ``P_avgjg_10``, ``Rprec_mult_avgjg_0.50``."""

    name: str
    param: float | None = None

    def __str__(self) -> str:
        if self.param is None:
            return self.name
        if self.name == "P_avgjg":
            return f"{self.name}_{int(self.param)}"
        return f"{self.name}_{self.param:3.2f}"


#: every measure a collection with judgment groups offers, at trec_eval's default parameters
GROUP_MEASURES = tuple(
    str(GroupMeasure(name, param))
    for name, params in DEFAULTS.items()
    for param in params or [None]
)


def group_measure(name: str | object) -> GroupMeasure | None:
    """The judgment-group measure ``name`` spells (``map_avgjg``, ``P_avgjg.10``, ``P_avgjg_10``,
    ``Rprec_mult_avgjg_0.5``), else None; a MeasureError for a parameter it cannot take."""
    named = _NAMED.match(str(name))
    if named is None:
        return None
    measure, param = named["name"], named["param"]
    if measure == "map_avgjg":
        if param is not None:
            raise MeasureError(f"map_avgjg takes no parameter, not {param!r}")
        return GroupMeasure(measure)
    if param is None:
        raise MeasureError(
            f"{measure} needs its parameter: {measure}_{DEFAULTS[measure][1]} "
            f"({'a cutoff' if measure == 'P_avgjg' else 'a multiple of R'})"
        )
    whole = measure == "P_avgjg"
    if not re.fullmatch(r"[0-9]+" if whole else r"[0-9]*\.?[0-9]+", param) or float(param) <= 0:
        kind = "a whole number of documents" if whole else "a positive multiple of R"
        raise MeasureError(f"{measure}: {param!r} is not {kind}")
    return GroupMeasure(measure, float(param))


def group_name(name: str | object) -> str | None:
    """How the judgment-group measure ``name`` spells is printed, else None."""
    measure = group_measure(name)
    return None if measure is None else str(measure)


def group_values(
    groups: Mapping[str, Qrels],
    run: Run,
    measures: Sequence[GroupMeasure],
    *,
    rel: int = 1,
    depth: int | None = None,
    judged_only: bool = False,
) -> tuple[dict[str, dict[str, float]], list[str]]:
    """Each measure's value per query, averaged over the groups that judge it.

    Parameters
    ----------
    groups
        Each group's judgments, in the order their values are summed (trec_eval's: the groups'
        byte order).
    run
        The run, ordered under each group as trec_eval orders it.
    measures
        The judgment-group measures.
    rel
        A document is relevant from this grade (trec_eval's ``-l``).
    depth
        The first N documents of each ranking count (``-M``).
    judged_only
        Each ranking condensed to its judged documents (``-J``).

    Returns
    -------
    tuple
        (each measure's printed name -> {query: value}, the judged queries the run has no line
        for, which score 0)."""
    catalogue = [_catalogue(measure, rel) for measure in measures]
    per_group: dict[str, list[np.ndarray]] = {}
    missed: set[str] = set()
    for qrels in groups.values():
        table = rank(run, qrels, ties="trec_eval", cut=RunCut(depth=depth))
        table = table.condensed() if judged_only else table
        values = np.column_stack([m(table) for m in catalogue] or [np.zeros(table.n_queries)])
        for index, qid in enumerate(table.qids):
            per_group.setdefault(str(qid), []).append(values[index])
            if not table.in_run[index]:
                missed.add(str(qid))
    found: dict[str, dict[str, float]] = {str(m): {} for m in measures}
    for qid, rows in per_group.items():
        total = np.zeros(len(rows[0]))
        for row in rows:  # summed group by group, then divided, as trec_eval
            total = total + row
        averaged = total / len(rows) if len(rows) > 1 else total
        for measure, value in zip(measures, averaged.tolist(), strict=False):
            found[str(measure)][qid] = value
    return found, sorted(missed)


def _catalogue(measure: GroupMeasure, rel: int) -> Measure:
    """The catalogue's measure a group's value is."""
    if measure.name == "map_avgjg":
        return make("AP", rel=rel)
    if measure.name == "P_avgjg":
        assert measure.param is not None
        return make("P", int(measure.param), rel=rel)
    return make("Rprec", rel=rel, mult=measure.param)
