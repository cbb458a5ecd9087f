"""What the frame decided (:class:`Context`) and how a page gets its numbers from it.

A page asks the context, the context asks its :class:`~rankviz.study.study.Study` through the app's
caches (:mod:`rankviz.app.caches.compute`): the same study the command line opens, with the app's
cached ranking tables as its orderer. A page asks a question with its entry (``ctx.ask(TIE_REPORT,
...)``, :data:`rankviz.study.questions.QUESTIONS`), and the answer is kept under what the entry
says it follows; the few answers kept under keys of their own are in
:mod:`rankviz.app.frame.answers`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ParamSpec, Self, TypeVar

import pandas as pd

from rankviz.app.caches import compute
from rankviz.app.frame import pass_cache
from rankviz.app.frame.frame_inputs import FrameInputs
from rankviz.app.widgets.progressing import counted
from rankviz.settings.tie_policy import EXPECTED
from rankviz.study import Evaluation, Follows, Measure, Question, Ties

P = ParamSpec("P")
R = TypeVar("R")


def plain(value: Any) -> Any:
    """A question's argument as a cache key: a measure by its name, settings by every field, a
    sequence or mapping by its items, plain values as they are; anything else is refused (a key
    must say what a value holds, never where it lives)."""
    if isinstance(value, Measure):
        return ("measure", str(value))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return (type(value).__name__, repr(value))
    if isinstance(value, (list, tuple)):
        return tuple(plain(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((str(k), plain(v)) for k, v in value.items()))
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    raise TypeError(f"no cache key for a {type(value).__name__}")


@dataclass
class Context(FrameInputs):
    """What the frame decided, and its numbers: the evaluation of the selected runs, their chance
    level, and any question of the study, each kept in the app's caches."""

    # (how many, of what): a progress bar for the next question asked (:meth:`counted`)
    counting: tuple[int, str] | None = None

    def counted(self, total: int, what: str) -> Self:
        """This context with a progress bar of ``total`` ``what`` drawn while its next question
        is answered (a question whose function takes ``progress``)."""
        return dataclasses.replace(self, counting=(total, what))

    def evaluation(
        self,
        names: list[str] | None = None,
        ties: Ties | None = None,
        measures: list[Measure] | None = None,
    ) -> Evaluation:
        """The selected runs (or ``names``) under the frame's settings (``ties`` replaced)."""
        names = names or self.selected
        if ties is None and measures is None and pass_cache.passing(self, names):
            return pass_cache.assembled(self, names)
        settings = self.settings.replace(ties=ties) if ties else self.settings
        return compute.evaluation(
            self.key(names, measures, settings),
            self.study(names, measures),
            names,
            lineage=self.lineage(),
            ties=ties,
        )

    def chance(self, names: list[str] | None = None) -> Evaluation:
        """The chance level of the selected runs (or ``names``): each run's value were its retrieved
        documents of each query in a random order, exactly
        (:data:`rankviz.study.chance_levels.CHANCE`)."""
        names = names or self.selected
        if pass_cache.passing(self, names):
            return pass_cache.assembled(self, names, chance=True)
        key = self.key(names, settings=self.settings.replace(ties=EXPECTED))
        return compute.evaluation(
            key, self.study(names), names, lineage=self.lineage(), chance=True
        )

    def matrix(
        self,
        measure: Measure,
        names: list[str] | None = None,
        ties: Ties | None = None,
        *,
        complete: bool = True,
    ) -> pd.DataFrame:
        return self.evaluation(names, ties).matrix(measure, complete=complete)

    def ask(self, question: Question[P, R], /, *args: P.args, **kwargs: P.kwargs) -> R:
        """The answer to ``question`` (an entry of :data:`rankviz.study.questions.QUESTIONS`)
        about the selected runs, given its arguments; a question that takes the evaluation is
        given the frame's.

        Kept under what the entry says the answer follows: the content keys of the runs, the
        qrels, the measures and the settings in force; the values of its measure alone (and the
        query groups in force), so a judgment that leaves them as they were costs nothing; or what
        decides the runs' order; and under its arguments."""
        study = self.study()
        given: dict[str, Any] = dict(kwargs)
        if question.takes_evaluation:
            given.setdefault("evaluation", self.evaluation())
        details: tuple = (plain(args), plain({k: v for k, v in given.items() if k != "evaluation"}))
        counting = self.counting

        def build() -> Any:
            if counting is None:
                return study.ask(question, *args, **given)
            with counted(*counting) as progress:
                told: dict[str, Any] = {**given, "progress": progress}
                return study.ask(question, *args, **told)

        if question.follows is Follows.VALUES_OF_ITS_MEASURE:
            values = self.matrix(args[0], complete=False)  # type: ignore[arg-type]
            details = (*details, self.grouping)
            return compute.on_values(question.name, values, details, _ask=build)
        if question.follows is Follows.ORDER:
            ties = self.settings.ties
            runs = tuple(self.run_keys[n] for n in self.selected)
            key = (runs, self.order_key(ties), ties, details)
            return compute.on_order(question.name, key, build)
        return compute.report(question.name, self.key(), details, build)
