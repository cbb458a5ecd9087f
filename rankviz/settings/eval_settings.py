"""Every option of rankviz, defined once: its values, its default, what it means.

Each is an :class:`~rankviz.settings.options.Option`: the command line builds its flags from it,
the app its widgets and its URL parameters, the measures their parameters, and
:meth:`EvalSettings.conventions` the text that every output shows next to the numbers. Options only
the app's pages have live in :mod:`rankviz.app.widgets.page_options`. :class:`EvalSettings` holds
the options of an evaluation, :class:`TestSettings` those of a significance test; both are frozen
and validated, so a settings object that exists is one that can run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, ClassVar

from rankviz.errors import OptionError
from rankviz.settings.numbers import DEFAULT_SEED, seed_text
from rankviz.settings.options import Option, Settings
from rankviz.settings.tie_policy import POLICIES, TREC_EVAL, TiePolicy

ALL = "all"  # the qid (and group) of an overall mean row


def _describe_ties(value: TiePolicy, settings: EvalSettings) -> str:
    if value.sampled:
        seed = seed_text(settings.seed)
        return (
            f"ties: mean of {settings.trials} random orders within equal scores ({seed}); std "
            "over trials"
        )
    return "ties: " + TIES.meanings[value]


TIES = Option(
    "ties",
    TREC_EVAL,
    "order of documents with equal scores",
    label="Tie policy",
    choices=tuple(POLICIES.values()),
    meanings={rule: rule.meaning for rule in POLICIES.values()},
    kind=TiePolicy,
)
MISSING = Option(
    "missing",
    "zero",
    "queries judged in the qrels that a run has no ranking for",
    label="Queries missing from a run",
    choices=("zero", "skip"),
    meanings={
        "zero": "queries missing from a run score 0 and count in the mean (trec_eval -c)",
        "skip": "the mean covers only the queries a run answers; a paired test of two runs, the "
        "queries both answer (so naming a third run never changes it; Tukey HSD, which tests all "
        "runs at once, the queries every run answers)",
    },
)
REL = Option(
    "rel",
    1,
    "relevance threshold: grade >= rel counts as relevant for the binary measures (trec_eval -l)",
    label="Relevant from grade",
    kind=int,
    low=1,
    high=2**31 - 1,  # grades are int32
)
JUDGED_ONLY = Option(
    "judged_only",
    False,
    "compute on the condensed list: the documents the qrels do not judge are removed first (Sakai "
    "2007; trec_eval -J), then the cutoff applies, so @K counts the top K judged documents (as "
    "trec_eval -J's P_10; trec_eval -J -M10 instead cuts the run at 10 before removing, which is "
    "the depth of the run, not a measure's cutoff)",
    kind=bool,
    choices=(False, True),
)
GAIN = Option(
    "gain",
    "linear",
    "gain of a grade g in nDCG and NCG",
    label="nDCG gain",
    choices=("linear", "exp"),
    meanings={"linear": "g (trec_eval)", "exp": "2^g - 1 (Burges, gdeval)"},
)
GMAX = Option(
    "gmax",
    4,
    "the grade that stops every user in ERR: R = (2^g - 1) / 2^gmax (gdeval: 4)",
    label="ERR gmax",
    kind=int,
    low=1,
    high=1000,
)


def _unjudged(text: str) -> str:
    """``nonrelevant``, ``relevant`` or ``relevant:G`` (G a whole number, 0 or more)."""
    kind, colon, grade = text.partition(":")
    if kind == "nonrelevant" and not colon:
        return text
    if kind == "relevant" and (
        not colon or (re.fullmatch(r"[0-9]{1,10}", grade) and int(grade) <= 2**31 - 1)
    ):
        return text
    raise OptionError(
        f"unjudged={text[:40]!r}: write nonrelevant, relevant or relevant:G (G a "
        "grade from 0 to 2,147,483,647)"
    )


UNJUDGED = Option(
    "unjudged",
    "nonrelevant",
    "what the documents the qrels do not judge count as",
    label="Unjudged documents",
    validate=_unjudged,
    meanings={
        "nonrelevant": "not relevant (trec_eval)",
        "relevant[:G]": "judged at grade G (default: the relevance threshold) within each run's "
        "top K (K = the measure's cutoff; the whole ranking without one), the ideal ranking "
        "recomputed",
    },
)
AGGREGATE = Option(
    "aggregate",
    "query",
    "what the overall mean averages",
    label="Mean over",
    choices=("query", "macro", "weights"),
    meanings={
        "query": "overall mean over queries (each once)",
        "macro": "overall mean over the groups of group_by (each group once)",
        "weights": "overall mean weighted by a qid/weight file",
    },
)
DEPTH = Option(
    "depth",
    None,
    "only the first N documents of each ranking count, in trec_eval's order (score, then docno), "
    "as trec_eval -M N; the tie policy then orders those N (ties=run: the first N in the run's own "
    "order; none: every retrieved document)",
    label="Run depth",
    kind=int,
    low=1,
    high=2**31 - 1,
    optional=True,
)
IGNORE_IDENTICAL_IDS = Option(
    "ignore_identical_ids",
    False,
    "drop retrieved documents whose id is the query's before anything is measured (BEIR's rule, "
    "for collections whose queries are documents too: ArguAna, Quora, CQADupStack)",
    label="Drop documents with the query's id",
    kind=bool,
    choices=(False, True),
)


@dataclass(frozen=True)
class RunCut:
    """Which retrieved documents count: the first ``depth`` of each ranking in trec_eval's order
    (None: all), after those whose id is the query's are dropped (``drop_identical``). The rankings
    keep it (:func:`rankviz.ranking.ordering.rank`), so every measure, page and engine reads
    the same documents."""

    depth: int | None = None
    drop_identical: bool = False

    def describe(self) -> list[str]:
        """The conventions line(s) of a cut in force (none for the default: every document
        counts)."""
        lines = []
        if self.drop_identical:
            lines.append("retrieved documents whose id is the query's are dropped (BEIR)")
        if self.depth is not None:
            lines.append(
                f"run depth: the first {self.depth} documents of each ranking count "
                f"(trec_eval -M {self.depth})"
            )
        return lines


NO_CUT = RunCut()

GROUP_BY = Option(
    "group_by",
    None,
    "a query attribute to break every mean down by",
    label="Group queries by",
    optional=True,
)
TRIALS = Option(
    "trials",
    100,
    "random orders averaged under ties=random",
    label="Random orders",
    kind=int,
    low=1,
    high=10_000,
)
SEED = Option(
    "seed",
    DEFAULT_SEED,
    "seed of random orders and resamples: the same numbers on every run (fresh: fresh entropy, "
    "other numbers each time)",
    label="Seed",
    kind=int,
    low=0,
    high=2**53 - 1,
    optional=True,
    none_text="fresh",
)


#: The default measures of every command, page and collection that names none.
DEFAULT_MEASURES = ("RR@10", "RR", "Hits@10", "AP", "nDCG@10", "nDCG", "ERR@20")


@dataclass(frozen=True)
class EvalSettings(Settings):
    """The conventions of an evaluation. ``rel``, ``gain`` and ``gmax`` are the defaults of the
    measures that do not set them (``RR`` under ``rel=2`` is ``RR(rel=2)``)."""

    ties: TiePolicy = TIES.default
    missing: str = MISSING.default
    rel: int = REL.default
    gain: str = GAIN.default
    gmax: int = GMAX.default
    aggregate: str = AGGREGATE.default
    group_by: str | None = GROUP_BY.default
    trials: int = TRIALS.default
    seed: int | None = SEED.default
    unjudged: str = UNJUDGED.default
    depth: int | None = DEPTH.default
    ignore_identical_ids: bool = IGNORE_IDENTICAL_IDS.default

    OPTIONS: ClassVar[dict[str, Option]] = {
        o.name: o
        for o in (
            TIES,
            MISSING,
            REL,
            GAIN,
            GMAX,
            AGGREGATE,
            GROUP_BY,
            TRIALS,
            SEED,
            UNJUDGED,
            DEPTH,
            IGNORE_IDENTICAL_IDS,
        )
    }

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.aggregate == "macro" and self.group_by is None:
            raise OptionError("aggregate=macro needs a group column (group_by)")

    @property
    def measure_defaults(self) -> dict[str, Any]:
        return {"rel": self.rel, "gain": self.gain, "gmax": self.gmax}

    @property
    def cut(self) -> RunCut:
        """The retrieved documents that count (:class:`RunCut`)."""
        return RunCut(self.depth, self.ignore_identical_ids)

    @property
    def fill_grade(self) -> int | None:
        """The grade unjudged documents are judged at (``unjudged="relevant[:G]"``), or None."""
        if self.unjudged == "nonrelevant":
            return None
        _, _, grade = self.unjudged.partition(":")
        return int(grade) if grade else self.rel

    def unlike_trec_eval(self) -> list[str]:
        """The lines of :meth:`conventions` that are not trec_eval's defaults (none: every
        number is as trec_eval computes it)."""
        defaults = set(EvalSettings().conventions())
        return [line for line in self.conventions() if line not in defaults]

    def conventions(self) -> list[str]:
        """The conventions in force, one line each, as every output shows them."""
        lines = [_describe_ties(self.ties, self), MISSING.meanings[self.missing]]
        if self.fill_grade is None:
            lines.append(
                f"relevant: grade >= {self.rel} (binary measures); unjudged documents are "
                "not relevant"
            )
        else:
            lines.append(
                f"relevant: grade >= {self.rel} (binary measures); unjudged documents of "
                "each run's top K "
                f"judged at grade {self.fill_grade}"
            )
        lines.append(
            "nDCG gain: "
            + (
                "grade (linear, trec_eval)"
                if self.gain == "linear"
                else "2^grade - 1 (exp, gdeval)"
            )
        )
        lines.append(f"ERR: R = (2^g - 1) / 2^{self.gmax} (gmax = {self.gmax})")
        lines.extend(self.cut.describe())
        if self.group_by is not None:
            lines.append(f"queries grouped by {self.group_by}")
        aggregate = AGGREGATE.meanings[self.aggregate]
        lines.append(
            aggregate.replace("group_by", str(self.group_by))
            if self.aggregate == "macro"
            else aggregate
        )
        return lines
