"""A run's chance level: its own retrieved documents of each query in a random order, measured
exactly with the ``expected`` closed forms, for the measures that have one.

:class:`ChanceLevel` is mixed into :class:`~rankviz.study.run_study.Study` beside its reports and
questions.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rankviz.evaluation.assembly import revised
from rankviz.evaluation.evaluate import evaluate_tables
from rankviz.evaluation.result import Evaluation
from rankviz.measures import Measure
from rankviz.ranking.ordering import chance_table
from rankviz.settings.tie_policy import EXPECTED, TREC_EVAL
from rankviz.study.capability import needs_rankings
from rankviz.study.reports import Asked


def with_closed_form(measures: Iterable[Measure]) -> list[Measure]:
    """The measures with a chance level: computed from rankings, with a closed form."""
    return [m for m in measures if m.has_closed_form and m.from_rankings]


class ChanceLevel:
    """The chance level of a study's runs (mixed into :class:`~rankviz.study.run_study.Study`)."""

    @property
    def chance_measures(self: Asked) -> list[Measure]:
        """The measures whose chance level is known: those computed from the rankings with a
        closed form over tied orders."""
        return with_closed_form(self.measures)

    @needs_rankings
    def chance(self: Asked, names: Sequence[str] | None = None) -> Evaluation:
        """Each run's chance level: its retrieved documents of each query in a random order, exactly
        (:func:`rankviz.ranking.ordering.chance_table`, measured with the ``expected`` closed
        forms), for :attr:`chance_measures`."""
        settings = self.settings.replace(ties=EXPECTED)
        tables = (
            (name, chance_table(table)) for name, table in self._one_at_a_time(names, TREC_EVAL)
        )
        return evaluate_tables(
            tables,
            with_closed_form(self.measures),
            settings,
            qrels_qids=self.qrels.query_ids,
            groups=self.groups,
            weights=self.weights,
        )

    def chance_revised(
        self: Asked,
        previous: Evaluation,
        queries: Iterable[str],
        names: Sequence[str] | None = None,
    ) -> Evaluation | None:
        tables = {
            name: chance_table(table) for name, table in self.tables(names, TREC_EVAL).items()
        }
        return revised(previous, tables, queries)
