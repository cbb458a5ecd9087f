"""A study of studies: the same runs over several collections, matched by name, summarised
(:mod:`rankviz.analyses.summary`). Each collection is opened as the command line opens one, with
its own conventions (relevance threshold, gmax) unless the options given set them."""

from __future__ import annotations

import csv
import dataclasses
import io
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rankviz.analyses.summary import Summary, summary
from rankviz.errors import OptionError
from rankviz.evaluation.evaluate import as_measures
from rankviz.evaluation.pieces import RunSource
from rankviz.io.judges import filled
from rankviz.io.model import Qrels
from rankviz.io.sources import read_bounded
from rankviz.ranking.regrading import fresh
from rankviz.settings.eval_settings import DEFAULT_MEASURES, EvalSettings
from rankviz.settings.significance_settings import TestSettings
from rankviz.study.judges_opening import Judges
from rankviz.study.request import StudyRequest
from rankviz.study.study import Study

if TYPE_CHECKING:
    from rankviz.analyses.agreement import AgreementReport

DEFAULT_MEASURE = "nDCG@10"


def read_names(path: str | Path) -> dict[str, dict[str, str]]:
    """A names file: ``collection<TAB>run<TAB>name`` lines (the run of that collection goes by the
    name), a header line allowed -> {collection: {run: name}}."""
    found: dict[str, dict[str, str]] = {}
    data = read_bounded(path, str(path))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise OptionError(
            f"{path}:{line}: not UTF-8 text (byte {data[exc.start]:#04x}); save the "
            "names file as UTF-8"
        ) from None
    for number, row in enumerate(csv.reader(io.StringIO(text, newline=""), delimiter="\t"), 1):
        if not row or (number == 1 and row[:3] == ["collection", "run", "name"]):
            continue
        if len(row) != 3:
            raise OptionError(
                f"{path}:{number}: expected collection<TAB>run<TAB>name, found {len(row)} fields"
            )
        found.setdefault(row[0], {})[row[1]] = row[2]
    return found


def _summary_name(
    folder: str | Path, study: Study, studies: Sequence[tuple[str | Path, Study]]
) -> str:
    """A collection's name in the summary: its collection.toml name (else its folder's), with the
    folder added where two folders give the same name, so that neither row stands for both."""

    def named(study: Study, folder: str | Path) -> str:
        return study.collection.config.name if study.collection is not None else Path(folder).name

    name = named(study, folder)
    if sum(named(other, where) == name for where, other in studies) > 1:
        return (
            f"{name} ({Path(folder).resolve().name})"
            if name != Path(folder).resolve().name
            else str(Path(folder).resolve())
        )
    return name


def summarise(
    folders: Sequence[str | Path],
    *,
    baseline: str,
    runs: Sequence[str] | None = None,
    measures: Sequence[str] | None = None,
    names: Mapping[str, Mapping[str, str]] | None = None,
    standardised: bool = False,
    level: float = 0.95,
    options: Mapping[str, Any] | None = None,
) -> Summary:
    """``runs`` (default: those every collection has) against ``baseline`` over the collection
    ``folders``; ``names``: per collection (its folder's name or its collection.toml name), its run
    names -> the names the summary matches them by."""
    if len(folders) < 2:
        raise OptionError("summary needs two or more collections")
    wanted = list(measures or [DEFAULT_MEASURE])
    opened = {}
    studies = [(folder, _opened(folder, (), wanted, options)) for folder in folders]
    for folder, study in studies:
        collection = _summary_name(folder, study, studies)
        if collection in opened:
            raise OptionError(f"{folder}: the collection {collection!r} is given twice")
        renamed = {
            **dict((names or {}).get(Path(folder).name, {})),
            **dict((names or {}).get(collection, {})),
        }
        by_name = {renamed.get(run, run): run for run in study.run_names}
        opened[collection] = (folder, study, by_name)
    shared = set.intersection(*(set(by_name) for _, _, by_name in opened.values()))
    if baseline not in shared:
        lacking = [c for c, (_, _, by_name) in opened.items() if baseline not in by_name]
        raise OptionError(
            f"--baseline {baseline!r} is no run of {', '.join(lacking)} (a names "
            "file maps runs named otherwise)"
        )
    chosen = list(runs) if runs else sorted(shared - {baseline})
    for run in chosen:
        if run not in shared:
            lacking = [c for c, (_, _, by_name) in opened.items() if run not in by_name]
            raise OptionError(
                f"run {run!r} is not in {', '.join(lacking)} (a names file maps runs "
                "named otherwise)"
            )
    if not chosen:
        raise OptionError(
            "no run besides the baseline is in every collection: name them with "
            "--runs, or map names"
        )
    per_collection = {}
    for collection, (folder, study, by_name) in opened.items():
        local = [by_name[name] for name in (baseline, *chosen)]
        evaluation = _opened(folder, local, wanted, options).evaluation()
        # the summary's names
        evaluation = dataclasses.replace(evaluation, runs=(baseline, *chosen))
        per_collection[collection] = (evaluation, dict(zip(wanted, study.measures, strict=True)))
    return summary(per_collection, baseline, chosen, standardised=standardised, level=level)


def _opened(
    folder: str | Path,
    runs: Sequence[str],
    measures: Sequence[str],
    options: Mapping[str, Any] | None,
) -> Study:
    """A collection folder's study: of its runs, or of its per-query scores when it has only
    those."""
    return Study.open(StudyRequest(folder, runs, measures=measures, options=options or {}))


# --- judges side by side
# ---------------------------------------------------------------------------


def judges_study(
    a: Judges,
    runs: Sequence[str] = (),
    *,
    measures: Sequence[str] | None = None,
    options: Mapping[str, Any] | None = None,
) -> Study:
    """The study whose qrels are ``a``'s: its collection's runs (or those named), conventions and
    measures when ``a`` is a collection's source, else the run files given (none: no runs)."""
    if a.folder is not None:
        return dataclasses.replace(
            Study.open(StudyRequest(a.folder, runs, measures=measures, options=options or {})),
            qrels=a.qrels,
            orderer=fresh,
        )
    settings = EvalSettings.from_args(options or {})
    chosen = tuple(
        as_measures(
            list(measures or DEFAULT_MEASURES),
            defaults=settings.measure_defaults,
            ties=settings.ties,
        )
    )
    return Study(a.qrels, {}, chosen, settings, sources=tuple(RunSource.of_paths(list(runs))))


def compare_judges(
    study: Study,
    other: Qrels,
    *,
    names: tuple[str, str] = ("A", "B"),
    kinds: tuple[str, str] = ("", ""),
    test: TestSettings | None = None,
    k: int = 10,
) -> AgreementReport:
    """The study's qrels (A) against ``other`` (B): their agreement, and with the study's runs, each
    measure's means under A, under B and under A filled by B, and the orderings and verdicts that
    change (:mod:`rankviz.analyses.agreement`)."""
    from rankviz.analyses.agreement import agreement, ranking
    from rankviz.analyses.comparisons import compare
    from rankviz.analyses.corrected import paired_difference
    from rankviz.analyses.unjudged import unjudged_holes

    rel = study.settings.rel
    if not study.run_names:
        return agreement(study.qrels, other, names=names, kinds=kinds, rel=rel, k=k)
    runs = study.runs
    # not A's cache
    under_b = dataclasses.replace(
        study, qrels=other, runs_given=runs, sources=(), notes=(), orderer=fresh
    )
    under_filled = dataclasses.replace(under_b, qrels=filled(study.qrels, other))
    evaluations = [study.evaluation(), under_b.evaluation(), under_filled.evaluation()]
    frame = other.to_frame()
    judged_b = set(zip(frame["qid"].astype(str), frame["docid"].astype(str), strict=True))
    holes = {}
    for name, table in study.tables().items():
        unjudged = unjudged_holes(name, table, k)
        holes[name] = (
            len(unjudged),
            sum(
                (q, d) in judged_b for q, d in zip(unjudged["qid"], unjudged["docid"], strict=True)
            ),
        )
    verdicts: list[dict[tuple[str, str, str], str]] = [{}, {}]
    if len(study.run_names) > 1:
        tests = (test or TestSettings()).replace(pairs="all")
        for side, evaluation in enumerate(evaluations[:2]):
            result = compare(evaluation, tests)
            for row, verdict in zip(
                result.table.itertuples(index=False), result.verdicts(), strict=True
            ):
                verdicts[side][(row.measure, row.baseline, row.run)] = verdict
    rankings = []
    tables = [evaluation.means() for evaluation in evaluations]  # runs x measures, once per source
    for measure in study.measures:
        means = [table[str(measure)].to_dict() for table in tables]
        flips = [
            {"baseline": b, "run": r, "verdict_a": v, "verdict_b": verdicts[1].get((m, b, r))}
            for (m, b, r), v in verdicts[0].items()
            if m == str(measure) and verdicts[1].get((m, b, r)) != v
        ]
        differences = {
            run: paired_difference(
                evaluations[0].per_query(measure, run), evaluations[1].per_query(measure, run)
            )
            for run in evaluations[0].runs
        }
        rankings.append(
            ranking(
                str(measure), means[0], means[1], means[2], flips=flips, differences=differences
            )
        )
    return agreement(
        study.qrels, other, names=names, kinds=kinds, rel=rel, holes=holes, k=k, rankings=rankings
    )
