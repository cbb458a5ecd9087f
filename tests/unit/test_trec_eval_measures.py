"""trec_eval's own measures as the catalogue's families (``rankviz trec-eval`` prints them and
computes nothing), and what the printer reads off the list itself (relstring), on lists small
enough to compute by hand; each is also compared with trec_eval 10 itself, to 17 digits, in
tests/reference/test_trec_eval_cli.py."""

from __future__ import annotations

import math

import pytest

import rankviz as rv
from rankviz.ranking.ordering import rank
from rankviz.trec_eval.names import atof
from rankviz.trec_eval.trec_eval_text import relstrings


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
    grades = {"n": 0, "u": -1}  # ranked: unpooled, judged, pooled-unjudged
    values = [_one_query(grades, ["out", "n", "u"], f"unj_{k}") for k in (1, 2, 5)]
    assert values == [1.0, 0.5, 2 / 5]


def test_relstring_marks_grades_above_nine_unpooled_and_pooled_unjudged():
    qrels = rv.qrels_from_dict({"q": {"a": 12, "b": 3, "u": -1, "z": 0}})
    run = rv.run_from_dict({"q": {"a": 5.0, "b": 4.0, "out": 3.0, "u": 2.0, "z": 1.0}})
    assert relstrings(rank(run, qrels), qrels, 4) == {"q": ">3-."}
    assert relstrings(rank(run, qrels), qrels, 10) == {"q": ">3-.0"}


def test_utility_weighs_the_contingency_table():
    grades = {"r1": 1, "r2": 1, "n": 0}  # retrieved: r1, n, out; R = 2
    measure = "Utility(rel_ret=2,nonrel_ret=-1,rel_nonret=-0.5,nonrel_nonret=0.25,docs=100)"
    value = _one_query(grades, ["r1", "n", "out"], measure)
    assert value == 2 - 2 - 0.5 + 0.25 * (100 + 1 - 3 - 2)


def test_a_gain_table_less_than_one_apart_keeps_its_order_as_trec_evals_sort_does():
    """gain_init.c compares gains by their difference cast to int: 4.5 and 4 are equal to it, so
    the ideal ranking takes them in the table's order (4 after 4.5 is walked first). trec_eval 10
    prints 6.8391838910715581 for dcg.1=4.5,2=4 and ideal_dcg.1=4.5,2=4 here; sorted by gain, the
    ideal ranking puts 4.5 first."""
    grades = {"two": 2, "one": 1, "zero": 0}
    run_dcg = 4.0 / math.log2(2) + 4.5 / math.log2(3)
    assert _one_query(grades, ["two", "one"], "DCG(gains={1:4.5,2:4})") == run_dcg
    walked = _one_query(grades, ["two", "one"], "IdealDCG(gains={1:4.5,2:4},ideal=trec_eval)")
    assert walked == run_dcg == pytest.approx(6.8391838910715581, abs=1e-15)
    assert _one_query(grades, ["two", "one"], "nDCG(gains={1:4.5,2:4},ideal=trec_eval)") == 1.0
    by_gain = _one_query(grades, ["two", "one"], "IdealDCG(gains={1:4.5,2:4})")
    assert by_gain == 4.5 / math.log2(2) + 4.0 / math.log2(3)
    # written 2=4,1=4.5, trec_eval's sort keeps 4.5 above 4: the order written is an order here
    written = _one_query(grades, ["two", "one"], "IdealDCG(gains={1:4.5,2:4},ideal=trec_eval{2,1})")
    assert written == by_gain


def test_a_gain_under_one_below_grade_zero_leaves_trec_evals_ideal_ranking():
    """``ndcg.1=0.5``: grade 1's 0.5 and grade 0's 0 are equal to trec_eval's comparison, the
    table's grade first, so walking down from grade 2 it meets grade 0 and stops: grade 1 is not
    ideal (trec_eval 10 prints ideal_dcg 2.0000 here)."""
    grades = {"two": 2, "one": 1, "zero": 0}
    walked = _one_query(grades, ["one"], "IdealDCG(gains={1:0.5},ideal=trec_eval)")
    assert walked == 2.0
    assert _one_query(grades, ["one"], "IdealDCG(gains={1:0.5})") == 2.0 + 0.5 / math.log2(3)


def test_rbp_residual_is_what_unjudged_ranks_and_the_rest_of_the_list_could_add():
    p = 0.5
    grades = {"r": 1, "n": 0, "u": -1}
    measure = f"rbp_resid(p={p})"
    assert _one_query(grades, ["r", "u", "n"], measure) == p**3 + (1 - p) * p
    assert _one_query(grades, ["r", "n"], measure) == 0.0  # every document judged
    value = _one_query(grades, ["o1", "r", "o2", "n", "o3"], measure)
    assert value == p**5 + (1 - p) * (1 + p**2 + p**4)


@pytest.mark.parametrize(
    ("text", "value"), [("0.5x", 0.5), ("x", 0.0), (".25", 0.25), ("-2", -2.0), ("1e2", 100.0)]
)
def test_parameters_read_as_cs_atof_reads_them(text, value):
    assert atof(text) == value
