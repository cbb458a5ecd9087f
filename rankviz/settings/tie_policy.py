"""Tie policies as values: what each one does with documents of equal scores, decided once here.

Every other module asks a policy what it needs (:func:`policy`) instead of comparing its name:
which order its ranking table is built in, whether the measures take their closed forms, whether
orders are drawn, whether its order depends on the grades (a new judgment then orders the table
again), and the sentence the conventions footer prints. Adding a policy is adding a value here.
"""

from __future__ import annotations

from dataclasses import dataclass

from rankviz.errors import OptionError


@dataclass(frozen=True)
class TiePolicy:
    """One way to order documents that share a score.

    ``table_order``: the order its ranking table is built in (``expected`` and ``random`` start
    from trec_eval's, which keeps each tie group together). ``by_grade``: tied documents sorted by
    :func:`rankviz.ranking.sorting.best_first_key`, descending (``"best"``) or ascending
    (``"worst"``). ``closed_form``: every measure takes its exact expectation over the orders of
    each group. ``sampled``: orders are drawn (trials and a seed). ``by_rank_column``: the table
    follows the run file's rank column (then file order) instead of the scores, so a tie group need
    not be contiguous in it."""

    name: str
    meaning: str
    table_order: str
    marker: str  # its symbol in the charts that mark every policy (plotly's marker symbols)
    by_grade: str | None = None
    closed_form: bool = False
    sampled: bool = False
    by_rank_column: bool = False

    def __str__(self) -> str:
        return self.name

    @property
    def deterministic(self) -> bool:
        return not self.sampled

    @property
    def groups_together(self) -> bool:
        """Whether each tie group is contiguous in the table (what drawing orders inside it
        needs)."""
        return not self.by_rank_column

    @property
    def in_trec_eval_order(self) -> bool:
        """Whether its table's rows are in trec_eval's order (score, then docid descending)."""
        return self.table_order == "trec_eval" and not self.sampled

    @property
    def regradable(self) -> bool:
        """Whether new grades keep the table's order (only the grades are looked up again)."""
        return self.by_grade is None and not self.sampled

    @property
    def ranked_as(self) -> TiePolicy:
        """The policy of the ranking table an evaluation builds: random orders are drawn per trial
        from trec_eval's table, every other policy has a table of its own."""
        return POLICIES[self.table_order] if self.sampled else self

    @property
    def table_policy(self) -> TiePolicy:
        """The policy its ranking table is built under (itself, or trec_eval's for ``expected`` and
        ``random``, which are measured on trec_eval's table)."""
        return POLICIES[self.table_order]


POLICIES: dict[str, TiePolicy] = {
    p.name: p
    for p in (
        TiePolicy(
            "trec_eval",
            "score descending, then docid descending (trec_eval)",
            "trec_eval",
            "circle",
        ),
        TiePolicy(
            "run",
            "the run file's rank column, then file order",
            "run",
            "square",
            by_rank_column=True,
        ),
        TiePolicy(
            "optimistic",
            "relevant documents first within equal scores (optimistic)",
            "optimistic",
            "line-ns-open",
            by_grade="best",
        ),
        TiePolicy(
            "pessimistic",
            "relevant documents last within equal scores (pessimistic)",
            "pessimistic",
            "line-ns-open",
            by_grade="worst",
        ),
        TiePolicy(
            "expected",
            "exact mean over all orders within equal scores (expected)",
            "trec_eval",
            "diamond",
            closed_form=True,
        ),
        TiePolicy(
            "random",
            "mean of random orders within equal scores (see trials, seed)",
            "trec_eval",
            "x",
            sampled=True,
        ),
    )
}

#: trec_eval's order, the default of every evaluation.
TREC_EVAL = POLICIES["trec_eval"]
#: The closed forms (the chance level is measured with them) and the drawn orders.
EXPECTED, RANDOM = POLICIES["expected"], POLICIES["random"]
#: The deterministic policies of the ties report, from the worst case to the best.
REPORT_ORDER = ("pessimistic", "trec_eval", "run", "expected", "optimistic")
#: trec_eval's order and the two bounds every other order lies between.
BOUNDS = ("trec_eval", "pessimistic", "optimistic")


def policy(name: str | TiePolicy) -> TiePolicy:
    """The policy of a name (``ties="expected"``), or an OptionError listing the names."""
    if isinstance(name, TiePolicy):
        return name
    found = POLICIES.get(name)
    if found is None:
        raise OptionError(f"ties={name!r}: choose one of {', '.join(POLICIES)}")
    return found
