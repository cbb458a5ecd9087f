"""The values of an evaluation from per-query scores read from files (:mod:`rankviz.io.scores`),
which :meth:`rankviz.evaluation.result.Evaluation.from_scores` makes the object every analysis
takes.

A score whose name is a measure of the catalogue (``map``, ``P_10``, ``nDCG@10``: trec_eval's and
ir_measures' spellings) is that measure, so ``-m AP`` finds trec_eval's ``map`` and two files that
spell it differently are one measure; any other name (``nugget_vital``, ``alpha-nDCG@20``) is a
:class:`~rankviz.measures.score.Score`. (Beside runs, scores keep their files' names:
:func:`rankviz.study.reading.read_scores_beside`.)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from rankviz.errors import FormatError, MeasureError, OptionError, quoted
from rankviz.io.score_rules import NO_RULES, ScoreRules
from rankviz.io.scores import Scores
from rankviz.measures import Measure, parse
from rankviz.measures.score import (
    NoWorstValue,
    Score,
    answers_of,
    gap_text,
    unknown_worst,
    worst_value,
)
from rankviz.settings.eval_settings import EvalSettings


def as_measure(
    name: str, rules: ScoreRules, answers: Mapping[str, Mapping[str, str]] | None = None
) -> Measure:
    """The catalogue's measure a score's name spells, else a Score of that name (with its
    direction, range and the answers it judges)."""
    lower_is_better = name in rules.lower_is_better
    if not lower_is_better:
        try:
            return parse(name)
        except MeasureError:
            pass
    return Score(
        name, lower_is_better=lower_is_better, bounds=rules.range_of(name), answers=answers or {}
    )


@dataclass(frozen=True, eq=False)
class ScoredValues:
    """An evaluation's values from scores: queries x runs per measure, and what reading said."""

    measures: tuple[Measure, ...]
    runs: tuple[str, ...]
    qids: np.ndarray
    values: dict[str, np.ndarray]
    notes: tuple[str, ...]


def scored_values(
    scores: Sequence[Scores],
    *,
    runs: Sequence[str] | None = None,
    measures: Sequence[str] | None = None,
    settings: EvalSettings,
    rules: ScoreRules = NO_RULES,
) -> ScoredValues:
    """The values the files' scores make: runs and measures as given (default: every one, in
    order of first appearance); a query a run has no score for, among those another run scored on
    that measure, scores 0 (``missing="zero"``) or is left out (``"skip"``); the coverage said. A
    value outside the range ``rules`` declare for its score is refused with its line."""
    if not scores:
        raise OptionError("no scores given")
    for source in scores:
        rules.check(source)
    frame = pd.concat([s.frame.assign(source=s.source) for s in scores], ignore_index=True)
    rules.refuse_unknown(frame["measure"].unique())
    texts = answers_of(scores)
    named = {n: as_measure(n, rules, texts.get(n, {})) for n in frame["measure"].unique()}
    for source in scores:  # two names of one measure in one file: which is it?
        _one_name_each({n: named[n] for n in source.frame["measure"].unique()})
    frame["key"] = frame["measure"].map({n: str(m) for n, m in named.items()})
    _refuse_twice(frame)
    by_key = {str(m): m for m in named.values()}
    chosen = _chosen(measures, by_key)
    every_run = [str(r) for r in frame["run"].unique()]  # in order of first appearance
    picked = list(runs) if runs else every_run
    unknown = [r for r in picked if r not in every_run]
    if unknown:
        raise OptionError(f"no scores for run {quoted(unknown[0])}; runs: {', '.join(every_run)}")
    # a score's least value over every run of the files: whether 0 could beat a real one
    lowest_of = frame.groupby("key")["value"].min().to_dict()
    frame = frame[frame["run"].isin(picked) & frame["key"].isin([str(m) for m in chosen])]
    qids = np.array(sorted(frame["query"].unique(), key=lambda q: q.encode()), dtype=object)
    row = {q: i for i, q in enumerate(qids)}
    run_column = {r: i for i, r in enumerate(picked)}
    values, notes = {}, [f"per-query scores read from {', '.join(_sources(scores))}"]
    notes += [f"{s.source}: {note}" for s in scores for note in s.notes]
    for measure in chosen:
        key = str(measure)
        part = frame[frame["key"] == key]
        matrix = np.full((len(qids), len(picked)), np.nan)
        at = part["query"].map(row).to_numpy()
        matrix[at, part["run"].map(run_column).to_numpy()] = part["value"].to_numpy()
        universe = np.zeros(len(qids), bool)
        universe[at] = True
        bounds = measure.bounds if isinstance(measure, Score) else rules.range_of(key)
        lower, lowest = not measure.higher_is_better, float(lowest_of.get(key, 0.0))
        worst = worst_value(lower_is_better=lower, bounds=bounds, lowest=lowest)
        for column, run in enumerate(picked):
            held = ~np.isnan(matrix[universe, column])
            if not held.any():
                notes.append(f"{key}: no score for run {run}")
                continue
            if not held.all():
                gaps = universe & np.isnan(matrix[:, column])
                if settings.missing == "zero" and worst is None:
                    why = unknown_worst(lower_is_better=lower, lowest=lowest)
                    raise NoWorstValue(key, run, [str(q) for q in qids[gaps]], why=why)
                gone = (
                    gap_text(worst).replace("scores", "scored")
                    if settings.missing == "zero"
                    else "left out"
                )
                notes.append(
                    f"{key}: run {run} has no score for {int((~held).sum())} of "
                    f"{int(universe.sum())} queries: {gone}"
                )
                if settings.missing == "zero":
                    matrix[gaps, column] = worst
        values[key] = matrix
    return ScoredValues(tuple(chosen), tuple(picked), qids, values, tuple(notes))


def _refuse_twice(frame: pd.DataFrame) -> None:
    """A (run, query, measure) scored twice (in two files, or under two names) refused."""
    twice = frame.duplicated(["run", "query", "key"], keep="first")
    if twice.any():
        second = frame[twice].iloc[0]
        same = (frame["run"] == second["run"]) & (frame["query"] == second["query"])
        first = frame[same & (frame["key"] == second["key"])].iloc[0]
        raise FormatError(
            second["source"],
            int(second["line"]),
            None,
            f"run {quoted(second['run'])}, query {quoted(second['query'])}, measure "
            f"{quoted(second['measure'])} is scored in {first['source']} too",
        )


def _one_name_each(named: dict[str, Measure]) -> None:
    seen: dict[str, str] = {}
    for name, measure in named.items():
        other = seen.setdefault(str(measure), name)
        if other != name:
            raise OptionError(
                f"the scores name one measure twice: {other!r} and {name!r} are {measure}"
            )


def _chosen(asked: Sequence[str] | None, by_key: dict[str, Measure]) -> list[Measure]:
    if not asked:
        return list(by_key.values())
    chosen = []
    for text in asked:
        found = by_key.get(text) or by_key.get(_canonical(text))
        if found is None:
            raise OptionError(f"no scores for measure {text!r}; measures: {', '.join(by_key)}")
        chosen.append(found)
    return list(dict.fromkeys(chosen))


def _canonical(text: str) -> str:
    try:
        return str(parse(text))
    except MeasureError:
        return text


def _sources(scores: Sequence[Scores]) -> list[str]:
    return [f"{s.source} ({s.form})" for s in scores]
