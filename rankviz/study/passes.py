"""One pass per run: what the app's pages show first, taken per run and kept (on disk, in a
cluster): the run's values, its chance level and its facts from one ranking table, then the
evaluation of any runs from their passes.

:class:`RunPasses` is mixed into :class:`~rankviz.study.run_study.Study` beside its reports and
questions.
"""

from __future__ import annotations

from collections.abc import Sequence

from rankviz.evaluation.assembly import assemble, table_values, tie_seed
from rankviz.evaluation.result import Evaluation
from rankviz.evaluation.run_facts import gather, sample_stride
from rankviz.ranking.ordering import chance_table
from rankviz.settings.tie_policy import EXPECTED, TREC_EVAL
from rankviz.study.capability import needs_rankings
from rankviz.study.chance_levels import with_closed_form
from rankviz.study.reports import Asked
from rankviz.study.run_pass import RunPass


class RunPasses:
    """A study's passes, one per run (mixed into :class:`~rankviz.study.run_study.Study`)."""

    @needs_rankings
    def run_pass(self: Asked, name: str, *, k: int, facts_k: int | None = None) -> RunPass:
        """One run in one pass (:mod:`rankviz.study.run_pass`): its table under the study's tie
        policy (and, when that policy orders otherwise, in trec_eval's order for the chance level
        and the facts), then every number. ``k``: the top K of the judged share; ``facts_k``: gather
        the checks' facts at that K (the study's qrels must then be the qrels file the checks
        compare with). Not under random ties (their draws are shared by every run of an
        evaluation)."""
        from rankviz.analyses.unjudged import judged_share  # pandas: not on the CLI's road

        settings = self.settings
        if settings.ties.sampled:
            raise ValueError("a run's pass is not taken under random ties")
        table = self.table(name)
        base = table if settings.ties.in_trec_eval_order else self.table(name, TREC_EVAL)
        values = table_values(table, self.measures, settings, tie_seed(settings))
        chance = table_values(
            chance_table(base), with_closed_form(self.measures), settings.replace(ties=EXPECTED), 0
        )
        facts = None
        if facts_k is not None:
            run = self.runs[name]
            facts = gather(
                run,
                base,
                self.qrels.doc_ids,
                k=facts_k,
                rel=settings.rel,
                stride=sample_stride(len(run)),
            )
        return RunPass(values, chance, judged_share(table, k), facts)

    def from_passes(
        self: Asked, passes: Sequence[tuple[str, RunPass]], *, chance: bool = False
    ) -> Evaluation:
        """The evaluation of these runs (``chance``: their chance level) from their passes: what
        :meth:`Study.evaluation` (:meth:`Study.chance`) gives for them."""
        settings = self.settings.replace(ties=EXPECTED) if chance else self.settings
        gathered = [(name, found.chance if chance else found.values) for name, found in passes]
        return assemble(
            gathered,
            with_closed_form(self.measures) if chance else list(self.measures),
            settings,
            qrels_qids=self.qrels.query_ids,
            groups=self.groups,
            weights=self.weights,
        )
