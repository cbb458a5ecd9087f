"""What a study of files opens: the qrels in force, the runs, the measures and the settings.

:meth:`Study.open <rankviz.study.study.Study.open>` hands its request here; a collection
folder's conventions, measures, groups and weights are its defaults (:func:`collection_settings`,
which the app's sidebar starts from too) and the options given win over them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from rankviz.errors import MeasureError, OptionError
from rankviz.evaluation.aggregate import aggregate_option
from rankviz.evaluation.evaluate import as_measures, collection_measures
from rankviz.evaluation.pieces import RunSource
from rankviz.evaluation.result import Evaluation
from rankviz.io.collection import Collection, open_collection
from rankviz.io.grades import Scale, grade_scale
from rankviz.io.groups import QueryGroups, read_groups
from rankviz.io.irds import is_irds
from rankviz.io.meeting import MeetingStore
from rankviz.io.model import Qrels, Run
from rankviz.io.score_rules import ScoreRules, score_rules
from rankviz.measures import Measure, parse, refuse_without_closed_form
from rankviz.measures.spellings import TREC_EVAL_LEFT_OUT
from rankviz.settings.eval_settings import DEFAULT_MEASURES, EvalSettings
from rankviz.study.in_force import (
    FILE,
    MEETING,
    InForce,
    RecordQrels,
    decide,
    offered,
    source_of,
)
from rankviz.study.judges_opening import open_judges
from rankviz.study.reading import FILES, Reading
from rankviz.study.request import StudyRequest


def collection_settings(collection: Collection | None) -> EvalSettings:
    """The settings a collection's conventions start from (``rel`` and ``gmax`` of its
    collection.toml)."""
    if collection is None:
        return EvalSettings()
    return EvalSettings(rel=collection.config.rel, gmax=collection.config.gmax)


@dataclass(frozen=True)
class Opened:
    """The inputs of a study, read and decided (the fields :class:`~rankviz.study.study.Study`
    takes but its orderer)."""

    qrels: Qrels
    measures: tuple[Measure, ...]
    settings: EvalSettings
    collection: Collection | None
    groups: QueryGroups | None
    weights: Mapping[str, float] | None
    runs_given: Mapping[str, Run]
    sources: tuple[RunSource, ...]
    notes: tuple[str, ...]
    record: MeetingStore | None
    in_force: InForce | None
    scored: Evaluation | None = None  # per-query scores alone: the study's numbers
    correction: InForce | None = None  # people's judgments correcting those in force


@dataclass(frozen=True)
class _Given:
    """What a request's qrels and runs are: the collection whose defaults apply, the one whose
    groups, weights and record are these qrels' (None for qrels read already), the qrels file read,
    the runs read already and the run files to read."""

    collection: Collection | None
    own: Collection | None
    qrels: Qrels
    runs: Mapping[str, Run]
    sources: tuple[RunSource, ...]


def _given(request: StudyRequest, reading: Reading) -> _Given:
    """The request's qrels read and its runs found (a collection's by default)."""
    qrels, runs = request.qrels, request.runs
    if isinstance(qrels, Qrels):  # read already: an upload standing in for a collection's qrels
        collection, own = request.collection, None
    else:
        collection = qrels if isinstance(qrels, Collection) else _collection_at(qrels)
        own = collection  # its groups, weights and record are these qrels'
    if collection is not None and collection.scores_only:  # qrels given for a folder of scores
        raise OptionError(f"{collection.path} holds per-query scores only (no runs/, no qrels)")
    if isinstance(qrels, Qrels):
        read = qrels
    elif isinstance(qrels, Collection) or collection is not None:
        read = reading.qrels(_qrels_path(collection or qrels))  # type: ignore[arg-type]
    else:
        read = reading.qrels(qrels)
    sources: tuple[RunSource, ...] = ()
    if isinstance(runs, Mapping):
        given: Mapping[str, Run] = runs
    elif collection is not None:
        given = {}
        sources = _collection_runs(collection, [str(n) for n in runs or collection.run_paths])
    else:
        given = {}
        sources = tuple(RunSource.of_paths(list(runs)))
    if not given and not sources:
        raise OptionError("give at least one run file after the qrels")
    return _Given(collection, own, read, given, sources)


def open_inputs(request: StudyRequest, reading: Reading = FILES) -> Opened:
    """The inputs a request names (:class:`~rankviz.study.request.StudyRequest`), read by
    ``reading`` and decided."""
    measures, judgments, options = request.measures, request.judgments, request.options
    inputs = _given(request, reading)
    collection, own, read = inputs.collection, inputs.own, inputs.qrels
    how, weights = aggregate_option(request.aggregate, own)
    groups = request.groups
    found = read_groups(groups) if groups else (own.groups if own else None)
    given = {**(options or {}), **({"aggregate": how} if how else {})}
    settings = EvalSettings.from_args(given, base=collection_settings(collection))
    notes: list[str] = []
    record, record_qrels = None, None
    qrels_in_force = request.qrels_in_force
    if MEETING in (qrels_in_force, request.correct_with) and judgments is None:
        judgments = ""  # the collection's own record
    mode = qrels_in_force or (MEETING if judgments is not None else FILE)
    if judgments is not None:
        record = reading.record(*_record_at(judgments, own), record_scale(read, own), _owner(own))
        record_qrels = reading.record_qrels(read, record)
        tags = reading.tags(record, read)  # group_by="tag", as the app offers it
        if tags is not None:
            found = tags if found is None else found.merged(tags)
        notes += [f"{record.path}: {problem}" for problem in record_qrels.left_out]
    chosen_qrels = decide(
        mode,
        read,
        collection=own,
        record=record_qrels,
        source=lambda chosen: reading.source(read, own, chosen),  # type: ignore[arg-type]
    )
    if mode != FILE or record is not None:  # anything but the qrels file alone is said
        notes.append(chosen_qrels.sentence)
    correction = (
        _correction(request.correct_with, read, own, record_qrels, reading)
        if request.correct_with is not None
        else None
    )
    if settings.group_by is not None:
        if found is None:
            raise OptionError(
                "--group-by needs --groups FILE (or a collection folder with query groups, or "
                "--judgments with a meeting that tagged queries)"
            )
        found.column(settings.group_by)
    paths = collection.score_paths if collection is not None else ()
    rules = rules_in_force(collection, request.lower_is_better, request.ranges)
    scored = reading.scores([*paths, *request.scores], settings, rules)
    score_rules(request.lower_is_better, request.ranges).refuse_unknown(str(m) for m in scored)
    asked = list(measures or (collection.config.measures if collection is not None else ()))
    beside = judgments_beside(request, collection, asked, reading)
    notes += collection.beside_said() if collection is not None else []
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
        names = [*inputs.runs, *(s.name for s in inputs.sources)]
        notes += beside_notes(scored, chosen_qrels.qrels, names)
    return Opened(
        chosen_qrels.qrels.with_beside(**beside),
        tuple(chosen),
        settings,
        collection,
        found,
        weights,
        inputs.runs,
        inputs.sources,
        tuple(notes),
        record,
        chosen_qrels,
        correction=correction,
    )


def _correction(
    source: str | Path,
    file_qrels: Qrels,
    collection: Collection | None,
    record: RecordQrels | None,
    reading: Reading,
) -> InForce:
    """People's judgments named by ``--correct-with``: a choice of the collection's (``file``,
    ``meeting``, ``NAME``, ``file+NAME``, decided as the qrels in force are) or a qrels file; its
    sentence names them."""
    text = str(source)
    choices = offered(collection, record_judges=record is not None)
    file_name = Path(str(file_qrels.source)).name
    if text == FILE:
        return InForce(text, file_qrels, file_name, record)
    if text == MEETING:
        decided = decide(text, file_qrels, collection=collection, record=record)
        judged = record.judgments if record is not None else 0
        return InForce(text, decided.qrels, f"{file_name} with the meeting's {judged:,} judgments")
    if collection is not None and text in choices:
        qrels, called = reading.source(file_qrels, collection, text)
        if text != source_of(text):
            called = f"{file_name} with its holes filled by {called}"
        return InForce(text, qrels, called, record)
    if Path(text).is_file() and Path(text).suffix != ".sqlite":
        return InForce(text, reading.qrels(text), Path(text).name)
    if ":" in text or Path(text).exists():  # DIR:NAME, DIR:meeting, a record (agreement's)
        judges = open_judges(text)
        return InForce(text, judges.qrels, f"{text} ({judges.kind or 'kind not said'})")
    raise OptionError(
        f"--correct-with {text[:200]!r}: no such file (a qrels file, DIR:NAME, or one of the "
        f"collection's: {', '.join(choices) if collection is not None else 'none'})"
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
    (:data:`rankviz.io.collection_layout.BESIDE_FILES`)."""
    return dict(collection.beside_paths) if collection else {}


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
    request: StudyRequest,
    collection: Collection | None,
    asked: Sequence[object],
    reading: Reading = FILES,
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
    return reading.beside(paths) if paths else {}


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


def with_scores(
    asked: Sequence[str | Measure], scores: Sequence[Measure], settings: EvalSettings
) -> list[Measure]:
    """The measures asked, in their order: a measure given is itself, a score's name is that score
    (a score is never named as a computed measure:
    :func:`~rankviz.study.reading.read_scores_beside`), any other name is parsed."""
    by_name = {str(s): s for s in scores}
    chosen: list[Measure] = []
    for item in asked:
        if isinstance(item, Measure):
            chosen.append(item)
        elif str(item) in by_name:
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


def _record_at(location: str, collection: Collection | None) -> tuple[str | Path]:
    """Where the meeting's record ``location`` is ("": the collection folder's)."""
    if not location and collection is None:
        raise OptionError("--judgments without DB needs a collection folder in place of QRELS")
    return (location or collection.path,)  # type: ignore[union-attr]


def _owner(collection: Collection | None) -> str | None:
    """The collection a record belongs to, by name."""
    return collection.config.name if collection is not None else None


def _qrels_path(collection: Collection) -> Path:
    """The collection's qrels file (a collection of scores alone has none: refused before)."""
    assert collection.qrels_path is not None, "a collection with runs has qrels"
    return collection.qrels_path
