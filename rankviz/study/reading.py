"""How opening a study reads what it is given: :class:`Reading` reads every file when asked (the
command line's and the API's); a server hands :meth:`~rankviz.study.study.Study.open` one of its
own that keeps what it read, under keys of the files' content (the app's
:class:`~rankviz.app.frame.served_reading.ServedReading`). The decisions are opening's alone
(:func:`rankviz.study.opening.open_inputs`): a reading decides nothing, it only reads.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from rankviz.errors import MeasureError, OptionError
from rankviz.io.collection import Collection
from rankviz.io.groups import QueryGroups
from rankviz.io.meeting import MeetingStore
from rankviz.io.model import Qrels
from rankviz.io.readers import read_qrels
from rankviz.io.score_rules import ScoreRules
from rankviz.measures import parse
from rankviz.study import in_force

if TYPE_CHECKING:
    from rankviz.io.grades import Scale
    from rankviz.io.scores import Scores
    from rankviz.measures import Measure
    from rankviz.settings.eval_settings import EvalSettings


class Reading:
    """Every input read from its file, each time it is asked for."""

    def qrels(self, path: Path | str) -> Qrels:
        """The qrels file at ``path`` (a collection's, a source's of other judges, or given)."""
        return read_qrels(str(path))

    def beside(self, paths: Mapping[str, Path | str]) -> dict[str, object]:
        """The judgments beside the qrels, by kind (``subtopics``, ``groups``, ``prefs``)."""
        return {kind: read_beside(kind, path) for kind, path in paths.items()}

    def scores(
        self, paths: Sequence[Path | str], settings: EvalSettings, rules: ScoreRules
    ) -> list[Measure]:
        """The per-query scores of these files, as measures
        (:func:`read_scores_beside`)."""
        return read_scores_beside(paths, settings, rules)

    def record(self, path: Path | str, scale: Scale, collection: str | None) -> MeetingStore:
        """The meeting's record at ``path``, opened without creating it."""
        return MeetingStore(path, create=False, scale=scale, collection=collection)

    def record_qrels(self, qrels: Qrels, record: MeetingStore) -> in_force.RecordQrels:
        """The qrels file with the record's judgments in force
        (:func:`rankviz.study.in_force.with_record`)."""
        return in_force.with_record(qrels, record)

    def source(self, file_qrels: Qrels, collection: Collection, mode: str) -> tuple[Qrels, str]:
        """The qrels of another judges' source a ``NAME`` or ``file+NAME`` choice puts in force,
        and what to call it (:func:`rankviz.study.in_force.source_qrels`)."""
        return in_force.source_qrels(file_qrels, collection, mode, read=self.qrels)

    def tags(self, record: MeetingStore, qrels: Qrels) -> QueryGroups | None:
        """The record's tags as the query attribute ``tag``
        (:func:`rankviz.study.in_force.tag_groups`)."""
        return in_force.tag_groups(record, qrels)


def read_beside(kind: str, path: str | Path) -> object:
    """The judgments of a kind beside the qrels, read for the families that take them."""
    from rankviz.io.preference_judgments import read_preferences
    from rankviz.io.subtopics import read_grouped_qrels, read_subtopic_qrels
    from rankviz.measures.diversity import Subtopics

    if kind == "subtopics":
        return Subtopics(read_subtopic_qrels(path))
    return read_preferences(path) if kind == "prefs" else read_grouped_qrels(path)


def read_scores_beside(
    paths: Sequence[str | Path], settings: EvalSettings, rules: ScoreRules
) -> list[Measure]:
    """The scores of these files (:mod:`rankviz.io.scores`) as measures that carry their values
    (:class:`~rankviz.measures.score.Score`) and what ``rules`` say of them, each query without a
    score handled by ``missing``."""
    if not paths:
        return []
    from rankviz.io.scores import read_scores

    return scores_beside([read_scores(p) for p in paths], settings, rules)


def scores_beside(
    scores: Sequence[Scores], settings: EvalSettings, rules: ScoreRules
) -> list[Measure]:
    """The scores read as measures that stand beside runs (:func:`read_scores_beside`); one named
    as a measure computed from the runs is refused."""
    from rankviz.measures.score import scores_as_measures

    found = scores_as_measures(scores, zero=settings.missing == "zero", rules=rules)
    for score in found:
        if _computed_name(str(score)):
            source = score.values.source if score.values is not None else "a file"
            raise OptionError(
                f"score {str(score)!r} ({source}) is named as a measure rankviz computes from the "
                "runs: rename it in the file"
            )
    return list(found)


def _computed_name(name: str) -> bool:
    """Whether a name spells a measure of the catalogue (``AP``, ``map``, ``P_10``)."""
    try:
        parse(name)
    except MeasureError:
        return False
    return True


#: The reading of the command line and the API: every file read when asked for.
FILES = Reading()
