"""Where each run stands: its rank with an interval, and the groups of runs that cannot be told
apart.

A strict order of means says more than most collections can tell (adjacent ranks are rarely
separable). So each run's rank (1 = best mean) gets a percentile interval from a paired bootstrap
over queries: every resample draws the queries once for all runs, keeping their correlation. And the
runs are grouped by a compact letter display of the randomised Tukey HSD: runs sharing a letter are
not significantly different. The letters come from Piepho's insert-and-absorb (2004), so every
pair's letters say exactly its Tukey verdict, even where the verdicts are not transitive.
"""

from __future__ import annotations

import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from rankviz.analyses.tukey import Progress, TukeyResult, tukey_hsd
from rankviz.errors import OptionError
from rankviz.settings.numbers import ROUNDING, seed_text, seeded

if TYPE_CHECKING:
    import pandas as pd

    from rankviz.evaluation.result import Evaluation
    from rankviz.settings.significance_settings import TestSettings

COLUMNS = ["measure", "run", "mean", "rank", "rank_low", "rank_high", "group", "queries"]


def competition_ranks(means: np.ndarray) -> np.ndarray:
    """Ranks of the runs (last axis), 1 = best: one plus the runs whose mean is higher (ties share a
    rank)."""
    means = np.asarray(means, dtype=np.float64)
    tolerance = ROUNDING * np.maximum(1.0, np.abs(means))
    higher = means[..., None, :] > (means + tolerance)[..., :, None]
    return 1 + higher.sum(axis=-1)


@dataclass(frozen=True)
class RankIntervals:
    """Each run's observed rank and the percentile interval of its ranks over bootstrap
    resamples."""

    rank: np.ndarray
    low: np.ndarray
    high: np.ndarray
    n_resamples: int
    confidence_level: float


def rank_intervals(
    matrix,
    *,
    n_resamples: int = 10_000,
    confidence_level: float = 0.95,
    rng: np.random.Generator | int | None = None,
    batch: int = 250,
) -> RankIntervals:
    """The runs' (columns') ranks by mean over a paired bootstrap of the queries (rows).

    Resample b draws n query indices with replacement (``rng.integers(0, n, size=n)``, in order);
    the interval is the lower order statistic at (1 - level) / 2 and the higher at (1 + level) / 2
    of the ranks. Batches only save memory: the draws, and so the result, depend on the seed alone.
    """
    values = np.asarray(matrix, dtype=np.float64)
    if values.ndim != 2 or values.shape[0] < 2 or values.shape[1] < 2:
        raise OptionError(
            "rank intervals need a queries x runs matrix with at least two runs and two queries"
        )
    if not 0 < confidence_level < 1:
        raise OptionError("confidence_level must be between 0 and 1")
    n = values.shape[0]
    generator = seeded(rng)
    ranks = np.empty((n_resamples, values.shape[1]), dtype=np.int32)
    for start in range(0, n_resamples, batch):
        size = min(batch, n_resamples - start)
        drawn = generator.integers(0, n, size=(size, n))
        counts = np.bincount(
            (drawn + n * np.arange(size)[:, None]).ravel(), minlength=size * n
        ).reshape(size, n)
        ranks[start : start + size] = competition_ranks(counts @ values / n)
    low = np.quantile(ranks, (1 - confidence_level) / 2, axis=0, method="lower")
    high = np.quantile(ranks, (1 + confidence_level) / 2, axis=0, method="higher")
    observed = competition_ranks(values.mean(axis=0))
    return RankIntervals(observed, low.astype(int), high.astype(int), n_resamples, confidence_level)


def letter(index: int) -> str:
    """The display letter of group ``index``: a-z, then A-Z, then numbered."""
    letters = string.ascii_lowercase + string.ascii_uppercase
    return letters[index] if index < len(letters) else f"({index + 1})"


def compact_letters(order: Sequence[str], separated: Sequence[tuple[str, str]]) -> dict[str, str]:
    """Piepho's insert-and-absorb: the groups (letters) of ``order`` (best first) such that two runs
    share a letter exactly when they are not a ``separated`` (significantly different) pair. Letters
    are given in the order of each group's best run."""
    groups: list[set[str]] = [set(order)]
    for a, b in separated:
        split: list[set[str]] = []
        for group in groups:
            if a in group and b in group:
                split += [group - {a}, group - {b}]
            else:
                split.append(group)
        groups = [
            g
            for i, g in enumerate(split)
            if g and not any(g < h or (g == h and j < i) for j, h in enumerate(split))
        ]
    position = {run: i for i, run in enumerate(order)}
    groups.sort(key=lambda g: sorted(position[r] for r in g))
    return {run: "".join(letter(i) for i, g in enumerate(groups) if run in g) for run in order}


@dataclass(frozen=True)
class Standings:
    """Per measure, the runs by mean: rank, rank interval and Tukey group letters
    (:func:`standings`)."""

    # measure -> runs (best first): mean, rank, rank_low, rank_high, group, queries
    tables: Mapping[str, pd.DataFrame]
    n_resamples: int
    seed: int | None
    confidence_level: float
    alpha: float
    # measure -> the Tukey HSD's resamples, where it stopped before n_resamples (every verdict
    # settled)
    settled_after: Mapping[str, int] = field(default_factory=dict)

    def describe(self) -> str:
        """How the intervals and letters were drawn (captions and footers)."""
        seed = seed_text(self.seed)
        text = (
            f"rank: 1 = best mean; {self.confidence_level:.0%} interval: percentiles of the "
            "ranks over "
            f"{self.n_resamples:,} paired bootstrap resamples of the queries ({seed}); group: "
            "runs sharing a letter "
            f"are not significantly different (randomised Tukey HSD, alpha = {self.alpha:g}), "
            "on the queries every run answers"
        )
        if self.settled_after:
            early = ", ".join(f"{n:,} resamples for {m}" for m, n in self.settled_after.items())
            text += (
                f"; the HSD stopped once every pair's verdict was settled (after {early}; each "
                "verdict's chance of differing from the full resampling's is under 1%)"
            )
        return text

    def to_frames(self) -> dict[str, pd.DataFrame]:
        import pandas as pd

        frames = [
            table.reset_index().assign(measure=measure) for measure, table in self.tables.items()
        ]
        return {"standings": pd.concat(frames, ignore_index=True)[COLUMNS]}

    def to_dict(self) -> dict:
        return {
            "method": self.describe(),
            "seed": self.seed,
            "n_resamples": self.n_resamples,
            "confidence_level": self.confidence_level,
            "alpha": self.alpha,
            "tukey_settled_after": dict(self.settled_after),
            "standings": self.to_frames()["standings"].to_dict(orient="records"),
        }


def measure_standing(
    matrix: pd.DataFrame,
    *,
    n_resamples: int,
    confidence_level: float,
    alpha: float,
    seed: int | None,
    progress: Progress | None = None,
) -> tuple[pd.DataFrame, TukeyResult]:
    """One measure's standings from its queries x runs values (the queries every run answers), and
    the Tukey HSD that grouped them (resampled until every verdict at ``alpha`` was settled);
    ``seed`` None: fresh entropy (asked for), one seed drawn for both."""
    import pandas as pd

    if seed is None:
        seed = int(np.random.default_rng().integers(2**63))
    values = matrix.to_numpy(dtype=np.float64)
    intervals = rank_intervals(
        values, n_resamples=n_resamples, confidence_level=confidence_level, rng=seed
    )
    tukey = tukey_hsd(values, n_resamples=n_resamples, rng=seed, alpha=alpha, progress=progress)
    if progress is not None and tukey.stopped_early:
        progress(n_resamples - tukey.n_resamples)
    runs = list(matrix.columns)
    means = values.mean(axis=0)
    order = sorted(range(len(runs)), key=lambda i: (-means[i], i))
    separated = [
        (runs[i], runs[j])
        for i in range(len(runs))
        for j in range(i + 1, len(runs))
        if tukey.pvalue[i, j] < alpha
    ]
    groups = compact_letters([runs[i] for i in order], separated)
    rows = {
        runs[i]: {
            "mean": float(means[i]),
            "rank": int(intervals.rank[i]),
            "rank_low": int(intervals.low[i]),
            "rank_high": int(intervals.high[i]),
            "group": groups[runs[i]],
            "queries": len(values),
        }
        for i in order
    }
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis("run"), tukey


def standings(
    evaluation: Evaluation,
    test: TestSettings,
    *,
    measures: Sequence | None = None,
    progress: Progress | None = None,
) -> Standings:
    """Every measure's standings of the evaluation's runs, drawn with the test's resamples, seed,
    confidence level and alpha (the Tukey HSD is the grouping's test whatever test is in force);
    ``progress`` is told the Tukey resamples done, ``n_resamples`` per measure in all."""
    if len(evaluation.runs) < 2:
        raise OptionError("rank intervals and groups need at least two runs")
    if evaluation.settings.aggregate != "query":
        raise OptionError(
            "rank intervals resample queries: they need the query mean (--aggregate query)"
        )
    tables, settled_after = {}, {}
    for measure in measures or evaluation.measures:
        matrix = evaluation.matrix(measure)
        if len(matrix) < 2:
            raise OptionError(
                f"{measure}: fewer than two queries every run answers: no rank intervals"
            )
        tables[str(measure)], tukey = measure_standing(
            matrix,
            n_resamples=test.n_resamples,
            confidence_level=test.confidence_level,
            alpha=test.alpha,
            seed=test.seed,
            progress=progress,
        )
        if tukey.stopped_early:
            settled_after[str(measure)] = tukey.n_resamples
    return Standings(
        tables, test.n_resamples, test.seed, test.confidence_level, test.alpha, settled_after
    )
