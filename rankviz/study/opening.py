"""What a study of files opens: the qrels in force, the runs, the measures and the settings.

:meth:`Study.open <rankviz.study.run_study.Study.open>` hands its request here; a collection
folder's conventions, measures, groups and weights are its defaults (:func:`collection_settings`,
which the app's sidebar starts from too) and the options given win over them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rankviz.errors import MeasureError, OptionError
from rankviz.evaluation.aggregate import aggregate_option
from rankviz.evaluation.evaluate import as_measures, collection_measures
from rankviz.evaluation.pieces import RunSource
from rankviz.io.collection import Collection, open_collection
from rankviz.io.grades import Scale, grade_scale
from rankviz.io.groups import QueryGroups, read_groups
from rankviz.io.irds import is_irds
from rankviz.io.meeting import MeetingStore
from rankviz.io.model import Qrels
from rankviz.io.readers import read_qrels
from rankviz.io.score_rules import ScoreRules, score_rules
from rankviz.measures import Measure, parse, refuse_without_closed_form
from rankviz.measures.spellings import TREC_EVAL_LEFT_OUT
from rankviz.settings.eval_settings import DEFAULT_MEASURES, EvalSettings
from rankviz.study.in_force import FILE, MEETING, decide, tag_groups, with_record
from rankviz.study.request import StudyRequest

if TYPE_CHECKING:
    from rankviz.io.scores import Scores


def collection_settings(collection: Collection | None) -> EvalSettings:
    """The settings a collection's conventions start from (``rel`` and ``gmax`` of its
    collection.toml)."""
    if collection is None:
        return EvalSettings()
    return EvalSettings(rel=collection.config.rel, gmax=collection.config.gmax)


@dataclass(frozen=True)
class Opened:
    """The inputs of a study, read and decided (the fields :class:`~rankviz.study.run_study.Study`
    takes)."""

    qrels: Qrels
    measures: tuple[Measure, ...]
    settings: EvalSettings
    collection: Collection | None
    groups: QueryGroups | None
    weights: Mapping[str, float] | None
    sources: tuple[RunSource, ...]
    notes: tuple[str, ...]
    record: MeetingStore | None


def open_inputs(request: StudyRequest) -> Opened:
    """The inputs a request names (:class:`~rankviz.study.request.StudyRequest`), read and
    decided."""
    qrels, runs, measures = request.qrels, request.runs, request.measures
    judgments, options = request.judgments, request.options
    collection = qrels if isinstance(qrels, Collection) else _collection_at(qrels)
    if collection is not None:
        if collection.scores_only:
            raise OptionError(
                f"{collection.path} holds per-query scores only (no runs/): open it with "
                "rankviz.ScoresStudy.of_collection"
            )
        read = collection.read_qrels()
        sources = _collection_runs(collection, [str(n) for n in runs or collection.run_paths])
    else:
        if not runs:
            raise OptionError("give at least one run file after the qrels")
        read = read_qrels(str(qrels))
        sources = tuple(RunSource.of_paths(list(runs)))
    how, weights = aggregate_option(request.aggregate, collection)
    groups = request.groups
    found = read_groups(groups) if groups else (collection.groups if collection else None)
    given = {**(options or {}), **({"aggregate": how} if how else {})}
    settings = EvalSettings.from_args(given, base=collection_settings(collection))
    notes: list[str] = []
    record, record_qrels = None, None
    qrels_in_force = request.qrels_in_force
    if qrels_in_force == MEETING and judgments is None:
        judgments = ""  # the collection's own record
    mode = qrels_in_force or (MEETING if judgments is not None else FILE)
    if judgments is not None:
        record = _record(judgments, collection, record_scale(read, collection))
        record_qrels = with_record(read, record)
        tags = tag_groups(record, read)  # group_by="tag", as the app offers it
        if tags is not None:
            found = tags if found is None else found.merged(tags)
        notes += [f"{record.path}: {problem}" for problem in record_qrels.left_out]
    chosen_qrels = decide(mode, read, collection=collection, record=record_qrels)
    if mode != FILE or record is not None:  # anything but the qrels file alone is said
        notes.append(chosen_qrels.sentence)
    if settings.group_by is not None:
        if found is None:
            raise OptionError(
                "--group-by needs --groups FILE (or a collection folder with query groups, or "
                "--judgments with a meeting that tagged queries)"
            )
        found.column(settings.group_by)
    own = collection.score_paths if collection is not None else ()
    rules = rules_in_force(collection, request.lower_is_better, request.ranges)
    scored = read_scores_beside([*own, *request.scores], settings, rules)
    asked = list(measures or (collection.config.measures if collection is not None else ()))
    beside = judgments_beside(request, collection, asked)
    if measures:
        chosen = with_scores(list(measures), scored, settings)
        notes += [
            f"-m {name}: trec_eval's set without {TREC_EVAL_LEFT_OUT[name]}"
            for name in dict.fromkeys(str(m).strip() for m in measures)
            if name in TREC_EVAL_LEFT_OUT
        ]
    elif collection is not None:
        own_measures = (
            collection_measures(collection, settings, [str(n) for n in asked]) if asked else []
        )
        chosen = list(dict.fromkeys([*own_measures, *scored]))
    else:
        chosen = [*with_scores(DEFAULT_MEASURES, scored, settings), *scored]
    if scored:
        notes += beside_notes(scored, chosen_qrels.qrels, [s.name for s in sources])
    return Opened(
        chosen_qrels.qrels.with_beside(**beside),
        tuple(chosen),
        settings,
        collection,
        found,
        weights,
        sources,
        tuple(notes),
        record,
    )


def record_scale(qrels: Qrels, collection: Collection | None) -> Scale:
    """The grades a meeting's record holds in force: the collection's (collection.toml's
    ``grades``, never above its ``gmax``), else those the qrels use, never above the default
    ``gmax``; never the ``gmax`` ERR is asked with, an option of the measures, not of the record
    (every front end reads the same record alike)."""
    if collection is not None:
        return collection.grade_scale(qrels)
    return grade_scale(qrels.grade, gmax=EvalSettings().gmax)


def beside_paths(collection: Collection | None) -> dict[str, Path]:
    """The files of judgments beside the qrels a collection keeps, by kind
    (:data:`rankviz.io.collection.BESIDE_FILES`)."""
    return dict(collection.beside_paths) if collection else {}


def read_beside(kind: str, path: str | Path) -> object:
    """The judgments of a kind beside the qrels, read for the families that take them."""
    from rankviz.io.preference_judgments import read_preferences
    from rankviz.io.subtopics import read_grouped_qrels, read_subtopic_qrels
    from rankviz.measures.diversity import Subtopics

    if kind == "subtopics":
        return Subtopics(read_subtopic_qrels(path))
    return read_preferences(path) if kind == "prefs" else read_grouped_qrels(path)


def offered_beside(collection: Collection) -> list[str]:
    """The measures a collection's judgments beside the qrels offer (ndeval's columns, trec_eval's
    judgment-group and preference measures at its default parameters)."""
    from rankviz.measures import diversity, judgment_groups, preferences

    offered = {
        "subtopics": diversity.COLUMNS,
        "groups": judgment_groups.OFFERED,
        "prefs": preferences.OFFERED,
    }
    return [name for kind in beside_paths(collection) for name in offered[kind]]


def judgments_beside(
    request: StudyRequest, collection: Collection | None, asked: Sequence[object]
) -> dict[str, object]:
    """The judgments beside the qrels that were given (``--diversity``, ``--judgment-groups``,
    ``--preferences``) or that the collection keeps (``subtopics.txt``, ``qrels_jg.txt``,
    ``prefs.txt``), read, by kind; an OptionError for a measure asked that reads a kind nobody
    gave."""
    given = {
        "subtopics": request.diversity,
        "groups": request.judgment_groups,
        "prefs": request.preferences,
    }
    paths = {**beside_paths(collection), **{k: p for k, p in given.items() if p is not None}}
    refuse_without_judgments(asked, list(paths))
    return {kind: read_beside(kind, path) for kind, path in paths.items()}


def refuse_without_judgments(asked: Sequence[object], kinds: Sequence[str]) -> None:
    """An OptionError naming the first measure asked that reads judgments beside the qrels of a
    kind not among ``kinds`` (what it needs, and where it is given)."""
    for name in asked:
        try:
            measure = name if isinstance(name, Measure) else parse(str(name))
            reads = measure.family.reads if measure.from_rankings else None
        except MeasureError:  # a score's name, read beside the runs
            continue
        if reads is not None and reads[0] not in kinds:
            raise OptionError(f"{measure} needs {reads[1]}")


def rules_in_force(
    collection: Collection | None,
    lower_is_better: Sequence[str] = (),
    ranges: Mapping[str, Sequence[float]] | None = None,
) -> ScoreRules:
    """What is known of the scores: the collection's ``[scores]`` and what was given over them."""
    own = collection.config.scores if collection is not None else ScoreRules()
    return own.joined(score_rules(lower_is_better, ranges))


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


def with_scores(
    asked: Sequence[str | Measure], scores: Sequence[Measure], settings: EvalSettings
) -> list[Measure]:
    """The measures asked, in their order: a score's name is that score (a score is never named as
    a computed measure: :func:`read_scores_beside`), any other is parsed."""
    by_name = {str(s): s for s in scores}
    chosen: list[Measure] = []
    for item in asked:
        if str(item) in by_name:
            chosen.append(by_name[str(item)])
            continue
        chosen += as_measures(item, defaults=settings.measure_defaults)
    refuse_without_closed_form(chosen, settings.ties)  # every one lacking said at once
    return list(dict.fromkeys(chosen))


def beside_notes(scores: Sequence[Measure], qrels: Qrels, runs: Sequence[str]) -> list[str]:
    """What the scores beside the runs leave out: queries the qrels do not judge, runs not in the
    study, runs of the study without a score."""
    from rankviz.measures.score import Score

    notes = []
    judged = set(map(str, qrels.query_ids))
    for score in scores:
        assert isinstance(score, Score) and score.values is not None
        outside = score.values.queries - judged
        if outside:
            notes.append(f"score {score}: {len(outside)} queries the qrels do not judge left out")
        extra = sorted(set(score.values.by_run) - set(runs))
        if extra:
            notes.append(f"score {score}: runs not in the study left out: {', '.join(extra)}")
        lacking = [r for r in runs if r not in score.values.by_run]
        if lacking:
            notes.append(f"score {score}: no score for run {', '.join(lacking)} (no mean)")
    return notes


def _collection_at(where: str | Path) -> Collection | None:
    """The collection folder (or ``irds:DATASET_ID``) at ``where``, None for a file; an OptionError
    when there is nothing there."""
    if is_irds(str(where)):
        return open_collection(where)
    if not Path(where).exists():
        raise OptionError(
            f"{where}: no such file or folder (qrels, a collection folder, or irds:DATASET_ID)"
        )
    return open_collection(where) if Path(where).is_dir() else None


def _collection_runs(collection: Collection, named: list[str]) -> tuple[RunSource, ...]:
    """The runs named: the collection's by name, else files (a collection's runs by default)."""
    return tuple(
        RunSource.of(collection.run_path(n), n)
        if n in collection.run_paths or not Path(n).is_file()
        else RunSource.of(n)
        for n in named
    )


def _record(location: str, collection: Collection | None, scale: Scale) -> MeetingStore:
    """The meeting's record at ``location`` ("": the collection folder's), opened without creating
    it."""
    if not location and collection is None:
        raise OptionError("--judgments without DB needs a collection folder in place of QRELS")
    owner = collection.config.name if collection is not None else None
    where = location or collection.path  # type: ignore[union-attr]
    return MeetingStore(where, create=False, scale=scale, collection=owner)
