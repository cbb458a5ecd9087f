"""ndeval's diversity measures beside the runs' other measures: alpha-nDCG@K, ERR-IA@K, NRBP, ...
computed from diversity qrels (``topic subtopic docno judgment``) by the diversity family
(:mod:`rankviz.measures.diversity`, ndeval 4.5's values, what ``rankviz ndeval`` prints), then
carried by each run as a per-query score (:class:`~rankviz.measures.score.Score`), so evaluate,
compare, ranks, groups, metric choice and the app take them as they take any measure.

The order of each topic's documents is the study's: trec_eval's (ndeval's ``-traditional``), or the
run's rank column under ``ties=run`` (ndeval's default); alpha and beta are ndeval's 0.5 unless the
name sets them (``alpha_nDCG(alpha=0.3)@10``, ``NRBP(alpha=0.3,beta=0.8)``: ndeval's ``-alpha`` and
``-beta``). A judged topic the run does not answer scores 0 (ndeval's ``-c``), or is left out under
``missing=skip``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from rankviz.errors import OptionError
from rankviz.io.collection import SUBTOPICS
from rankviz.measures.diversity import (
    DIVERSITY_MEASURES,
    diversity_measure,
    diversity_name,
)

if TYPE_CHECKING:
    from rankviz.io.model import Run
    from rankviz.measures.score import Score

__all__ = ["DIVERSITY_MEASURES", "diversity_name", "diversity_scores", "needs_qrels"]


def diversity_scores(
    path: str | Path,
    runs: Mapping[str, Run],
    names: Sequence[str],
    *,
    zero: bool,
    by_rank: bool,
    rel: int = 1,
    depth: int | None = None,
) -> list[Score]:
    """The measures ``names`` (ndeval's, in their order) of each run against the diversity qrels
    at ``path``; ``by_rank``: each topic ordered by the run's rank column (ndeval's default), else
    by score as trec_eval orders it; ``rel``: a judgment counts from this grade; ``depth``: the
    first documents of each topic that count (the study's ``--rel`` and ``--depth``, ndeval's
    relevance level and ``-M``). A topic with no relevant document scores 0 on every measure,
    nNRBP's 0 / 0 included, so every measure's mean covers the same topics."""
    from rankviz.io.subtopics import read_subtopic_qrels
    from rankviz.measures.diversity import DiversityJudgments, diversity_values
    from rankviz.measures.score import Score, ScoreValues, values_digest

    judgments = DiversityJudgments.of(read_subtopic_qrels(path), rel=rel)
    judged = frozenset(judgments.topics)
    computed: dict[tuple[float, float], dict] = {}  # each (alpha, beta) asked: every run's values
    order = "the runs' rank column" if by_rank else "trec_eval's order"
    found = []
    for name in dict.fromkeys(names):
        measure = diversity_measure(name)
        assert measure is not None, name  # the names are diversity_name's
        column, alpha, beta = measure.column, measure.alpha, measure.beta
        if (alpha, beta) not in computed:
            computed[alpha, beta] = {
                r: diversity_values(
                    judgments, run, alpha=alpha, beta=beta, depth=depth, by_rank=by_rank
                )
                for r, run in runs.items()
            }
        by_run = {
            run: {
                topic: v if v == v else 0.0  # nNRBP's 0 / 0: nothing to find
                for topic, v in values.column(column).items()
                if topic in judged
            }
            for run, values in computed[alpha, beta].items()
        }
        found.append(
            Score(
                name,
                values=ScoreValues(
                    by_run,
                    judged,
                    zero,
                    f"{path} (ndeval 4.5's measure, alpha = {alpha:g}, beta = {beta:g}, on "
                    f"{order}, relevant from grade {rel}"
                    + (f", the first {depth} documents)" if depth else ")"),
                    values_digest(by_run),
                ),
            )
        )
    return found


def needs_qrels(names: Sequence[str]) -> OptionError:
    return OptionError(
        f"{', '.join(names)} {'needs' if len(names) == 1 else 'need'} diversity qrels (topic "
        f"subtopic docno judgment, as ndeval reads them): --diversity FILE, or a collection "
        f"folder's {SUBTOPICS}"
    )
