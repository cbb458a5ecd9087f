"""The options of each report, as frozen settings: what a report's depth, random orders, fill grade
or power test are, with their defaults said once (in the options of
:mod:`rankviz.settings.eval_settings`).

The command line builds them from its flags, the app from its widgets and URL, and the reports keep
them, so a caption or a footer says the values the numbers were computed with.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rankviz.settings.engine_settings import EngineSettings
from rankviz.settings.eval_settings import SEED, EvalSettings, Settings
from rankviz.settings.numbers import seed_text
from rankviz.settings.options import Option
from rankviz.settings.significance_settings import ALPHA, TestSettings

# options of the analyses (not of an evaluation)
K = Option(
    "k",
    10,
    "the depth users inspect: share of tied and of judged top-K documents, the task's top K",
    label="K (depth)",
    kind=int,
    low=1,
    high=1_000_000,
    cli="--cutoff",
)


TIE_TRIALS = Option(
    "trials",
    0,
    "(ties report) also average this many random orders (0: none)",
    label="Random orders",
    kind=int,
    low=0,
    high=10_000,
)


FILL = Option(
    "grade",
    None,
    "the grade unjudged documents are judged at for the report's second end (none: the relevance "
    "threshold)",
    kind=int,
    low=0,
    high=2**31 - 1,
    optional=True,
)


QUERIES_LISTED = Option(
    "queries", 5, "queries listed per run whose value moves most", kind=int, low=1, high=10_000
)


SPLITS = Option(
    "splits",
    1000,
    "random halves of the queries for the swap rate",
    label="Random splits",
    kind=int,
    low=10,
    high=100_000,
)


POWER_TEST = Option(
    "test",
    "tukey",
    "test of discriminative power over the run pairs",
    choices=("tukey", "bootstrap", "randomization", "t"),
    meanings={
        "tukey": "randomised Tukey HSD",
        "bootstrap": "paired bootstrap (Holm)",
        "randomization": "paired randomization (Holm)",
        "t": "paired t-test (Holm)",
    },
)


POWER_RESAMPLES = Option(
    "n_resamples",
    1000,
    "resamples of the discriminative-power test",
    kind=int,
    low=100,
    high=100_000,
    cli="--resamples",
)


DETECT = Option(
    "detect",
    None,
    "add queries_needed: queries a study needs for the paired t-test to detect this difference "
    "with 80% power",
    kind=float,
    low=1e-6,
    high=1e6,
    optional=True,
)


@dataclass(frozen=True)
class TieReportSettings(Settings):
    """The tie report: the depth of the tie statistics, the random orders averaged, the queries
    listed per run."""

    k: int = K.default
    trials: int = TIE_TRIALS.default
    queries: int = QUERIES_LISTED.default

    OPTIONS: ClassVar[dict[str, Option]] = {o.name: o for o in (K, TIE_TRIALS, QUERIES_LISTED)}


@dataclass(frozen=True)
class UnjudgedSettings(Settings):
    """The unjudged report: the depth whose unjudged documents are filled, their grade (None: the
    relevance threshold), the queries listed."""

    k: int = K.default
    grade: int | None = FILL.default
    queries: int = QUERIES_LISTED.default

    OPTIONS: ClassVar[dict[str, Option]] = {o.name: o for o in (K, FILL, QUERIES_LISTED)}


@dataclass(frozen=True)
class MetricSettings(Settings):
    """The metric-choice report: the task's top K, the test of discriminative power and its
    resamples, the random splits of the swap rate, alpha, and the seed of every draw."""

    k: int = K.default
    test: str = POWER_TEST.default
    n_resamples: int = POWER_RESAMPLES.default
    splits: int = SPLITS.default
    alpha: float = ALPHA.default
    seed: int | None = SEED.default

    OPTIONS: ClassVar[dict[str, Option]] = {
        o.name: o for o in (K, POWER_TEST, POWER_RESAMPLES, SPLITS, ALPHA, SEED)
    }

    def describe(self) -> str:
        """How the evidence was drawn (captions and footers)."""
        seed = seed_text(self.seed)
        return (
            f"discriminative power: {POWER_TEST.meanings[self.test]}, {self.n_resamples:,} "
            "resamples, alpha = "
            f"{self.alpha:g}; swap rate: {self.splits:,} random splits; {seed}"
        )


#: The CI gate of ``rankviz compare``: which comparisons against the baseline fail the job (exit 1).
FAIL_IF = Option(
    "fail_if",
    None,
    "exit 1 when a run's comparison against the baseline fails (none: never)",
    label="Fail if",
    choices=("worse", "not-better"),
    meanings={
        "worse": "the run is significantly worse than the baseline (adjusted p < alpha), or with a "
        "margin, its mean is lower by more than the margin, significant or not",
        "not-better": "the run is not significantly better than the baseline, or with a margin, "
        "not better by more than the margin",
    },
    optional=True,
    cli="--fail-if",
)
MARGIN = Option(
    "margin",
    None,
    "with fail_if: worse also fails a run whose mean is lower than the baseline's by more than "
    "this, significant or not; not-better also asks for a mean higher by more than this (none: "
    "significance alone decides)",
    kind=float,
    low=0.0,
    high=1e12,
    optional=True,
)


#: A summary across collections: raw deltas, or each divided by its collection's spread.
STANDARDISED = Option(
    "standardised",
    False,
    "each collection's delta divided by its standard deviation of the per-query differences "
    "(default: raw deltas)",
    kind=bool,
    label="Standardised effects",
)


def markdown_options() -> str:
    """The table of options of docs/options.md (tests/unit/test_docs.py keeps it in step)."""
    rows = ["| option | command line | values | default | what it sets |", "|---|---|---|---|---|"]
    seen = set()
    options = (
        *EvalSettings.OPTIONS.values(),
        *TestSettings.OPTIONS.values(),
        K,
        TIE_TRIALS,
        SPLITS,
        DETECT,
        FILL,
        FAIL_IF,
        MARGIN,
        STANDARDISED,
        *EngineSettings.OPTIONS.values(),
    )
    for option in options:
        if id(option) in seen:  # TestSettings and EvalSettings share seed
            continue
        seen.add(id(option))
        if option.choices:
            values = "; ".join(
                f"`{v}`" + (f": {option.meanings[v]}" if option.meanings.get(v) else "")
                for v in option.choices
            )
        elif option.kind is str:
            values = "a name"
        else:
            values = option.range_text().replace("must be ", "")
        default = "none" if option.default is None else f"`{option.default}`"
        cells = [f"`{option.name}`", f"`{option.flag}`", values, default, option.doc]
        rows.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(rows) + "\n"
