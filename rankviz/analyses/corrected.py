"""The runs' means and paired deltas under an LLM's judgments, corrected by the queries people
judged (:mod:`rankviz.analyses.prediction_powered`), as reports that render themselves."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from rankviz.analyses.prediction_powered import (
    CorrectedMean,
    corrected_mean,
    drawn_corrected_mean,
)

if TYPE_CHECKING:
    from rankviz.analyses.query_draw import QueryDraw
    from rankviz.evaluation.result import Evaluation


def query_values(llm: pd.Series, human: pd.Series) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A run's per-query values split as PPI takes them: people's values of the queries both
    judged, the LLM's of the same queries, and the LLM's of the queries people did not judge (in
    the LLM's query order). A query with no value under either (``--missing skip``) is left out."""
    llm = llm[np.isfinite(llm.to_numpy(dtype=np.float64))]
    human = human[np.isfinite(human.to_numpy(dtype=np.float64))]
    judged = llm.index.isin(human.index)
    return (
        human.reindex(llm.index[judged]).to_numpy(dtype=np.float64),
        llm[judged].to_numpy(dtype=np.float64),
        llm[~judged].to_numpy(dtype=np.float64),
    )


def estimate(
    llm: pd.Series, human: pd.Series, *, draw: QueryDraw | None, confidence: float
) -> CorrectedMean:
    """The corrected mean of one run (or one pair's differences): PPI++ over the queries people
    judged, or, with a ``draw`` kept in the meeting's record, over the drawn queries they judged
    (by uncertainty: each weighted by the inverse of its chance to be drawn)."""
    if draw is not None:
        human = human[human.index.isin(list(draw.probabilities))]
    if draw is None or draw.by == "uniform":
        return corrected_mean(*query_values(llm, human), confidence=confidence)
    llm = llm[np.isfinite(llm.to_numpy(dtype=np.float64))]
    human = human[np.isfinite(human.to_numpy(dtype=np.float64))]
    judged = llm.index[llm.index.isin(human.index)]
    return drawn_corrected_mean(
        human.reindex(judged).to_numpy(dtype=np.float64),
        llm.reindex(judged).to_numpy(dtype=np.float64),
        np.array([draw.probabilities[str(q)] for q in judged]),
        llm.to_numpy(dtype=np.float64),
        confidence=confidence,
    )


def paired_difference(
    reference: pd.Series, other: pd.Series, *, confidence: float = 0.95
) -> tuple[float, float, float, int]:
    """How far ``other``'s per-query values lie from ``reference``'s on the queries both hold:
    the mean difference (other minus reference), its Student t interval and how many queries
    (a mean of one query has no interval: NaN). What an LLM judge gets wrong on a run, where people
    judged the same queries (``rankviz agreement``)."""
    from scipy import stats

    both = (other - reference.reindex(other.index)).dropna().to_numpy(dtype=np.float64)
    n = len(both)
    mean = float(both.mean()) if n else float("nan")
    if n < 2:
        return mean, float("nan"), float("nan"), n
    half = float(stats.t.ppf(1 - (1 - confidence) / 2, n - 1)) * both.std(ddof=1) / np.sqrt(n)
    return mean, mean - half, mean + half, n


@dataclass(frozen=True)
class Correction:
    """What corrects the numbers: ``source`` (people's judgments, named), the queries both judged
    and all the LLM's, and ``drawn``: how rankviz drew the queries for people to judge (the
    record's draw, said), or "" when it did not (the interval then assumes they were drawn at
    random)."""

    source: str
    human_judged: int
    queries: int
    drawn: str = ""

    def sentences(self, confidence: float) -> list[str]:
        """What every output says under its numbers."""
        said = [
            f"corrected by {self.source}: {self.human_judged:,} of {self.queries:,} queries "
            f"judged by people (PPI++, {confidence:.0%} intervals)"
        ]
        if self.drawn:
            said.append(f"judged where drawn: {self.drawn}")
        else:
            said.append(
                "the intervals assume the human-judged queries were drawn at random from all the "
                "queries; chosen by hand, they may not hold (rankviz judgments sample draws them)"
            )
        return said


@dataclass(frozen=True)
class CorrectedMeans:
    """Each run's mean of each measure, corrected (``means[(run, measure)]``); ``evaluation``:
    the runs' values under the LLM's judgments it corrects."""

    means: Mapping[tuple[str, str], CorrectedMean]
    correction: Correction
    confidence: float
    evaluation: Evaluation

    def to_frame(self, *, margin: float | None = None) -> pd.DataFrame:
        """One row per run and measure: the corrected ``value`` and its interval, the LLM's own
        mean, and the mean correction (people minus the LLM) with its interval; with ``margin``,
        ``queries_for_moe``: the human-judged queries that would bring the interval's half width
        down to it (:meth:`~rankviz.analyses.prediction_powered.CorrectedMean.queries_for`)."""
        rows = []
        for (run, measure), mean in self.means.items():
            low, high = mean.confidence_interval()
            fix_low, fix_high = mean.correction_interval()
            rows.append(
                {
                    "run": run,
                    "measure": measure,
                    "value": mean.statistic,
                    "ci_low": low,
                    "ci_high": high,
                    "llm_value": mean.llm_mean,
                    "correction": mean.correction,
                    "correction_low": fix_low,
                    "correction_high": fix_high,
                    "power_tuning": mean.power_tuning,
                    "human_judged": mean.human_judged,
                    "queries": mean.human_judged + mean.llm_only,
                    **({} if margin is None else {"queries_for_moe": mean.queries_for(margin)}),
                }
            )
        return pd.DataFrame(rows)

    def to_dict(self) -> list[dict]:
        return self.to_frame().to_dict("records")


@dataclass(frozen=True)
class CorrectedDeltas:
    """Each run's paired delta against the baseline, per measure, corrected: the PPI++ estimate
    of the mean per-query difference people would give, its interval and two-sided p-value, the
    p-values adjusted over the runs of one measure by ``method``; ``evaluation`` as
    :class:`CorrectedMeans` holds it."""

    baseline: str
    deltas: Mapping[tuple[str, str], CorrectedMean]
    adjusted: Mapping[tuple[str, str], float]
    correction: Correction
    confidence: float
    method: str
    evaluation: Evaluation
    alpha: float = 0.05
    lower_is_better: frozenset[str] = frozenset()

    def to_frame(self) -> pd.DataFrame:
        """One row per run and measure: the corrected ``delta``, its interval, ``p_value`` and
        ``p_adjusted``, and the ``verdict`` at :attr:`alpha` from the adjusted p (``better``,
        ``worse`` or ``n.s.``, as compare's)."""
        from rankviz.analyses.verdicts import verdicts

        rows = []
        for (run, measure), delta in self.deltas.items():
            low, high = delta.confidence_interval()
            rows.append(
                {
                    "baseline": self.baseline,
                    "run": run,
                    "measure": measure,
                    "delta": delta.statistic,
                    "ci_low": low,
                    "ci_high": high,
                    "p_value": delta.pvalue,
                    "p_adjusted": self.adjusted[(run, measure)],
                    "llm_delta": delta.llm_mean,
                    "human_judged": delta.human_judged,
                }
            )
        frame = pd.DataFrame(rows)
        return frame.assign(
            verdict=verdicts(frame, alpha=self.alpha, lower_is_better=self.lower_is_better)
        )

    def to_dict(self) -> list[dict]:
        return self.to_frame().to_dict("records")


def corrected_deltas(
    pairs: Mapping[tuple[str, str], tuple[pd.Series, pd.Series, pd.Series, pd.Series]],
    *,
    baseline: str,
    correction: Correction,
    confidence: float,
    method: str,
    evaluation: Evaluation,
    draw: QueryDraw | None = None,
    alpha: float = 0.05,
    lower_is_better: frozenset[str] = frozenset(),
) -> CorrectedDeltas:
    """The corrected deltas of ``pairs``: for each (run, measure), the baseline's and the run's
    values under the LLM's judgments and under people's (``llm_base, llm_run, human_base,
    human_run``), each a Series by query; ``evaluation``: the LLM's, kept with the report."""
    from rankviz.analyses.significance import adjust  # scipy: not on evaluate's road

    deltas = {}
    for key, (llm_base, llm_run, human_base, human_run) in pairs.items():
        llm = (llm_run - llm_base).dropna()
        human = (human_run - human_base).dropna()
        deltas[key] = estimate(llm, human, draw=draw, confidence=confidence)
    adjusted: dict[tuple[str, str], float] = {}
    for measure in dict.fromkeys(m for _, m in deltas):
        keys = [k for k in deltas if k[1] == measure]
        values = adjust([deltas[k].pvalue for k in keys], method=method)
        adjusted.update(zip(keys, map(float, values), strict=True))
    return CorrectedDeltas(
        baseline,
        deltas,
        adjusted,
        correction,
        confidence,
        method,
        evaluation,
        alpha,
        lower_is_better,
    )
