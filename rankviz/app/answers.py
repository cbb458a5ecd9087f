"""What a page asks the frame beyond its numbers: any question of
:class:`~rankviz.study.run_study.Study`, asked by name (:meth:`Answers.ask`) and kept in the app's
caches (:mod:`rankviz.app.compute`) under the content keys of what it depends on, so a new report
is one Study method and a page that draws it; and the few answers kept under keys of their own
(rank-biased overlap, the checks, the meeting's report, a figure, the runs each one beats).
:class:`Answers` is the half of :class:`~rankviz.app.context.Context` that asks them;
:class:`Framed` is what it asks of the other.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable
from typing import Any

import pandas as pd

from rankviz.app import compute
from rankviz.app.compute import settings_text
from rankviz.app.framed import Framed
from rankviz.app.progressing import counted
from rankviz.settings.eval_settings import EvalSettings
from rankviz.settings.significance_settings import TestSettings
from rankviz.study import TOP_K, Measure


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


class Answers:
    """The cached questions of a page (mixed into the frame's context)."""

    def ask(
        self: Framed,
        question: str,
        *args: Any,
        names: list[str] | None = None,
        kept_on: Measure | None = None,
        counting: tuple[int, str] | None = None,
        **options: Any,
    ) -> Any:
        """What the Study's method ``question`` answers about the selected runs (or ``names``),
        given ``args`` and ``options``: a method that takes ``evaluation`` is given the frame's.

        Kept under the content keys of the runs, the qrels, the measures and the settings in
        force, or with ``kept_on`` under that measure's values alone (and the query groups in
        force): a judgment that leaves them as they were costs nothing; and under the arguments.
        ``counting``: (how many, of what) drawn as a progress bar, which the method is given as
        ``progress``."""
        study = self.study(names)
        method = getattr(study, question)
        if "evaluation" in inspect.signature(method).parameters:
            options.setdefault("evaluation", self.evaluation(names))
        asked = {k: v for k, v in options.items() if k != "evaluation"}
        details = (plain(args), plain(asked))

        def build() -> Any:
            if counting is None:
                return method(*args, **options)
            with counted(*counting) as progress:
                return method(*args, progress=progress, **options)

        if kept_on is not None:
            values = self.matrix(kept_on, names, complete=False)
            return compute.on_values(question, values, (*details, self.grouping), _ask=build)
        return compute.report(question, self.key(names), details, build)

    def beats(self: Framed, tests: TestSettings) -> pd.DataFrame:
        """Runs x measures: the selected runs each one is significantly better than (every pair
        tested, the tests kept as the Significance page's all-pairs heatmap keeps them)."""
        every = tests.replace(pairs="all")
        tables = {
            str(m): Answers.ask(self, "paired_tests", m, every, kept_on=m) for m in self.measures
        }
        return self.study().beats(tests, tables=tables)

    def overlap(self: Framed, baseline: str, run: str) -> pd.Series:
        """Rank-biased overlap of two runs' rankings of every query under the frame's policy, kept
        under what decides their order (a judgment that only re-grades leaves it)."""
        ties = self.settings.ties
        key = ((self.run_keys[baseline], self.run_keys[run]), self.order_key(ties), ties)
        study = self.study([baseline, run])
        return compute.overlap(key, lambda: study.overlap(baseline, run))

    def figure(self: Framed, names: list[str], details: tuple, build: Callable[[], Any]) -> Any:
        """A figure of these runs' results (``details``: what else it shows), built once per key: a
        chart of thousands of queries is not built again on every rerun (Next, a note, a judgment
        elsewhere)."""
        return compute.report("figure", self.key(names), details, build)

    def check(self: Framed):
        """The checks of the selected runs (:meth:`rankviz.study.run_study.Study.check`) against the
        qrels file: how runs and qrels fit does not move with the meeting's judgments, nor with K or
        the measures, so the runs' facts are gathered once and a judgment or a new K costs a few
        milliseconds."""
        source = self.with_qrels("file")
        counted = EvalSettings(
            rel=self.settings.rel,
            depth=self.settings.depth,
            ignore_identical_ids=self.settings.ignore_identical_ids,
        )  # what the facts depend on
        key = dataclasses.replace(source.key(settings=counted), measures=(), grouping="")
        if self.passing() and self._facts_k() is not None:  # each run's pass gathered them
            facts = {n: p.facts for n, p in self.passes().items()}
        else:
            facts = compute.report("facts", key, (TOP_K,), lambda: source.study().facts(TOP_K))
        return compute.report(
            "checks", source.key(), (TOP_K,), lambda: source.study().check(TOP_K, facts=facts)
        )

    def meeting_report(self: Framed, pair: tuple[str, str]):
        """What the meeting decided (:meth:`rankviz.study.run_study.Study.meeting_report`): the
        selected runs with the meeting's judgments against the qrels file alone, of the ``pair`` the
        meeting discussed (baseline, run), cached on the record's identity and version."""
        meeting = self.meeting
        if meeting is None or meeting.store is None:
            raise ValueError("no meeting's record to report on")
        with_record, file_only, tests = (
            self.with_qrels("meeting"),
            self.with_qrels("file"),
            self.test_settings(),
        )
        details = (settings_text(tests), pair, meeting.identity, meeting.version)
        store = meeting.store

        def build():
            study = with_record.study()
            return study.meeting_report(store, file_study=file_only.study(), test=tests, pair=pair)

        return compute.report("meeting", with_record.key(), details, build)
