"""What the frame decided (:class:`FrameInputs`): the study it opened, the runs and measures
selected, the conventions in force, the cache keys of what it holds, and the meeting whose
judgments are in force. :class:`~rankviz.app.frame.context.Context` adds how a page gets its
numbers.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from typing import Any, Self

from rankviz.app.caches.compute import Key, settings_text
from rankviz.app.caches.lineage import Lineage, orderer
from rankviz.app.meeting.record_in_force import Meeting
from rankviz.app.widgets.url_state import UrlState
from rankviz.settings.eval_settings import EvalSettings
from rankviz.settings.significance_settings import TestSettings
from rankviz.settings.tie_policy import TiePolicy
from rankviz.study import Collection, Measure, Qrels, Reading, Study, StudyRequest
from rankviz.study.reading import FILES
from rankviz.study.served import served_text


@dataclass
class FrameInputs:
    """What the frame decided and the study it opened: the selected runs and measures of it, the
    cache keys of what it holds."""

    opened: Study  # the study the frame opened (every run; of scores alone for such a collection)
    qrels_key: str
    run_keys: dict[str, str]
    selected: list[str]
    # as written in the frame ("MRR@K", "nDCG@10"): stable when K or rel change
    measure_names: list[str]
    measures: list[Measure]
    k: int
    url: UrlState
    collection: Collection  # the collection served
    settings: EvalSettings  # the conventions in force, as the study decided them
    request: StudyRequest | None = None  # what it was opened from (None: scores alone)
    reading: Reading = FILES  # how it read its files (the app's caches)
    queries: dict[str, str] = field(default_factory=dict)
    grouping: str = ""  # the key of the groups and weights in force
    # one colour per run, the same on every page
    colours: dict[str, str] = field(default_factory=dict)
    present: bool = False  # projector mode
    top: Any = None  # where the conventions' line goes (beside the qrels in force), else the page
    meeting: Meeting | None = None  # the meeting's record (None: uploaded qrels are in force)

    @property
    def ranked(self) -> bool:
        """Whether the runs' rankings are at hand (not for a collection of scores alone)."""
        return self.opened.ranked

    @property
    def collection_name(self) -> str:
        return self.collection.config.name

    def measure(self, name: str) -> Measure:
        """The frame's measure written ``name`` (one of :attr:`measure_names`)."""
        return self.measures[self.measure_names.index(name)]

    def among(self, names: list[str]) -> Self:
        """This frame with ``names`` as its selected runs: what a page asks about two runs, or
        about the runs of a reproduction."""
        return dataclasses.replace(self, selected=list(names))

    def study(self, names: list[str] | None = None, measures: list[Measure] | None = None) -> Study:
        """The selected runs (or ``names``) and measures of the opened study, ordered by the app's
        cache of ranking tables."""
        narrowed = self.opened.only(names or self.selected, measures or self.measures)
        if not self.ranked:
            return narrowed
        meeting = self.meeting
        # the meeting's qrels re-grade it
        base = (meeting.file_key, meeting.file_qrels) if meeting is not None else None
        return narrowed.sharing(
            orderer(self.run_keys, self.qrels_key, narrowed.qrels, base, self.lineage())
        )

    def key(
        self,
        names: list[str] | None = None,
        measures: list[Measure] | None = None,
        settings: Any = None,
    ) -> Key:
        """The cache key of a result about these runs, measures and settings (the frame's by
        default)."""
        runs = tuple(self.run_keys[n] for n in (names or self.selected))
        return Key(
            runs,
            self.qrels_key,
            tuple(m.key for m in measures or self.measures),
            settings_text(settings or self.settings),
            self.grouping,
        )

    def order_key(self, ties: TiePolicy) -> str:
        """The key of what decides the rankings' order under ``ties`` (not their grades): the qrels
        file's while the meeting's judgments only re-grade its queries and the policy breaks ties
        without grades, so results about order alone (rank-biased overlap) are not computed again
        for every judgment."""
        meeting = self.meeting
        regraded = ties.regradable
        if (
            meeting is not None
            and self.qrels_key == meeting.merged_key
            and meeting.same_queries
            and regraded
        ):
            return meeting.file_key
        return self.qrels_key

    def lineage(self) -> Lineage | None:
        """When the meeting's qrels are in force: the record they follow (a new judgment then
        revises the newest results for the queries it judged instead of computing them all
        again)."""
        meeting = self.meeting
        if (
            meeting is None
            or meeting.store is None
            or meeting.merged is None
            or self.qrels_key != meeting.merged_key
        ):
            return None
        base = f"{meeting.file_key}+meeting:{meeting.path}:{meeting.identity}:{meeting.scale}"
        return Lineage(base, meeting.version.judgments, meeting.store)

    def test_settings(self) -> TestSettings:
        """The significance test in force: shared by the Overview marks, the Ties verdicts and the
        Significance page."""
        baseline = self.url.choice("baseline", self.selected, self.selected[0])
        # the app's resampling is reproducible: seed 0 unless the URL says otherwise
        defaults = {"seed": 0}
        values = {
            name: self.url.option(option, defaults.get(name))
            for name, option in TestSettings.OPTIONS.items()
        }
        return TestSettings(**values, baseline=baseline)

    def conventions(self) -> list[str]:
        """The lines that say the conventions in force, the served folder's names as served."""
        if not self.ranked:  # the scores' files (named as the collection names them)
            folder = self.collection.path
            return [served_text(line, folder) for line in self.study().conventions()]
        return [
            *self.settings.conventions(),
            *self.collection.beside_said(),
            *([self.meeting.in_force()] if self.meeting else []),
        ]

    def export_name(self, stem: str, extension: str) -> str:
        """A download's file name, which says the qrels in force unless they are the collection's
        file."""
        mode = self.meeting.mode if self.meeting is not None else "file"
        said = "" if mode == "file" else "_qrels-" + re.sub(r"[^A-Za-z0-9_-]+", "-", mode)
        return f"{stem}{said}.{extension}"

    def judged_by(self, qrels: Qrels, key: str) -> Self:
        """This frame with another source's judgments as its qrels (``key``: their content's), to
        compare that source with the others under the frame's runs, measures and settings."""
        opened = dataclasses.replace(self.opened, qrels=qrels, in_force=None)
        return dataclasses.replace(self, opened=opened, qrels_key=key)

    def with_qrels(self, mode: str) -> Self:
        """This frame with the qrels file (``file``) or the meeting's qrels (``meeting``) in
        force, to show what the meeting's judgments change: the same request, opened again."""
        meeting = self.meeting
        if meeting is None or meeting.merged is None or self.request is None:
            return self
        request = dataclasses.replace(self.request, qrels_in_force=mode)
        key = meeting.file_key if mode == "file" else meeting.merged_key
        opened = Study.open(request, reading=self.reading)
        return dataclasses.replace(self, opened=opened, request=request, qrels_key=key)
