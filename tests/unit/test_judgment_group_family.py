"""The judgment-group family by hand: each group's value is the catalogue's measure on that
group's ranking, averaged over the groups that judge the query (trec_eval's m_*_avgjg.c)."""

from __future__ import annotations

import pytest

import rankviz as rv
from rankviz.measures.judgment_groups import GroupMeasure, group_measure, group_values

RUN = rv.run_from_dict({"q1": {"a": 4.0, "b": 3.0, "c": 2.0, "d": 1.0}})


def test_rprec_mult_is_precision_at_multiples_of_r_rounded_up_from_nine_tenths() -> None:
    """Ranked a b c d, a and c relevant (R = 2): 0.5 R + 0.9 = 1.9 -> 1 document; 1.5 R -> 3;
    3 R -> 6, past the list: 2 / 6."""
    groups = {"u1": rv.qrels_from_dict({"q1": {"a": 1, "b": 0, "c": 1, "d": 0}})}
    measures = [GroupMeasure("Rprec_mult_avgjg", m) for m in (0.5, 1.5, 3.0)]
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
    measures = [GroupMeasure("map_avgjg"), GroupMeasure("P_avgjg", 2)]
    found, missed = group_values(groups, RUN, measures)
    assert found["map_avgjg"] == {"q1": pytest.approx((1 + 1 / 3) / 2, abs=1e-15), "q2": 0.0}
    assert found["P_avgjg_2"]["q1"] == (0.5 + 0.0) / 2
    assert missed == ["q2"]
    only_two = group_values(groups, RUN, measures, rel=2)[0]
    assert only_two["map_avgjg"]["q1"] == pytest.approx(1 / 3 / 2, abs=1e-15)


@pytest.mark.parametrize(
    ("spelled", "printed"),
    [("P_avgjg.10", "P_avgjg_10"), ("Rprec_mult_avgjg_0.5", "Rprec_mult_avgjg_0.50")],
)
def test_trec_evals_spellings_print_as_it_prints_them(spelled: str, printed: str) -> None:
    assert str(group_measure(spelled)) == printed
