"""A run's chance level: its own retrieved documents of each query in a random order, measured
exactly with the ``expected`` closed forms, for the measures that have one. Plain functions over
a study and entries of :data:`rankviz.study.questions.QUESTIONS`."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rankviz.evaluation.assembly import revised
from rankviz.evaluation.evaluate import evaluate_tables
from rankviz.evaluation.result import Evaluation
from rankviz.measures import Measure
from rankviz.ranking.ordering import chance_table
from rankviz.settings.tie_policy import EXPECTED, TREC_EVAL
from rankviz.study.question import Question, Reads
from rankviz.study.study import Study


def with_closed_form(measures: Iterable[Measure]) -> list[Measure]:
    """The measures with a chance level: computed from rankings, with a closed form over tied
    orders."""
    return [m for m in measures if m.has_closed_form and m.from_rankings]


def chance(study: Study, names: Sequence[str] | None = None) -> Evaluation:
    """Each run's chance level: its retrieved documents of each query in a random order, exactly
    (:func:`rankviz.ranking.ordering.chance_table`, measured with the ``expected`` closed
    forms), for the study's measures that have one (:func:`with_closed_form`)."""
    tables = ((name, chance_table(table)) for name, table in study.one_at_a_time(names, TREC_EVAL))
    return evaluate_tables(
        tables,
        with_closed_form(study.measures),
        study.settings.replace(ties=EXPECTED),
        qrels_qids=study.qrels.query_ids,
        groups=study.groups,
        weights=study.weights,
    )


def chance_revised(
    study: Study,
    previous: Evaluation,
    queries: Iterable[str],
    names: Sequence[str] | None = None,
) -> Evaluation | None:
    """``previous`` (a chance level of these runs under older qrels) with ``queries`` measured
    again; None when it cannot be revised."""
    tables = {name: chance_table(table) for name, table in study.tables(names, TREC_EVAL).items()}
    return revised(previous, tables, queries)


CHANCE = Question(chance, Reads.RANKINGS)
CHANCE_REVISED = Question(chance_revised, Reads.RANKINGS)
