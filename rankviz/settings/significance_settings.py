"""The options of a significance test, defined once, and the frozen settings they make."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rankviz.settings.eval_settings import SEED
from rankviz.settings.numbers import seed_text
from rankviz.settings.options import Option, Settings

TEST = Option(
    "test",
    "t",
    "paired significance test",
    label="Test",
    choices=("t", "wilcoxon", "sign", "randomization", "bootstrap", "tukey"),
    meanings={
        "t": "paired t-test",
        "wilcoxon": "Wilcoxon signed-rank",
        "sign": "sign test",
        "randomization": "paired randomization (sign flips)",
        "bootstrap": "paired bootstrap",
        "tukey": "randomised Tukey HSD over all pairs",
    },
)


CORRECTION = Option(
    "correction",
    "holm",
    "multiple-comparison correction over the comparisons of one measure",
    label="Correction",
    choices=("none", "bonferroni", "holm", "bh"),
    meanings={
        "none": "",
        "bonferroni": "",
        "holm": "step-down",
        "bh": "Benjamini-Hochberg false discovery rate",
    },
)


ALTERNATIVE = Option(
    "alternative",
    "two-sided",
    "alternative hypothesis on run - baseline",
    label="Alternative",
    choices=("two-sided", "greater", "less"),
)


PAIRS = Option(
    "pairs",
    "baseline",
    "which pairs are tested",
    label="Pairs",
    choices=("baseline", "all"),
    meanings={"baseline": "the baseline against each run", "all": "every pair of runs"},
)


RESAMPLES = Option(
    "n_resamples",
    10_000,
    "resamples of the randomization, bootstrap and Tukey tests",
    label="Resamples",
    kind=int,
    low=100,
    high=1_000_000,
    cli="--resamples",
)


ZERO_METHOD = Option(
    "zero_method",
    "wilcox",
    "Wilcoxon's handling of zero differences",
    label="Wilcoxon: zero differences",
    choices=("wilcox", "pratt", "zsplit"),
    meanings={
        "wilcox": "drop them",
        "pratt": "rank them, then drop them",
        "zsplit": "split their ranks between the signs",
    },
)


ALPHA = Option(
    "alpha",
    0.05,
    "significance level of the verdicts (on the adjusted p)",
    label="alpha",
    kind=float,
    low=1e-6,
    high=0.5,
)


CONFIDENCE = Option(
    "confidence_level",
    0.95,
    "level of the confidence intervals",
    label="Confidence level",
    kind=float,
    low=0.5,
    high=0.9999,
)


@dataclass(frozen=True)
class TestSettings(Settings):
    """A significance test: which test, its correction and resampling, and the verdict's level."""

    __test__ = False  # not a pytest class

    test: str = TEST.default
    correction: str = CORRECTION.default
    alternative: str = ALTERNATIVE.default
    pairs: str = PAIRS.default
    n_resamples: int = RESAMPLES.default
    seed: int | None = SEED.default
    zero_method: str = ZERO_METHOD.default
    alpha: float = ALPHA.default
    confidence_level: float = CONFIDENCE.default
    baseline: str | None = None  # a run name; None: the first run
    #: its fields that are not options, said in its docstring's Parameters after them
    BESIDE: ClassVar[dict[str, str]] = {
        "baseline": "the run every other is compared with (pairs=baseline); default: the first run"
    }

    OPTIONS: ClassVar[dict[str, Option]] = {
        o.name: o
        for o in (
            TEST,
            CORRECTION,
            ALTERNATIVE,
            PAIRS,
            RESAMPLES,
            SEED,
            ZERO_METHOD,
            ALPHA,
            CONFIDENCE,
        )
    }

    def describe(self) -> str:
        """One line: the test in force (captions, CLI footers)."""
        correction = (
            "family-wise (Tukey HSD)" if self.test == "tukey" else (f"{self.correction} correction")
        )
        against = (
            "every pair of runs"
            if self.pairs == "all" or self.test == "tukey"
            else f"against {self.baseline or 'the first run'}"
        )
        drawn = (
            f", {self.n_resamples:,} resamples, {seed_text(self.seed)}" if self.resampled else ""
        )
        return (
            f"{self.test} test ({self.alternative}) {against}, {correction}, alpha = "
            f"{self.alpha:g}{drawn}"
        )

    @property
    def resampled(self) -> bool:
        """Whether the test draws resamples (randomization, bootstrap, Tukey HSD): its seed is
        then said with it."""
        return self.test in ("randomization", "bootstrap", "tukey")
