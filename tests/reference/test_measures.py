"""Measure names (parse / print) and hand-computed values."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import rankviz as rv
from rankviz.evaluation.evaluate import as_measures
from rankviz.measures import FAMILIES, expand, make


@given(
    family=st.sampled_from(sorted(FAMILIES)),
    cutoff=st.one_of(st.none(), st.integers(1, 1000)),
    rel=st.integers(1, 4),
    gain=st.sampled_from(["linear", "exp"]),
    gmax=st.integers(1, 6),
    judged_only=st.booleans(),
    p=st.sampled_from([0.5, 0.8, 0.95]),
    residual=st.booleans(),
    recall=st.floats(0, 1),
    weight=st.floats(-1e6, 1e6),
    docs=st.integers(0, 10**9),
)
def test_parse_of_str_round_trips(
    family, cutoff, rel, gain, gmax, judged_only, p, residual, recall, weight, docs
) -> None:
    names = {p.name for p in FAMILIES[family].params}
    given = {
        "rel": rel,
        "gain": gain,
        "gmax": gmax,
        "judged_only": judged_only,
        "p": p,
        "residual": residual,
        "recall": recall,
        "rel_ret": weight,
        "nonrel_nonret": -weight,
        "docs": docs,
    }
    params = {k: v for k, v in given.items() if k in names}
    if FAMILIES[family].cutoff_required and cutoff is None:
        cutoff = 10
    if not FAMILIES[family].cutoff_allowed:
        cutoff = None
    elif cutoff is not None:  # ndeval's measures go to rank 20
        cutoff = min(cutoff, FAMILIES[family].max_cutoff)
    measure = make(family, cutoff, **params)
    assert rv.parse(str(measure)) == measure


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("MRR", "RR"),
        ("MRR@10", "RR@10"),
        ("RR(rel=1)@10", "RR@10"),
        ("RR(rel=2)@10", "RR(rel=2)@10"),
        ("MAP", "AP"),
        ("NDCG@10", "nDCG@10"),
        ("ndcg(gain=exp)@5", "nDCG(gain=exp)@5"),
        ("Success@5", "Hits@5"),
        ("ERR(gmax=4)@20", "ERR@20"),
        ("ERR(gmax=3)@20", "ERR(gmax=3)@20"),
        (" P @ 10 ", "P@10"),
    ],
)
def test_aliases_and_defaults_print_canonically(text, canonical) -> None:
    assert str(rv.parse(text)) == canonical


@pytest.mark.parametrize(
    "text",
    [
        "P.10",
        "P_10",
        "P.5,10",
        "ndcg_cut.10",
        "ndcg_cut_10",
        "ndcg_cut.5,10,20",
        "map",
        "map_cut.100",
        "recip_rank",
        "ndcg",
        "recall.1000",
        "recall_1000",
        "success.1,5,10",
        "success_10",
        "Rprec",
        "bpref",
        "num_ret",
        "num_rel",
        "num_rel_ret",
        "set_P",
        "set_recall",
        "set_map",
        "set_F",
    ],
)
def test_trec_evals_spellings_are_the_measures_ir_measures_reads_in_them(text) -> None:
    """Each spelling as trec_eval's -m takes it (and its output prints it) is the measures
    ir_measures' ``parse_trec_measure`` reads in it, one per cutoff."""
    import ir_measures

    wanted = [rv.parse(str(m)) for m in ir_measures.parse_trec_measure(text)]
    assert expand(text) == wanted
    assert as_measures([text, "AP"]) == list(dict.fromkeys([*wanted, rv.parse("AP")]))
    if len(wanted) == 1:
        assert rv.parse(text) == wanted[0]
    else:
        with pytest.raises(rv.MeasureError, match=f"is {len(wanted)} measures"):
            rv.parse(text)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("NOPE", "unknown measure"),
        ("Bpref@10", "takes no cutoff"),
        ("RBP(p=1.5)", "p=1.5: must be from 0.01 to 0.99"),
        ("AP(judged_only=maybe)", "expected True or False"),
        ("P(relative=True)", "needs a cutoff"),
        ("P", "'P' is 9 measures"),  # trec_eval's bare P: where a list is taken, P@5 .. P@1000
        ("RR@0", "at least 1"),
        ("RR@x", "whole number"),
        ("RR(foo=1)", "no parameter 'foo'"),
        ("nDCG(gain=square)", "choose one of"),
        ("RR(rel=0)", "must be from 1"),
        ("RR(rel)", "name=value"),
        ("RR)(", "cannot read"),
    ],
)
def test_bad_measure_names_say_why(text, message) -> None:
    with pytest.raises(rv.MeasureError, match=message):
        rv.parse(text)


def test_defaults_fill_unset_parameters_only() -> None:
    assert str(rv.parse("RR@10", defaults={"rel": 2})) == "RR(rel=2)@10"
    assert str(rv.parse("RR(rel=3)@10", defaults={"rel": 2})) == "RR(rel=3)@10"
    assert str(rv.parse("nDCG@10", defaults={"rel": 2})) == "nDCG@10"


def _one_query(
    tmp_path: Path, grades_by_rank: list[int], extra_judged: dict[str, int] | None = None
):
    run = "".join(f"q Q0 d{i} {i} {100 - i} t\n" for i in range(1, len(grades_by_rank) + 1))
    qrels = "".join(
        f"q 0 d{i} {g}\n" for i, g in enumerate(grades_by_rank, start=1) if g is not None
    )
    qrels += "".join(f"q 0 {d} {g}\n" for d, g in (extra_judged or {}).items())
    (tmp_path / "run").write_text(run)
    (tmp_path / "qrels").write_text(qrels)
    return rv.read_qrels(tmp_path / "qrels"), rv.read_run(tmp_path / "run")


def value(qrels, run, measure: str) -> float:
    return float(rv.evaluate(qrels, run, [measure]).to_frame().value.iloc[0])


def test_err_worked_example(tmp_path) -> None:
    """Grades 3, 4, 1 at ranks 1-3, gmax 4: 7/16 + 9/16*15/16/2 + 9/16*1/16*1/16/3 =
    0.701904296875."""
    qrels, run = _one_query(tmp_path, [3, 4, 1])
    assert value(qrels, run, "ERR@3") == pytest.approx(0.701904296875, abs=1e-15)
    assert round(value(qrels, run, "ERR@3"), 4) == 0.7019
    assert value(qrels, run, "ERR@1") == pytest.approx(7 / 16, abs=1e-15)
    qrels, run = _one_query(tmp_path, [3, 1])
    assert value(qrels, run, "ERR(gmax=3)@2") == pytest.approx(7 / 8 + 1 / 8 * 1 / 8 / 2, abs=1e-15)


def test_err_refuses_grades_above_gmax(tmp_path) -> None:
    qrels, run = _one_query(tmp_path, [5])
    with pytest.raises(rv.MeasureError, match="gmax"):
        value(qrels, run, "ERR@3")


@pytest.mark.parametrize("ties", ["trec_eval", "expected", "optimistic"])
@pytest.mark.parametrize("measure", ["ERR@1", "ERR@2", "ERR@3", "ERR"])
def test_a_grade_above_gmax_is_refused_from_the_qrels_whatever_the_cutoff(
    tmp_path, measure, ties
) -> None:
    """ERR@2 used to compute and ERR@3 refuse on the same data: the grade 5 sat at rank 3 (or
    unretrieved)."""
    qrels, run = _one_query(tmp_path, [1, 2, 5, 0], extra_judged={"unretrieved": 5})
    with pytest.raises(rv.MeasureError, match=r"grade 5 > gmax"):
        float(rv.evaluate(qrels, run, [measure], ties=ties).to_frame().value.iloc[0])


def test_hand_computed_binary_measures(tmp_path) -> None:
    # ranks: 1 non-relevant, 2 relevant (grade 1), 3 unjudged, 4 relevant (grade 2); one more
    # relevant unretrieved
    qrels, run = _one_query(tmp_path, [0, 1, None, 2], extra_judged={"missing": 3})
    assert value(qrels, run, "RR") == pytest.approx(1 / 2)
    assert value(qrels, run, "RR(rel=2)") == pytest.approx(1 / 4)
    assert value(qrels, run, "RR@1") == 0.0
    assert value(qrels, run, "Hits@2") == 1.0 and value(qrels, run, "Hits@1") == 0.0
    assert value(qrels, run, "AP") == pytest.approx((1 / 2 + 2 / 4) / 3)
    assert value(qrels, run, "AP@2") == pytest.approx((1 / 2) / 3)
    assert value(qrels, run, "P@10") == pytest.approx(2 / 10)
    assert value(qrels, run, "R@2") == pytest.approx(1 / 3)


def test_hand_computed_ndcg(tmp_path) -> None:
    import math

    qrels, run = _one_query(tmp_path, [0, 1, -1, 2], extra_judged={"missing": 3})
    dcg = 1 / math.log2(3) + 2 / math.log2(5)
    ideal = 3 + 2 / math.log2(3) + 1 / math.log2(4)
    assert value(qrels, run, "nDCG") == pytest.approx(dcg / ideal, abs=1e-15)
    exp_ideal_at_2 = 7 + 3 / math.log2(3)
    assert value(qrels, run, "nDCG(gain=exp)@2") == pytest.approx(
        (1 / math.log2(3)) / exp_ideal_at_2, abs=1e-15
    )


def test_hand_computed_ncg(tmp_path) -> None:
    """NCG is nDCG without its discount: the gain found in the top K over the ideal top K's."""
    qrels, run = _one_query(tmp_path, [0, 1, -1, 2], extra_judged={"missing": 3})
    # the ideal: 3, 2, 1 (and the judged 0s)
    assert value(qrels, run, "NCG@2") == pytest.approx(1 / (3 + 2), abs=1e-15)
    assert value(qrels, run, "NCG@4") == pytest.approx((1 + 2) / (3 + 2 + 1), abs=1e-15)
    assert value(qrels, run, "NCG") == pytest.approx(3 / 6, abs=1e-15)
    assert value(qrels, run, "NCG(gain=exp)@2") == pytest.approx(1 / (7 + 3), abs=1e-15)


def test_missing_query_policies(tmp_path) -> None:
    (tmp_path / "qrels").write_text("a 0 d1 1\nb 0 d1 1\n")
    (tmp_path / "run").write_text("a Q0 d1 1 1.0 t\nc Q0 d1 1 1.0 t\n")
    qrels, run = rv.read_qrels(tmp_path / "qrels"), rv.read_run(tmp_path / "run")
    evaluation = rv.evaluate(qrels, run, ["RR"])
    zero = evaluation.to_frame(per_query=True)
    assert dict(zip(zero.qid, zero.value)) == {"a": 1.0, "b": 0.0, "all": 0.5}
    skip = rv.evaluate(qrels, run, ["RR"], missing="skip").to_frame(per_query=True)
    assert dict(zip(skip.qid, skip.value)) == {"a": 1.0, "all": 1.0}
    assert evaluation.ignored == {"run": ("c",)}


def test_tie_policies_order_equal_scores(tmp_path) -> None:
    (tmp_path / "qrels").write_text("q 0 b 1\n")
    (tmp_path / "run").write_text("q Q0 a 1 1.0 t\nq Q0 b 2 1.0 t\nq Q0 c 3 1.0 t\n")
    qrels, run = rv.read_qrels(tmp_path / "qrels"), rv.read_run(tmp_path / "run")
    rr = {t.name: value_t(qrels, run, t) for t in rv.TIE_POLICIES if not t.sampled}
    # trec_eval: docid descending c, b, a -> rank 2; run: file order a, b, c -> rank 2
    expected = (1 + 1 / 2 + 1 / 3) / 3
    assert rr == {
        "trec_eval": 0.5,
        "run": 0.5,
        "optimistic": 1.0,
        "pessimistic": 1 / 3,
        "expected": pytest.approx(expected),
    }
    table = rv.rank(run, qrels)
    assert list(table.docids()) == ["c", "b", "a"] and len(set(table.tie_group)) == 1


def value_t(qrels, run, ties: str) -> float:
    return float(rv.evaluate(qrels, run, ["RR"], ties=ties).to_frame().value.iloc[0])


def test_run_policy_follows_rank_column(tmp_path) -> None:
    (tmp_path / "qrels").write_text("q 0 a 1\n")
    (tmp_path / "run").write_text("q Q0 a 3 3.0 t\nq Q0 b 1 2.0 t\nq Q0 c 2 1.0 t\n")
    qrels, run = rv.read_qrels(tmp_path / "qrels"), rv.read_run(tmp_path / "run")
    assert value_t(qrels, run, "trec_eval") == 1.0
    assert value_t(qrels, run, "run") == pytest.approx(1 / 3)


def test_unknown_options_are_errors(tmp_path) -> None:
    qrels, run = _one_query(tmp_path, [1])
    with pytest.raises(rv.OptionError):
        rv.evaluate(qrels, run, ["RR"], ties="random-ish").to_frame()
    with pytest.raises(rv.OptionError):
        rv.evaluate(qrels, run, ["RR"], missing="drop").to_frame()


@pytest.mark.parametrize(
    "text",
    [
        "NumRet",
        "NumRet@100",
        "NumRel",
        "NumRel(rel=2)",
        "NumRelRet",
        "NumRelRet(rel=2)@10",
        "SetP(relative=True)",
        "SetR(rel=2)",
        "SetF(beta=0.5)",
        "SetAP",
    ],
)
def test_the_counts_and_sets_round_trip_through_ir_measures(text) -> None:
    """ir_measures writes NumRelRet as NumRet(rel=N); either spelling reads as the same measure,
    and the set measures print as ir_measures names them."""
    import ir_measures

    measure = rv.parse(text)
    assert rv.parse(str(ir_measures.parse_measure(str(measure)))) == measure
