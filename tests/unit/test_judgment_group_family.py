"""The judgment-group families by hand: each group's value is the catalogue's measure on the
ranking re-graded with that group's judgments, averaged over the groups that judge the query
(trec_eval's m_*_avgjg.c), under every tie policy."""

from __future__ import annotations

import pytest

import rankviz as rv
from rankviz.measures import make
from rankviz.measures.judgment_groups import group_values

RUN = rv.run_from_dict({"q1": {"a": 4.0, "b": 3.0, "c": 2.0, "d": 1.0}})


def test_rprec_mult_is_precision_at_multiples_of_r_rounded_up_from_nine_tenths() -> None:
    """Ranked a b c d, a and c relevant (R = 2): 0.5 R + 0.9 = 1.9 -> 1 document; 1.5 R -> 3;
    3 R -> 6, past the list: 2 / 6."""
    groups = {"u1": rv.qrels_from_dict({"q1": {"a": 1, "b": 0, "c": 1, "d": 0}})}
    measures = [make("Rprec_mult_avgjg", mult=m) for m in (0.5, 1.5, 3.0)]
    found, missed = group_values(groups, RUN, measures)
    assert [found[str(m)]["q1"] for m in measures] == [1.0, 2 / 3, 2 / 6]
    assert missed == []


def test_a_query_takes_the_mean_of_the_groups_that_judge_it() -> None:
    """Group u1 judges a relevant, u2 judges c relevant and q2 (which the run misses): q1's AP is
    (1 + 1/3) / 2, P@2 (1/2 + 0) / 2; q2 scores 0 and is said missed."""
    groups = {
        "u1": rv.qrels_from_dict({"q1": {"a": 1, "b": 0}}),
        "u2": rv.qrels_from_dict({"q1": {"c": 2, "d": 0}, "q2": {"x": 1}}),
    }
    measures = [make("map_avgjg"), make("P_avgjg", 2)]
    found, missed = group_values(groups, RUN, measures)
    assert found["map_avgjg"] == {"q1": pytest.approx((1 + 1 / 3) / 2, abs=1e-15), "q2": 0.0}
    assert found["P_avgjg_2"]["q1"] == (0.5 + 0.0) / 2
    assert missed == ["q2"]
    only_two = group_values(groups, RUN, [make("map_avgjg", rel=2)])[0]
    assert only_two["map_avgjg(rel=2)"]["q1"] == pytest.approx(1 / 3 / 2, abs=1e-15)


@pytest.mark.parametrize(
    ("spelled", "printed"),
    [("P_avgjg.10", "P_avgjg_10"), ("Rprec_mult_avgjg_0.5", "Rprec_mult_avgjg_0.50")],
)
def test_trec_evals_spellings_print_as_it_prints_them(spelled: str, printed: str) -> None:
    assert str(rv.parse(spelled)) == printed
    assert str(rv.parse(printed)) == printed


def test_the_study_tie_policy_orders_each_groups_ranking() -> None:
    """a and b tie; u1 judges b relevant: trec_eval's order (docid descending) puts b first (AP 1),
    the pessimistic order a first (AP 1/2): the family reads the table's order, not its own."""
    run = rv.run_from_dict({"q1": {"a": 2.0, "b": 2.0, "c": 1.0}})
    qrels = rv.qrels_from_dict({"q1": {"a": 0, "b": 1, "c": 0}})
    groups = {"u1": rv.qrels_from_dict({"q1": {"a": 0, "b": 1}})}
    beside = qrels.with_beside(groups=groups)
    values = {
        ties: rv.evaluate(beside, run, ["map_avgjg"], ties=ties).mean("map_avgjg", run.name)
        for ties in ("trec_eval", "pessimistic", "optimistic")
    }
    assert values == {"trec_eval": 1.0, "pessimistic": 0.5, "optimistic": 1.0}


def test_a_family_without_its_judgments_says_what_it_needs() -> None:
    qrels = rv.qrels_from_dict({"q1": {"a": 1}})
    with pytest.raises(rv.MeasureError, match="needs judgment groups"):
        rv.evaluate(qrels, RUN, ["map_avgjg"])
