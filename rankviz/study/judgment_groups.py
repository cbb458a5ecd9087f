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

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from rankviz.errors import OptionError
from rankviz.io.collection import JUDGMENT_GROUPS
from rankviz.measures.judgment_groups import GROUP_MEASURES, group_measure, group_name

if TYPE_CHECKING:
    from rankviz.io.model import Run
    from rankviz.measures.score import Score

__all__ = ["GROUP_MEASURES", "group_name", "group_scores", "needs_groups"]


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
    from rankviz.measures.judgment_groups import group_values
    from rankviz.measures.score import Score, ScoreValues, values_digest

    groups = read_grouped_qrels(path)
    judged = frozenset(str(q) for qrels in groups.values() for q in qrels.query_ids)
    measures = {name: group_measure(name) for name in dict.fromkeys(names)}
    asked = [m for m in measures.values() if m is not None]
    values = {
        run: group_values(groups, r, asked, rel=rel, depth=depth)[0] for run, r in runs.items()
    }
    found = []
    for name, measure in measures.items():
        assert measure is not None, name  # the names are group_name's
        by_run = {run: own[str(measure)] for run, own in values.items()}
        source = (
            f"{path} (trec_eval 10's {measure.name}, each group's ranking in trec_eval's order)"
        )
        found.append(
            Score(name, values=ScoreValues(by_run, judged, zero, source, values_digest(by_run)))
        )
    return found


def needs_groups(names: Sequence[str]) -> OptionError:
    return OptionError(
        f"{', '.join(names)} {'needs' if len(names) == 1 else 'need'} judgment groups (qid group "
        f"docno rel, trec_eval's -R qrels_jg file): --judgment-groups FILE, or a collection "
        f"folder's {JUDGMENT_GROUPS}"
    )
