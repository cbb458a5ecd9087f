"""The questions of how runs and qrels fit: the checks (:mod:`rankviz.analyses.checks`) and the
runs whose top K the qrels judge too thinly (:mod:`rankviz.analyses.unjudged`). Each is a plain
function over a study and an entry of :data:`rankviz.study.questions.QUESTIONS`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from rankviz.analyses.checks import TOP_K
from rankviz.evaluation.result import Evaluation
from rankviz.evaluation.run_facts import RunFacts
from rankviz.measures import Measure, parse
from rankviz.settings.tie_policy import TREC_EVAL
from rankviz.study.question import Question, Reads
from rankviz.study.study import Study

if TYPE_CHECKING:
    from rankviz.analyses.checks import CheckReport


def facts(study: Study, k: int = TOP_K) -> dict[str, RunFacts]:
    """What the checks need of each run (:mod:`rankviz.evaluation.run_facts`), from its table in
    trec_eval's order."""
    found: dict[str, RunFacts] = {}
    for _ in study.with_facts(study.one_at_a_time(ties=TREC_EVAL), found, k):
        pass
    return found


def check(
    study: Study,
    k: int = TOP_K,
    *,
    evaluation: Evaluation | None = None,
    facts: Mapping[str, RunFacts] | None = None,
) -> CheckReport:
    """The mistakes that change what the numbers mean (:func:`rankviz.analyses.checks.check`):
    from ``facts`` (:data:`FACTS`), or those ``evaluation`` gathered (``check_k=k``), else the
    runs' own."""
    from rankviz.analyses import checks

    if facts is None:
        gathered = evaluation.facts if evaluation is not None else None
        facts = gathered if gathered is not None else FACTS.answer(study, k)
    return checks.check(facts, study.qrels, study.measures, study.settings, k=k)


def thinly_judged(study: Study, k: int, names: Sequence[str] | None = None) -> dict[str, float]:
    """The runs whose top K the qrels judge less than
    :data:`~rankviz.analyses.unjudged.JUDGED_WARNING`, with that share."""
    from rankviz.analyses.unjudged import JUDGED_WARNING, judged_share

    shares = {name: judged_share(table, k) for name, table in study.one_at_a_time(names)}
    return {name: share for name, share in shares.items() if share < JUDGED_WARNING}


def judged_share_measures(k: int) -> list[Measure]:
    """What :data:`THINLY_JUDGED_IN` reads of an evaluation: Judged@K and NumRet@K."""
    return [parse(f"Judged@{k}"), parse(f"NumRet@{k}")]


def thinly_judged_in(study: Study, k: int, counted: Evaluation) -> dict[str, float]:
    """:data:`THINLY_JUDGED` from ``counted``, an evaluation of :func:`judged_share_measures`
    (which the meeting's judgments revise query by query, where the tables would be re-graded
    whole)."""
    from rankviz.analyses.unjudged import JUDGED_WARNING, judged_share_of

    judged, retrieved = judged_share_measures(k)
    shares = {
        name: judged_share_of(
            counted.matrix(judged, complete=False)[name].to_numpy(dtype=float),
            counted.matrix(retrieved, complete=False)[name].to_numpy(dtype=float),
        )
        for name in counted.runs
    }
    return {name: share for name, share in shares.items() if share < JUDGED_WARNING}


FACTS = Question(facts, Reads.RANKINGS)
CHECK = Question(check, Reads.RANKINGS, takes_evaluation=True)
THINLY_JUDGED = Question(thinly_judged, Reads.RANKINGS)
THINLY_JUDGED_IN = Question(thinly_judged_in, Reads.VALUES)
