"""ndeval's diversity measures beside the runs' other measures: alpha-nDCG@K, ERR-IA@K, NRBP, ...
computed from diversity qrels (``topic subtopic docno judgment``) as ``rankviz ndeval`` computes
them (ndeval 4.5's values), then carried by each run as a per-query score
(:class:`~rankviz.measures.score.Score`), so evaluate, compare, ranks, groups, metric choice and the
app take them as they take any measure.

The order of each topic's documents is the study's: trec_eval's (ndeval's ``-traditional``), or the
run's rank column under ``ties=run`` (ndeval's default); alpha and beta are ndeval's 0.5. A judged
topic the run does not answer scores 0 (ndeval's ``-c``), or is left out under ``missing=skip``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from rankviz.errors import OptionError
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


def diversity_name(name: str | object) -> str | None:
    """ndeval's name of the diversity measure ``name`` spells (``alpha_nDCG@20``, ``ERR-IA@10``),
    else None."""
    return SPELLINGS.get(str(name).strip().lower())


def diversity_scores(
    path: str | Path,
    runs: Mapping[str, Run],
    names: Sequence[str],
    *,
    zero: bool,
    by_rank: bool,
) -> list[Score]:
    """The measures ``names`` (ndeval's, in their order) of each run against the diversity qrels
    at ``path``; ``by_rank``: each topic ordered by the run's rank column (ndeval's default), else
    by score as trec_eval orders it."""
    from rankviz.io.subtopics import read_subtopic_qrels
    from rankviz.measures.score import Score, ScoreValues
    from rankviz.ndeval.report import NdevalOptions, ndeval_values, topics_of

    qrels = read_subtopic_qrels(path)
    options = NdevalOptions(traditional=not by_rank)
    judged = frozenset(topics_of(qrels, options.rel))
    values = {name: ndeval_values(qrels, run, options) for name, run in runs.items()}
    order = "the runs' rank column" if by_rank else "trec_eval's order"
    found = []
    for column in dict.fromkeys(names):
        by_run = {
            run: {
                str(topic): float(v)
                for topic, v in frame[column].items()
                if str(topic) in judged and v == v  # nNRBP's 0 / 0: no value
            }
            for run, frame in values.items()
        }
        text = "\n".join(f"{r}\t{q}\t{v!r}" for r in sorted(by_run) for q, v in by_run[r].items())
        found.append(
            Score(
                column,
                values=ScoreValues(
                    by_run,
                    judged,
                    zero,
                    f"{path} (ndeval 4.5's measure, alpha = beta = 0.5, on {order})",
                    hashlib.sha256(text.encode()).hexdigest()[:16],
                ),
            )
        )
    return found


def split_diversity(names: Sequence[str | object]) -> tuple[list[str], list]:
    """(the diversity measures among ``names``, by ndeval's names; the other names)."""
    diverse = [d for d in (diversity_name(n) for n in names) if d is not None]
    return diverse, [n for n in names if diversity_name(n) is None]


def needs_qrels(names: Sequence[str]) -> OptionError:
    return OptionError(
        f"{', '.join(names)} {'needs' if len(names) == 1 else 'need'} diversity qrels (topic "
        f"subtopic docno judgment, as ndeval reads them): --diversity FILE, or a collection "
        f"folder's {SUBTOPICS}"
    )
