"""One pass per run: what the app's pages show first, taken per run and kept (on disk, in a
cluster): the run's values, its chance level and its facts from one ranking table, then the
evaluation of any runs from their passes. Plain functions over a study and entries of
:data:`rankviz.study.questions.QUESTIONS`."""

from __future__ import annotations

from collections.abc import Sequence

from rankviz.evaluation.assembly import assemble, table_values, tie_seed
from rankviz.evaluation.result import Evaluation
from rankviz.evaluation.run_facts import gather, sample_stride
from rankviz.ranking.ordering import chance_table
from rankviz.settings.tie_policy import EXPECTED, TREC_EVAL
from rankviz.study.chance_levels import with_closed_form
from rankviz.study.question import Question, Reads
from rankviz.study.run_pass import RunPass
from rankviz.study.study import Study


def run_pass(study: Study, name: str, *, k: int, facts_k: int | None = None) -> RunPass:
    """One run in one pass (:mod:`rankviz.study.run_pass`): its table under the study's tie
    policy (and, when that policy orders otherwise, in trec_eval's order for the chance level
    and the facts), then every number. ``k``: the top K of the judged share; ``facts_k``: gather
    the checks' facts at that K (the study's qrels must then be the qrels file the checks
    compare with). Not under random ties (their draws are shared by every run of an
    evaluation)."""
    from rankviz.analyses.unjudged import judged_share  # pandas: not on the CLI's road

    settings = study.settings
    if settings.ties.sampled:
        raise ValueError("a run's pass is not taken under random ties")
    table = study.table(name)
    base = table if settings.ties.in_trec_eval_order else study.table(name, TREC_EVAL)
    values = table_values(table, study.measures, settings, tie_seed(settings))
    chance = table_values(
        chance_table(base), with_closed_form(study.measures), settings.replace(ties=EXPECTED), 0
    )
    facts = None
    if facts_k is not None:
        run = study.runs[name]
        facts = gather(
            run,
            base,
            k=facts_k,
            rel=settings.rel,
            stride=sample_stride(len(run)),
        )
    return RunPass(values, chance, judged_share(table, k), facts)


def from_passes(
    study: Study, passes: Sequence[tuple[str, RunPass]], *, chance: bool = False
) -> Evaluation:
    """The evaluation of these runs (``chance``: their chance level) from their passes: what
    :meth:`Study.evaluation <rankviz.study.study.Study.evaluation>` (:data:`CHANCE
    <rankviz.study.chance_levels.CHANCE>`) gives for them."""
    settings = study.settings.replace(ties=EXPECTED) if chance else study.settings
    gathered = [(name, found.chance if chance else found.values) for name, found in passes]
    return assemble(
        gathered,
        with_closed_form(study.measures) if chance else list(study.measures),
        settings,
        qrels_qids=study.qrels.query_ids,
        groups=study.groups,
        weights=study.weights,
    )


RUN_PASS = Question(run_pass, Reads.RANKINGS)
FROM_PASSES = Question(from_passes, Reads.VALUES)
