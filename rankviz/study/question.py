"""A question a study answers, as an entry of the study's table
(:data:`rankviz.study.questions.QUESTIONS`): a plain function over a study, beside what it reads
of the study and what its answer follows.

A front end asks with the entry (``study.ask(TIE_REPORT, test)``, the app's
``ctx.ask(TIE_REPORT, test)``), never by the function's name: the entry says once whether the
question reads the runs' rankings (a study of per-query scores alone refuses it, in one line, before
it starts), whether it is handed the evaluation a front end already shows, and what a cache of its
answers is keyed on. A new report is then an analysis, one entry, a page and a renderer.
"""

from __future__ import annotations

import enum
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Concatenate, Generic, ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")


class Reads(enum.Enum):
    """What of a study a question reads."""

    #: the runs' rankings (their ranking tables): refused by a study of per-query scores alone
    RANKINGS = "the runs' rankings"
    #: the per-query values alone (an evaluation's): any study answers it
    VALUES = "the per-query values"


class Follows(enum.Enum):
    """What an answer changes with: what a front end's cache of it is keyed on."""

    #: the runs, the qrels in force, the measures and the conventions
    INPUTS = "the runs, qrels, measures and conventions"
    #: the per-query values of the measure it is given first (and the query groups in force): a
    #: judgment that leaves those values as they were leaves the answer
    VALUES_OF_ITS_MEASURE = "the values of its measure"
    #: what decides the order of the runs' rankings under the tie policy, not their grades (a
    #: judgment that only re-grades leaves it)
    ORDER = "the rankings' order"


@dataclass(frozen=True)
class Question(Generic[P, R]):
    """One question of a study.

    Parameters
    ----------
    answer
        The plain function that answers it: the study first, then the question's own arguments.
    reads
        What of the study it reads: :attr:`Reads.RANKINGS` or :attr:`Reads.VALUES`.
    takes_evaluation
        Whether it takes ``evaluation=`` (the numbers a front end already shows, which it then reads
        instead of evaluating again).
    follows
        What its answer changes with (:class:`Follows`).
    """

    answer: Callable[Concatenate[Any, P], R]
    reads: Reads
    takes_evaluation: bool = False
    follows: Follows = Follows.INPUTS

    @property
    def name(self) -> str:
        """The function's name: what a message and a cache say of the question."""
        return self.answer.__name__

    @property
    def needs_rankings(self) -> bool:
        return self.reads is Reads.RANKINGS

    @property
    def takes(self) -> frozenset[str]:
        """The names of the keywords its function takes."""
        return frozenset(inspect.signature(self.answer).parameters)

    def __repr__(self) -> str:
        return f"Question({self.name}, reads {self.reads.value})"
