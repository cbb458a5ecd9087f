"""A score read from a file, not computed here: a nugget score, an LLM judge's grade, any per-query
number of another evaluator, named as the file names it.

It stands where a measure of the catalogue stands in an evaluation (means, paired tests, ranks).
Beside runs (:func:`scores_as_measures`), it carries its values and gives each run's table the run's
scores for the table's queries: the same under every order of the documents (so under every tie
policy, and its closed form is itself), none for its chance level. Alone (a study of scores only),
it names a column and computes nothing.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from rankviz.errors import API, APP, COMMAND_LINE, MeasureError, OptionError
from rankviz.measures.spec import Family, Measure

if TYPE_CHECKING:
    from rankviz.io.score_rules import ScoreRules
    from rankviz.io.scores import Scores


def _no_kernel(table: object, cutoff: object) -> np.ndarray:
    """A score's family computes nothing (a :class:`Score` answers for itself)."""
    raise MeasureError("a score read from a file cannot be computed from a ranking")


#: what a score's family says of it (no parameters, no kernel of its own)
SCORE_FAMILY = Family(
    name="score",
    aliases=(),
    params=(),
    cutoff_required=False,
    kernel=_no_kernel,
    expected=None,
    definition="a per-query value read from a file",
    convention="as the evaluator that wrote it computed it",
    cutoff_allowed=False,
    condensable=False,
)


@dataclass(frozen=True, eq=False)
class ScoreValues:
    """One score's values: run -> query -> value, and the queries some run has a score for (a
    query of those a run has none for scores 0 when ``zero``, else is left out)."""

    by_run: Mapping[str, Mapping[str, float]]
    queries: frozenset[str]
    zero: bool
    source: str = ""  # the files it was read from
    digest: str = ""  # of the values: what a cache keys it on
    #: what a gap scores under ``zero``: the score's worst value (trec_eval's 0 for a higher-is-
    #: better one never below 0); None where no worst is known (a cost, or values below 0, without
    #: a range): a gap is refused there, never given 0, which may beat every real value
    worst: float | None = 0.0
    name: str = ""  # the score's, for that refusal
    why: str = ""  # why no worst is known, for that refusal

    def of(self, run: str, qids: Sequence[str]) -> np.ndarray:
        """The run's values for these queries (NaN: no score, or a query outside the score's)."""
        own = self.by_run.get(run)
        if own is None:
            return np.full(len(qids), np.nan)
        gaps = [q for q in map(str, qids) if q in self.queries and q not in own]
        if self.zero and self.worst is None and gaps:
            raise NoWorstValue(self.name, run, gaps, why=self.why)
        gap = (self.worst if self.zero else None) if gaps else None
        fill = np.nan if gap is None else gap
        return np.array(
            [own.get(q, fill if q in self.queries else np.nan) for q in map(str, qids)],
            dtype=np.float64,
        )


@dataclass(frozen=True)
class Score(Measure):
    """A per-query score named ``name`` by its file; ``lower_is_better`` for a cost (latency);
    ``bounds`` its range when declared; ``values`` when it stands beside runs."""

    lower_is_better: bool = False
    bounds: tuple[float, float] | None = None
    #: run -> query -> the answer the score judges, when its file carries them
    answers: Mapping[str, Mapping[str, str]] = field(
        default_factory=dict, compare=False, repr=False
    )
    values: ScoreValues | None = field(default=None, compare=False, repr=False)

    @property
    def family(self) -> Family:
        return SCORE_FAMILY

    @property
    def higher_is_better(self) -> bool:
        return not self.lower_is_better

    @property
    def has_closed_form(self) -> bool:
        """The mean over the orders of tied documents is the score itself (it reads no order)."""
        return self.values is not None

    @property
    def from_rankings(self) -> bool:
        return False

    @property
    def key(self) -> str:
        """Its name, its values' digest and how a gap scores: a cache never serves the values of
        an older file under the same name."""
        if self.values is None:
            return self.name
        return f"{self.name} [{self.values.digest}, {'zero' if self.values.zero else 'skip'}]"

    def answer(self, run: str, query: str) -> str | None:
        """The answer of ``run`` to ``query`` that the score judges, when its file carries it."""
        return self.answers.get(run, {}).get(query)

    def under(self, *, zero: bool) -> Score:
        """The score with a query without a value scoring 0 (``zero``) or left out."""
        if self.values is None or self.values.zero == zero:
            return self
        return dataclasses.replace(self, values=dataclasses.replace(self.values, zero=zero))

    def known(self) -> str:
        """What is known of it beyond its values: ``in [0, 1]``, ``lower is better``, both or
        ""."""
        return ", ".join(
            [
                *([f"in [{self.bounds[0]:g}, {self.bounds[1]:g}]"] if self.bounds else []),
                *(["lower is better"] if self.lower_is_better else []),
            ]
        )

    def describe(self) -> str:
        """Where its values come from, and what a query without one scores (the footer's line)."""
        said = f" ({self.known()})" if self.known() else ""
        if self.values is None:
            return f"{self.name}{said}: a per-query score from a file"
        gap = gap_text(self.values.worst) if self.values.zero else "is left out"
        return (
            f"{self.name}{said}: a per-query score from {self.values.source}; a query it "
            f"scores for another run and not for one {gap}"
        )

    def __str__(self) -> str:
        return self.name

    def __call__(self, table) -> np.ndarray:
        if self.values is None:
            raise MeasureError(f"{self.name} is a score read from a file: no ranking computes it")
        return self.values.of(table.run_name, table.qids)


def scores_as_measures(
    scores: Sequence[Scores], *, zero: bool, rules: ScoreRules | None = None
) -> list[Score]:
    """Each score of the files, named as they name it, carrying its values and what ``rules`` say
    of it (one run, query and score twice, across files, is refused by the reader of each file and
    here; a value outside its declared range, here)."""
    by_name: dict[str, dict[str, dict[str, float]]] = {}
    sources: dict[str, list[str]] = {}
    texts = answers_of(scores)
    for source in scores:
        if rules is not None:
            rules.check(source)
        for name in source.frame["measure"].unique():
            sources.setdefault(name, []).append(f"{source.source} ({source.form})")
        for run, query, name, value in source.frame[
            ["run", "query", "measure", "value"]
        ].itertuples(index=False):
            held = by_name.setdefault(name, {}).setdefault(run, {})
            if query in held:
                raise MeasureError(
                    f"{source.source}: run {run!r}, query {query!r}, score {name!r} is given twice"
                )
            held[query] = float(value)
    found = []
    for name, runs in by_name.items():
        lower = rules is not None and name in rules.lower_is_better
        bounds = rules.range_of(name) if rules is not None else None
        lowest = min((v for held in runs.values() for v in held.values()), default=0.0)
        values = ScoreValues(
            runs,
            frozenset(q for held in runs.values() for q in held),
            zero,
            ", ".join(sources[name]),
            values_digest(runs),
            worst_value(lower_is_better=lower, bounds=bounds, lowest=lowest),
            name,
            unknown_worst(lower_is_better=lower, lowest=lowest),
        )
        found.append(
            Score(
                name,
                lower_is_better=lower,
                bounds=bounds,
                values=values,
                answers=texts.get(name, {}),
            )
        )
    return found


def gap_text(worst: float | None) -> str:
    """What a query without a value does under ``--missing zero``, in words."""
    if worst is None:
        return "is refused (lower is better, no worst value known)"
    return "scores 0" if worst == 0 else f"scores {worst:g}, its worst"


class NoWorstValue(OptionError):
    """A gap in a score whose worst value is not known (a cost without a range, or a score whose
    values go below 0 without one): under ``missing="zero"`` it would score 0, which may beat every
    real value, so the mean is refused and the way on named as the reader gives it.

    Parameters
    ----------
    name
        The score.
    run
        The run with gaps.
    gaps
        The queries it has no value for (among those another run scored).
    why
        Why no worst value is known, in words.
    """

    #: the two ways on (leave the gaps out; declare the range), as each front end gives them
    WAYS: ClassVar[dict[str, tuple[str, str]]] = {
        API: (
            "the option missing='skip' (options= of a study, settings= of from_scores)",
            "ranges={{{name!r}: (LOW, HIGH)}}",
        ),
        COMMAND_LINE: ("--missing skip", "--score-range {name}=LOW:HIGH"),
        APP: (
            "'Queries missing from a run: skip' among the conventions",
            "the collection's range of {name} ([scores.range] in its collection.toml)",
        ),
    }

    def __init__(self, name: str, run: str, gaps: Sequence[str], *, why: str) -> None:
        self.name, self.run, self.gaps, self.why = name, run, list(gaps), why
        super().__init__(self.said(API))

    def said(self, front: str) -> str:
        skip, declare = self.WAYS.get(front, self.WAYS[API])
        return (
            f"{self.name}: {self.why}, so the {len(self.gaps)} queries run {self.run!r} has no "
            f"value for (e.g. {self.gaps[0]}) cannot score 0, which may beat every real value: "
            f"give {skip} to leave them out, or {declare.format(name=self.name)} so that a gap "
            "scores its worst"
        )

    def __reduce__(self):  # raised in a worker process, rebuilt in the caller's
        return (_no_worst, (self.name, self.run, self.gaps, self.why))


def _no_worst(name: str, run: str, gaps: Sequence[str], why: str) -> NoWorstValue:
    return NoWorstValue(name, run, gaps, why=why)


def unknown_worst(*, lower_is_better: bool, lowest: float) -> str:
    """Why a score without a range has no known worst value: a cost, or values below 0."""
    if lower_is_better:
        return "lower is better and no worst value is known"
    return f"its values go as low as {lowest:g} and no range is declared: no worst value is known"


def worst_value(
    *, lower_is_better: bool, bounds: tuple[float, float] | None, lowest: float = 0.0
) -> float | None:
    """What a query without a value scores under ``--missing zero``: the score's worst value, the
    bottom of its range (the top for a cost), trec_eval's 0 for a higher-is-better score without
    one whose values (``lowest`` the least of them) are never below 0; None where the worst is not
    known (a cost without a range, or values below 0 without one): a missing value never counts as
    better than a real one."""
    if bounds is not None:
        return bounds[1] if lower_is_better else bounds[0]
    return None if lower_is_better or lowest < 0 else 0.0


def answers_of(scores: Sequence[Scores]) -> dict[str, dict[str, dict[str, str]]]:
    """Per score name, run -> query -> the answer it judges: a file's answers are those of every
    score it holds."""
    texts: dict[str, dict[str, dict[str, str]]] = {}
    for source in scores:
        if source.texts is None:
            continue
        answers: dict[str, dict[str, str]] = {}
        for run, query, text in source.texts.itertuples(index=False):
            answers.setdefault(run, {})[query] = text
        for name in source.frame["measure"].unique():
            for run, written in answers.items():
                texts.setdefault(name, {}).setdefault(run, {}).update(written)
    return texts


def values_digest(runs: Mapping[str, Mapping[str, float]]) -> str:
    """A hash of every (run, query, value), in a fixed order (the values' exact doubles)."""
    text = "\n".join(
        f"{run}\t{query}\t{value!r}"
        for run in sorted(runs)
        for query, value in sorted(runs[run].items())
    )
    return hashlib.sha256(text.encode()).hexdigest()[:16]
