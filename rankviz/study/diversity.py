"""ndeval's diversity measures beside the runs' other measures: alpha-nDCG@K, ERR-IA@K, NRBP, ...
computed from diversity qrels (``topic subtopic docno judgment``) as ``rankviz ndeval`` computes
them (ndeval 4.5's values), then carried by each run as a per-query score
(:class:`~rankviz.measures.score.Score`), so evaluate, compare, ranks, groups, metric choice and the
app take them as they take any measure.

The order of each topic's documents is the study's: trec_eval's (ndeval's ``-traditional``), or the
run's rank column under ``ties=run`` (ndeval's default); alpha and beta are ndeval's 0.5 unless the
name sets them (``alpha_nDCG(alpha=0.3)@10``, ``NRBP(alpha=0.3,beta=0.8)``: ndeval's ``-alpha`` and
``-beta``). A judged topic the run does not answer scores 0 (ndeval's ``-c``), or is left out under
``missing=skip``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rankviz.errors import MeasureError, OptionError
from rankviz.io.collection import SUBTOPICS
from rankviz.ndeval.names import COLUMNS

if TYPE_CHECKING:
    from rankviz.io.model import Run
    from rankviz.measures.score import Score

#: ndeval's measures by its names, in its order
DIVERSITY_MEASURES = tuple(COLUMNS)
#: every spelling a diversity measure is asked by (ndeval's, ir_measures', any case) -> ndeval's
SPELLINGS = {
    spelled.lower(): column
    for column, irm in COLUMNS.items()
    for spelled in (column, irm, column.replace("-", "_"))
}


#: the measures alpha reaches (every measure of gains); beta reaches NRBP's
_ALPHA = ("ERR-IA", "nERR-IA", "alpha-DCG", "alpha-nDCG", "NRBP", "nNRBP")
_NAMED = re.compile(
    r"^\s*(?P<base>[A-Za-z_-]+)\s*(?:\((?P<params>[^()]*)\))?\s*(?P<at>@\s*[0-9]+)?\s*$"
)


@dataclass(frozen=True)
class DiversityMeasure:
    """One of ndeval's measures (its column) under an alpha and a beta (ndeval's ``-alpha``,
    ``-beta``); printed as ndeval names it, the parameters that are not 0.5 before its cutoff:
    ``alpha-nDCG(alpha=0.3)@20``."""

    column: str
    alpha: float = 0.5
    beta: float = 0.5

    def __str__(self) -> str:
        base, at, cutoff = self.column.partition("@")
        shown = ",".join(
            f"{k}={v:g}" for k, v in (("alpha", self.alpha), ("beta", self.beta)) if v != 0.5
        )
        return f"{base}({shown}){at}{cutoff}" if shown else self.column


def diversity_measure(name: str | object) -> DiversityMeasure | None:
    """The diversity measure ``name`` spells (``alpha_nDCG@20``, ``ERR-IA@10``,
    ``alpha_nDCG(alpha=0.3)@10``), else None; a MeasureError for a parameter the measure does not
    read or a value outside [0, 1]."""
    named = _NAMED.match(str(name))
    if named is None:
        return None
    at = (named["at"] or "").replace(" ", "")
    column = SPELLINGS.get(f"{named['base']}{at}".lower())
    if column is None:
        return None
    base = column.partition("@")[0]
    reads = [k for k, used in (("alpha", base in _ALPHA), ("beta", "NRBP" in base)) if used]
    params = {}
    for item in filter(str.strip, (named["params"] or "").split(",")):
        key, _, value = (part.strip() for part in item.partition("="))
        if key not in reads:
            raise MeasureError(
                f"{column}: no parameter {key!r} (it reads {', '.join(reads) or 'none'})"
            )
        number = _unit(value)
        if number is None:
            raise MeasureError(f"{column}: {key}={value} must be a number in [0, 1]")
        params[key] = number
    return DiversityMeasure(column, **params)


def diversity_name(name: str | object) -> str | None:
    """How the diversity measure ``name`` spells is printed (``alpha_nDCG@20``:
    ``alpha-nDCG@20``), else None (see :func:`diversity_measure`)."""
    measure = diversity_measure(name)
    return None if measure is None else str(measure)


def _unit(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if 0.0 <= value <= 1.0 else None


def diversity_scores(
    path: str | Path,
    runs: Mapping[str, Run],
    names: Sequence[str],
    *,
    zero: bool,
    by_rank: bool,
    rel: int = 1,
    depth: int | None = None,
) -> list[Score]:
    """The measures ``names`` (ndeval's, in their order) of each run against the diversity qrels
    at ``path``; ``by_rank``: each topic ordered by the run's rank column (ndeval's default), else
    by score as trec_eval orders it; ``rel``: a judgment counts from this grade; ``depth``: the
    first documents of each topic that count (the study's ``--rel`` and ``--depth``, ndeval's
    relevance level and ``-M``). A topic with no relevant document scores 0 on every measure,
    nNRBP's 0 / 0 included, so every measure's mean covers the same topics."""
    from rankviz.io.subtopics import read_subtopic_qrels
    from rankviz.measures.score import Score, ScoreValues, values_digest
    from rankviz.ndeval.report import NdevalOptions, ndeval_values, topics_of

    qrels = read_subtopic_qrels(path)
    judged = frozenset(topics_of(qrels, rel))
    computed: dict[tuple[float, float], dict] = {}  # each (alpha, beta) asked: every run's values
    order = "the runs' rank column" if by_rank else "trec_eval's order"
    found = []
    for name in dict.fromkeys(names):
        measure = diversity_measure(name)
        assert measure is not None, name  # the names are diversity_name's
        column, alpha, beta = measure.column, measure.alpha, measure.beta
        if (alpha, beta) not in computed:
            options = NdevalOptions(
                alpha=alpha, beta=beta, traditional=not by_rank, rel=rel, depth=depth
            )
            computed[alpha, beta] = {
                r: ndeval_values(qrels, run, options) for r, run in runs.items()
            }
        values = computed[alpha, beta]
        by_run = {
            run: {
                str(topic): float(v) if v == v else 0.0  # nNRBP's 0 / 0: nothing to find
                for topic, v in frame[column].items()
                if str(topic) in judged
            }
            for run, frame in values.items()
        }
        found.append(
            Score(
                name,
                values=ScoreValues(
                    by_run,
                    judged,
                    zero,
                    f"{path} (ndeval 4.5's measure, alpha = {alpha:g}, beta = {beta:g}, on "
                    f"{order}, relevant from grade {rel}"
                    + (f", the first {depth} documents)" if depth else ")"),
                    values_digest(by_run),
                ),
            )
        )
    return found


def needs_qrels(names: Sequence[str]) -> OptionError:
    return OptionError(
        f"{', '.join(names)} {'needs' if len(names) == 1 else 'need'} diversity qrels (topic "
        f"subtopic docno judgment, as ndeval reads them): --diversity FILE, or a collection "
        f"folder's {SUBTOPICS}"
    )
