"""How the app's studies read their files: the study's own road
(:class:`~rankviz.study.reading.Reading`, handed to :meth:`Study.open
<rankviz.study.study.Study.open>`), each read kept in the app's shared cache under keys of the
files' content (their stamps, the record's content digest), so the study a page opens on every
rerun reads nothing it read before. It decides nothing: which qrels are in force, the groups, the
measures and the settings are the study's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from rankviz.app.caches import inputs
from rankviz.app.caches.cache import SHARED, file_key
from rankviz.app.meeting.record_in_force import Meeting, qrels_key_of, record_key
from rankviz.settings.eval_settings import EvalSettings
from rankviz.study import (
    Collection,
    Measure,
    MeetingStore,
    Qrels,
    QueryGroups,
    Reading,
    Scale,
    ScoreRules,
    in_force,
)


class ServedReading(Reading):
    """The files of a served collection, read through the app's caches; ``meeting``: the
    collection's record as the frame opened it (read-only, its problems said), handed to the study
    as it is, with what it holds kept per its content (the qrels file it merges into is the
    collection's, read under the same key)."""

    def __init__(self, meeting: Meeting | None = None) -> None:
        self.meeting = meeting

    def qrels(self, path: Path | str) -> Qrels:
        return inputs.qrels_file(file_key(Path(path)), str(path))

    def beside(self, paths: Mapping[str, Path | str]) -> dict[str, object]:
        return inputs.beside_read(paths)

    def scores(
        self, paths: Sequence[Path | str], settings: EvalSettings, rules: ScoreRules
    ) -> list[Measure]:
        zero = settings.missing == "zero"
        return [score.under(zero=zero) for score in inputs.scores_read(paths, rules)]

    def record(self, path: Path | str, scale: Scale, collection: str | None) -> MeetingStore:
        meeting = self.meeting
        if meeting is not None and meeting.store is not None and Path(path) == meeting.path:
            return meeting.store
        return super().record(path, scale, collection)

    def record_qrels(self, qrels: Qrels, record: MeetingStore) -> in_force.RecordQrels:
        meeting = self.meeting
        if meeting is None or record is not meeting.store:
            return super().record_qrels(qrels, record)
        if meeting.record is not None:  # the record judges: merged once per its content
            return meeting.record
        return SHARED.get(record_key(meeting), lambda: in_force.with_record(qrels, record))

    def source(self, file_qrels: Qrels, collection: Collection, mode: str) -> tuple[Qrels, str]:
        meeting = self.meeting
        if meeting is None:
            return super().source(file_qrels, collection, mode)
        key = ("qrels in force", qrels_key_of(mode, collection, meeting))
        return SHARED.get(key, lambda: Reading.source(self, file_qrels, collection, mode))

    def tags(self, record: MeetingStore, qrels: Qrels) -> QueryGroups | None:
        meeting = self.meeting
        if meeting is None or record is not meeting.store:
            return super().tags(record, qrels)
        if not meeting.version.tags:
            return None
        key = ("meeting tags", str(meeting.path), meeting.version.content, meeting.file_key)
        return SHARED.get(key, lambda: in_force.tag_groups(record, qrels))
