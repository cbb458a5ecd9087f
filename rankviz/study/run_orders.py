"""The runs' orders: a run's ranking table under a tie policy and a cut, built by the study's
orderer (:data:`rankviz.ranking.regrading.Orderer`) from trec_eval's order or the run's rank column.
:class:`RunOrders` is mixed into :class:`~rankviz.study.run_study.Study`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rankviz.ranking.ordering import graded_within_ties, retagged
from rankviz.ranking.ranking_table import RankingTable
from rankviz.settings.eval_settings import RunCut
from rankviz.settings.tie_policy import TREC_EVAL, TiePolicy, policy
from rankviz.study.capability import needs_rankings
from rankviz.study.reports import Asked

Ties = str | TiePolicy  # a policy, or its name (the API's convenience; the settings hold the value)


class RunOrders:
    """The ranking tables of a study's runs (mixed into :class:`~rankviz.study.run_study.Study`)."""

    @needs_rankings
    def table(
        self: Asked, name: str, ties: Ties | None = None, cut: RunCut | None = None
    ) -> RankingTable:
        """A run's ranking table under a tie policy and a cut (the study's by default). Random
        orders are drawn from trec_eval's table when measured; ``expected`` measures trec_eval's
        arrays with the closed forms; optimistic and pessimistic reorder its tied rows by grade:
        only trec_eval's order and the run's rank column reach the orderer."""
        rule = policy(ties or self.settings.ties).ranked_as
        cut = self.settings.cut if cut is None else cut
        if rule.table_policy != rule:
            return retagged(self.table(name, rule.table_policy, cut), rule)
        if rule.by_grade:
            return graded_within_ties(self.table(name, TREC_EVAL, cut), rule)
        return self.orderer(name, lambda: self.runs[name], self.qrels, rule, cut)

    @needs_rankings
    def tables(
        self: Asked,
        names: Sequence[str] | None = None,
        ties: Ties | None = None,
        cut: RunCut | None = None,
    ) -> dict[str, RankingTable]:
        return {name: self.table(name, ties, cut) for name in (names or self.run_names)}

    def _one_at_a_time(
        self: Asked,
        names: Sequence[str] | None = None,
        ties: Ties | None = None,
        cut: RunCut | None = None,
    ) -> Iterable[tuple[str, RankingTable]]:
        """(name, table) pairs built as they are consumed: one table alive at a time, unless the
        orderer keeps them."""
        return ((name, self.table(name, ties, cut)) for name in (names or self.run_names))
