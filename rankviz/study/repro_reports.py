"""Did the reproduction reproduce: an original baseline and advanced run of the study against their
reproductions (:func:`rankviz.analyses.reproducibility.reproduction`): a plain function over a
study and an entry of :data:`rankviz.study.questions.QUESTIONS`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rankviz.errors import OptionError
from rankviz.settings.tie_policy import TREC_EVAL
from rankviz.study.question import Question, Reads
from rankviz.study.study import Study

if TYPE_CHECKING:
    from rankviz.analyses.reproducibility import Reproduction


def reproduction(
    study: Study,
    original: Sequence[str],
    reproduced: Sequence[str],
    *,
    depth: int = 1000,
    rbo_p: float = 0.95,
) -> Reproduction:
    """``original`` (baseline[, advanced]) against ``reproduced`` (the same roles): the
    orderings on trec_eval's order of each topic (score, then docid descending: repro_eval's
    ``break_ties``), the effects on the study's measures."""
    from rankviz.analyses import reproducibility

    if len(original) != len(reproduced) or not 1 <= len(original) <= 2:
        raise OptionError(
            "give the original baseline (and advanced) run and as many reproduced runs"
        )
    named = [*original, *reproduced]
    for name in named:
        if name not in study.run_names:
            raise OptionError(f"no run {name!r}; runs: {', '.join(study.run_names)}")
    roles = zip(reproducibility.ROLES, original, reproduced, strict=False)
    runs = {role: (o, r) for role, o, r in roles}
    orderings = {}
    for name in dict.fromkeys(named):
        table = study.table(name, TREC_EVAL)
        orderings[name] = {
            str(qid): [str(d) for d in table.docids(slice(table.offsets[i], table.offsets[i + 1]))]
            for i, qid in enumerate(table.qids)
            if table.in_run[i]
        }
    evaluation = study.evaluation()
    scores = {str(m): evaluation.matrix(m)[list(dict.fromkeys(named))] for m in study.measures}
    return reproducibility.reproduction(orderings, scores, runs, depth=depth, rbo_p=rbo_p)


REPRODUCTION = Question(reproduction, Reads.RANKINGS)
