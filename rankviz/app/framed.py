"""What the frame decided, as the halves of :class:`~rankviz.app.context.Context` read it."""

from __future__ import annotations

from typing import Any, Protocol

import pandas as pd

from rankviz.app.compute import Key
from rankviz.app.lineage import Lineage
from rankviz.app.record_in_force import Meeting
from rankviz.settings.eval_settings import EvalSettings
from rankviz.settings.significance_settings import TestSettings
from rankviz.settings.tie_policy import TiePolicy
from rankviz.study import Collection, Evaluation, Measure, Study
from rankviz.study.run_pass import RunPass
from rankviz.study.run_study import Ties


class Framed(Protocol):
    """What the frame decided, as :class:`Answers` reads it."""

    @property
    def k(self) -> int: ...
    @property
    def ranked(self) -> bool: ...
    @property
    def selected(self) -> list[str]: ...
    @property
    def measures(self) -> list[Measure]: ...
    @property
    def settings(self) -> EvalSettings: ...
    @property
    def run_keys(self) -> dict[str, str]: ...
    @property
    def grouping(self) -> str: ...
    @property
    def meeting(self) -> Meeting | None: ...
    @property
    def collection(self) -> Collection: ...

    def study(
        self, names: list[str] | None = None, measures: list[Measure] | None = None
    ) -> Study: ...
    def key(
        self,
        names: list[str] | None = None,
        measures: list[Measure] | None = None,
        settings: Any = None,
    ) -> Key: ...
    def evaluation(
        self,
        names: list[str] | None = None,
        ties: Ties | None = None,
        measures: list[Measure] | None = None,
    ) -> Evaluation: ...
    def matrix(
        self,
        measure: Measure,
        names: list[str] | None = None,
        ties: Ties | None = None,
        *,
        complete: bool = True,
    ) -> pd.DataFrame: ...
    def test_settings(self) -> TestSettings: ...
    def order_key(self, ties: TiePolicy) -> str: ...
    def with_qrels(self, mode: str) -> Any: ...
    def passing(self, names: list[str] | None = None) -> bool: ...
    def passes(self, names: list[str] | None = None) -> dict[str, RunPass]: ...
    def _facts_k(self) -> int | None: ...
    def lineage(self) -> Lineage | None: ...
    def _assembled(self, names: list[str], *, chance: bool = False) -> Evaluation: ...
    @property
    def qrels_key(self) -> str: ...
