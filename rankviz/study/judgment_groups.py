"""trec_eval's judgment-group measures beside the runs' other measures: ``map_avgjg``,
``P_avgjg_K`` and ``Rprec_mult_avgjg_M``, each query's value under each group's judgments (a
group: one user's own set, trec_eval's ``-R qrels_jg`` file, ``qid group docno rel``) averaged over
the groups that judge the query, as ``rankviz trec-eval -R qrels_jg`` computes them (trec_eval
10's values), then carried by each run as a per-query score
(:class:`~rankviz.measures.score.Score`), so compare, ranks, groups, metric choice and the app take
them as they take any measure.

Each group's ranking is trec_eval's order of the run (score descending, ties by docno descending)
under the study's relevance threshold (``rel``, trec_eval's ``-l``) and run depth (``depth``,
``-M``); a judged query the run does not answer scores 0 (``-c``), or is left out under
``missing=skip``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rankviz.errors import MeasureError, OptionError
from rankviz.io.collection import JUDGMENT_GROUPS

if TYPE_CHECKING:
    from rankviz.io.model import Run
    from rankviz.measures.score import Score

#: trec_eval's measures of judgment groups, and their default parameters (P's cutoffs, Rprec_mult's
#: multiples of R), as ``-m`` takes them
_DEFAULTS = {
    "map_avgjg": (),
    "P_avgjg": (5, 10, 15, 20, 30, 100, 200, 500, 1000),
    "Rprec_mult_avgjg": (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0),
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
    for name, params in _DEFAULTS.items()
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
            f"{measure} needs its parameter: {measure}_{_DEFAULTS[measure][1]} "
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


def group_scores(
    path: str | Path,
    runs: Mapping[str, Run],
    names: Sequence[str],
    *,
    zero: bool,
    rel: int,
    depth: int | None,
) -> list[Score]:
    """The measures ``names`` (as :func:`group_name` prints them) of each run against the
    judgment groups at ``path``, each group's ranking in trec_eval's order."""
    from rankviz.io.subtopics import read_grouped_qrels
    from rankviz.measures.score import Score, ScoreValues, values_digest
    from rankviz.trec_eval.judgment_groups import columns, group_lists

    groups = read_grouped_qrels(path)
    judged = frozenset(str(q) for qrels in groups.values() for q in qrels.query_ids)
    lists = {
        name: group_lists(groups, run, rel=rel, depth=depth, judged_only=False)
        for name, run in runs.items()
    }
    found = []
    for name in dict.fromkeys(names):
        measure = group_measure(name)
        assert measure is not None, name  # the names are group_name's
        params = () if measure.param is None else (_param(measure),)
        by_run = {
            run: {
                str(q): float(v)
                for q, v in columns(measure.name, params, own, rel=rel)[name].items()
            }
            for run, own in lists.items()
        }
        source = (
            f"{path} (trec_eval 10's {measure.name}, each group's ranking in trec_eval's order)"
        )
        values = ScoreValues(by_run, judged, zero, source, values_digest(by_run))
        found.append(Score(name, values=values))
    return found


def _param(measure: GroupMeasure) -> int | float:
    assert measure.param is not None
    return int(measure.param) if measure.name == "P_avgjg" else measure.param


def needs_groups(names: Sequence[str]) -> OptionError:
    return OptionError(
        f"{', '.join(names)} {'needs' if len(names) == 1 else 'need'} judgment groups (qid group "
        f"docno rel, trec_eval's -R qrels_jg file): --judgment-groups FILE, or a collection "
        f"folder's {JUDGMENT_GROUPS}"
    )
