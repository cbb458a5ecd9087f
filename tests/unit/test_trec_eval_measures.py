"""trec_eval's own measures (rankviz.trec_eval, and the catalogue's infAP and binG, which
``rankviz trec-eval`` prints) on lists small enough to compute by hand; each is also compared with
trec_eval 10 itself, to 17 digits, in tests/reference/test_trec_eval_cli.py."""

from __future__ import annotations

import math

import pytest

import rankviz as rv
from rankviz.trec_eval.gains import GAINED, rbp_resids
from rankviz.trec_eval.lists import NONPOOL, UNJUDGED, QueryList, atof
from rankviz.trec_eval.measures import relstring, unjudged, utility


def _one_query(grades: dict[str, int], ranked: list[str], measure: str) -> float:
    """The measure of one query's ranking (``ranked`` best first) under ``grades``."""
    qrels = rv.qrels_from_dict({"q": grades})
    run = rv.run_from_dict({"q": {d: float(len(ranked) - i) for i, d in enumerate(ranked)}})
    return rv.evaluate(qrels, run, [measure]).mean(measure, run.name)


def test_infap_skips_the_unpooled_and_counts_the_pooled_unjudged_above_a_relevant_document():
    # ranks: relevant, unpooled, pooled-unjudged, non-relevant, relevant; R = 2
    grades = {"r1": 1, "u": -1, "n": 0, "r2": 1}
    # 1 at rank 1; at rank 5: 1/5 + 4/5 * (3/4) * (1 + e) / (2 + 2e) = 0.2 + 0.3
    value = _one_query(grades, ["r1", "out", "u", "n", "r2"], "infAP")
    assert value == pytest.approx((1.0 + 0.5) / 2, abs=1e-15)


def test_bing_discounts_each_relevant_document_by_the_non_relevant_ones_above_it():
    grades = {"a": 1, "b": 0, "c": 1, "d": 1}  # R = 3, d not retrieved
    value = _one_query(grades, ["a", "b", "c"], "binG")
    assert value == pytest.approx((1 / math.log2(2) + 1 / math.log2(3)) / 3, abs=1e-15)


def test_unj_divides_by_the_cutoff_past_the_list():
    assert unjudged([NONPOOL, 0, UNJUDGED], (1, 2, 5)) == [1.0, 0.5, 2 / 5]


def test_relstring_marks_grades_above_nine_unpooled_and_pooled_unjudged():
    assert relstring([12, 3, NONPOOL, UNJUDGED, 0], 4) == ">3-."


def test_utility_weighs_the_contingency_table():
    ql = QueryList([1, 0, 0], [5, 2], num_rel=2, num_rel_ret=1)
    assert utility(ql, (2.0, -1.0, -0.5, 0.25), 100) == 2 - 2 - 0.5 + 0.25 * (100 + 1 - 3 - 2)


def test_a_gain_table_less_than_one_apart_keeps_its_order_as_trec_evals_sort_does():
    """gain_init.c compares gains by their difference cast to int: 4.5 and 4 are equal to it, so
    the ideal ranking takes them in the order the table gave (4 after 4.5 is walked first).
    trec_eval 10 prints 6.8391838910715581 for dcg.1=4.5,2=4 and ideal_dcg.1=4.5,2=4 here."""
    ql = QueryList([2, 1], [1, 1, 1], num_rel=2, num_rel_ret=2)
    table = [("1", 4.5), ("2", 4.0)]
    run_dcg = 4.0 / math.log2(2) + 4.5 / math.log2(3)
    assert GAINED["dcg"](ql, table) == run_dcg
    assert GAINED["ideal_dcg"](ql, table) == run_dcg  # not 4.5 first
    assert GAINED["ndcg"](ql, table) == 1.0


def test_rbp_residual_is_what_unjudged_ranks_and_the_rest_of_the_list_could_add():
    p = 0.5
    lists = {
        "a": QueryList([1, UNJUDGED, 0], [1, 1], num_rel=1, num_rel_ret=1),
        "b": QueryList([1, 0], [1, 1], 1, 1),  # every document judged: 0
        "c": QueryList([NONPOOL, 1, NONPOOL, 0, NONPOOL], [1, 1], 1, 1),
        "d": QueryList([], [1, 1], 1, 0),
    }
    found = rbp_resids(lists, [("p", p)])
    assert found == {
        "a": p**3 + (1 - p) * p,
        "b": 0.0,
        "c": p**5 + (1 - p) * (1 + p**2 + p**4),
        "d": 0.0,
    }


@pytest.mark.parametrize(
    ("text", "value"), [("0.5x", 0.5), ("x", 0.0), (".25", 0.25), ("-2", -2.0), ("1e2", 100.0)]
)
def test_parameters_read_as_cs_atof_reads_them(text, value):
    assert atof(text) == value
