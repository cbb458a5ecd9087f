"""The numbers every page starts from, taken in one pass per run
(:meth:`rankviz.study.run_study.Study.run_pass`) and kept on disk, so a restarted server shows the
Overview without reading a run again. :class:`Passes` is the part of
:class:`~rankviz.app.context.Context` that takes and assembles them."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from rankviz.app import cluster, compute, inputs
from rankviz.app.cache import SHARED
from rankviz.app.compute import settings_text
from rankviz.app.framed import Framed
from rankviz.ranking.regrading import fresh
from rankviz.settings.tie_policy import EXPECTED, TREC_EVAL
from rankviz.study import TOP_K, Evaluation
from rankviz.study.run_pass import RunPass


class Passes:
    """One pass per run (mixed into :class:`~rankviz.app.context.Context`)."""

    def passing(self: Framed, names: list[str] | None = None) -> bool:
        """Whether the frame's numbers of these runs come from one pass per run
        (:mod:`rankviz.study.run_pass`): not with an upload among them (kept per session), nor under
        the meeting's judgments (a judgment revises the newest numbers instead), nor under random
        ties (drawn for all runs at once)."""
        return (
            self.ranked
            and self.key(names).shared
            and self.lineage() is None
            and not self.settings.ties.sampled
        )

    def _facts_k(self: Framed) -> int | None:
        """The checks' K when the qrels in force are those the checks compare with (the file), else
        None."""
        return TOP_K if self.meeting is None or self.qrels_key == self.meeting.file_key else None

    def passes(
        self: Framed,
        names: list[str] | None = None,
        progress: Callable[[int, int], None] | None = None,
        arrived: Callable[[str, RunPass], None] | None = None,
    ) -> dict[str, RunPass]:
        """Each run's pass under the frame's measures and settings (see :meth:`passing`), taken once
        per run, qrels and settings and kept on disk: ``progress(done, total)`` and
        ``arrived(name, pass)`` as the missing ones finish."""
        names = names or self.selected
        facts_k = self._facts_k()
        # each table dropped after its pass
        study = dataclasses.replace(self.study(names), orderer=fresh)
        # not how means are taken
        counted = settings_text(self.settings.replace(aggregate="query", group_by=None))
        keys = {
            n: (
                self.run_keys[n],
                self.qrels_key,
                tuple(m.key for m in self.measures),
                counted,
                self.k,
                facts_k,
            )
            for n in names
        }
        take, at_once = (lambda name: study.run_pass(name, k=self.k, facts_k=facts_k)), None
        address = inputs.scheduler()
        if address is not None:
            paths = self.collection.run_paths
            take, at_once = cluster.taker(address, study, paths, self.k, facts_k)
        return compute.run_passes(keys, take, progress, arrived, at_once=at_once)

    def _assembled(self: Framed, names: list[str], *, chance: bool = False) -> Evaluation:
        """The evaluation (or chance level) of ``names`` from their passes, kept under the frame's
        key."""
        key = self.key(
            names, settings=self.settings.replace(ties=EXPECTED) if chance else self.settings
        )

        def build() -> Evaluation:
            passes = Passes.passes(self, names)
            return self.study(names).from_passes([(n, passes[n]) for n in names], chance=chance)

        return SHARED.get(
            ("chance" if chance else "evaluation", "passes", dataclasses.astuple(key)), build
        )

    def thinly_judged(self: Framed) -> dict[str, float]:
        """The selected runs whose top K the qrels judge less than the warning share, with that
        share."""
        if not self.ranked:
            return {}
        if self.passing():
            from rankviz.study import JUDGED_WARNING

            return {
                n: p.judged for n, p in Passes.passes(self).items() if p.judged < JUDGED_WARNING
            }
        if self.lineage() is not None:  # revised per judgment, as every number of the frame
            return _thin_from_measures(self)
        return compute.report(  # the frame's banner and the Overview ask it on every rerun
            "thinly_judged", self.key(), (self.k,), lambda: self.study().thinly_judged(self.k)
        )


def _thin_from_measures(frame: Framed) -> dict[str, float]:
    """The thinly judged runs from Judged@K and NumRet@K of each query: under the meeting's
    judgments these are revised for the judged queries alone, where the tables would be re-graded
    whole (a quarter of a second per rerun for two MS MARCO-sized runs)."""
    study = frame.study()
    ties = TREC_EVAL if frame.settings.ties.sampled else None
    measures = study.judged_share_measures(frame.k)
    return study.thinly_judged_in(frame.evaluation(ties=ties, measures=measures), frame.k)
