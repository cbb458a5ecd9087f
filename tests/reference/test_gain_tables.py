"""A gain table (``gains={1:3,2:9}``, trec_eval's ``ndcg.1=3,2=9``) on the gain measures: against
ir_measures, whose nDCG reads the same parameter (its pytrec_eval provider gives each judged grade
the table's gain), on generated runs with ties; by hand; and in every place a measure is named.
trec_eval's own values for G, ndcg_rel, Rndcg, dcg and ndcg with tables, gains below 0 and under 1
among them, are in tests/reference/test_trec_eval_families.py."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from conftest import run_cli
from generated import collections, write_files
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankviz as rv
from rankviz.errors import MeasureError
from rankviz.measures import split_names

_IR_MEASURES_CHILD = """
import json, sys, ir_measures
qrels, run, names = json.load(sys.stdin)
measures = [ir_measures.parse_measure(n) for n in names]
values = {}
for m in ir_measures.pytrec_eval.iter_calc(measures, qrels, run):
    values.setdefault(m.query_id, {})[str(m.measure)] = m.value
json.dump(values, sys.stdout)
"""


def _ir_measures(qrels: dict, run: dict, names: list[str]) -> dict:
    """ir_measures (pytrec_eval), in a process of its own: pytrec_eval keeps state between calls."""
    done = subprocess.run(
        [sys.executable, "-c", _IR_MEASURES_CHILD],
        input=json.dumps([qrels, run, names]),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return json.loads(done.stdout)


TABLES = st.dictionaries(st.integers(0, 4), st.integers(0, 30), min_size=1, max_size=5)


@pytest.mark.slow
@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=collections(), table=TABLES, cutoff=st.integers(1, 12))
def test_ndcg_with_a_gain_table_is_ir_measures(tmp_path: Path, data, table, cutoff) -> None:
    qrels, run = data
    gains = "{" + ",".join(f"{g}:{v}" for g, v in table.items()) + "}"
    names = [f"nDCG(gains={gains})", f"nDCG(gains={gains})@{cutoff}"]
    qrels_path, run_path = write_files(tmp_path, qrels, run)
    measures = [rv.parse(n) for n in names]
    frame = rv.evaluate(rv.read_qrels(qrels_path), rv.read_run(run_path), measures).to_frame(
        per_query=True
    )
    ours = {(r.qid, r.measure): r.value for r in frame.itertuples()}
    reference = _ir_measures(qrels, run, [str(m) for m in measures])
    for qid in qrels:
        for measure in measures:
            expected = _named(reference.get(qid, {}), measure)
            assert ours[(qid, str(measure))] == pytest.approx(expected, abs=1e-12), (qid, measure)


def _named(values: dict, measure: rv.Measure) -> float:
    """ir_measures' value of ``measure`` under the name it prints (a table without the grades it
    leaves as they are); 0 for a query the run misses."""
    import ir_measures

    printed = str(ir_measures.parse_measure(str(measure)))
    return values.get(printed, 0.0)


def test_a_gain_table_by_hand() -> None:
    """One query, judged a:2, b:1, c:0, d:3; the run ranks c, a, e (unjudged), b. With
    gains={0:1,2:-1,3:5}: c gains 1 (judged 0), a costs 1, e gains 0, b gains 1 (not listed: its
    grade). DCG = 1/log2(2) - 1/log2(3) + 1/log2(5); the ideal: d 5, c 1, b 1 (a's -1 left out)."""
    qrels = rv.qrels_from_frame(
        pd.DataFrame({"qid": ["q"] * 4, "docid": list("abcd"), "grade": [2, 1, 0, 3]})
    )
    frame = pd.DataFrame({"qid": ["q"] * 4, "docid": list("caeb"), "score": [4.0, 3.0, 2.0, 1.0]})
    run = rv.run_from_frame(frame, name="r")
    dcg = 1 - 1 / math.log2(3) + 1 / math.log2(5)
    ideal = 5 + 1 / math.log2(3) + 1 / math.log2(4)
    names = ["DCG(gains={0:1,2:-1,3:5})", "nDCG(gains={0:1,2:-1,3:5})", "NCG(gains={0:1,2:-1,3:5})"]
    evaluation = rv.evaluate(qrels, run, names)
    assert evaluation.mean(names[0], "r") == pytest.approx(dcg, rel=1e-15)
    assert evaluation.mean(names[1], "r") == pytest.approx(dcg / ideal, rel=1e-15)
    assert evaluation.mean(names[2], "r") == pytest.approx((1 - 1 + 1) / 7, rel=1e-15)


def test_the_table_is_written_one_way_and_read_every_way() -> None:
    assert str(rv.parse("ndcg.1=3,2=9,4=4.5")) == "nDCG(gains={1:3,2:9,4:4.5})"
    assert str(rv.parse("nDCG(gains={2:9.0, 1:3})@10")) == "nDCG(gains={1:3,2:9})@10"
    assert str(rv.parse("ndcg_rel_1=3,2=9")) == "ndcg_rel(gains={1:3,2:9})"
    assert str(rv.parse("G.0=0.5,3=1")) == "G(gains={0:0.5,3:1})"
    assert str(rv.parse("Rndcg.2=-1")) == "Rndcg(gains={2:-1})"
    measure = rv.parse("nDCG(gain=exp,gains={1:3})@5")
    assert rv.parse(str(measure)) == measure
    # a link splits its list at commas: the table and a measure's parameters are joined again
    written = "nDCG(gains={1:3,2:9})@10,RBP(p=0.9,graded=True),ndcg.1=3,2=9,P.5,10,AP"
    assert split_names(written.split(",")) == [
        "nDCG(gains={1:3,2:9})@10",
        "RBP(p=0.9,graded=True)",
        "nDCG(gains={1:3,2:9})",
        "P@5",
        "P@10",
        "AP",
    ]


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("nDCG(gains={1:x})", "'1:x' should be grade:gain"),
        ("nDCG(gains={-1:3})", "a whole grade >= 0"),
        ("nDCG(gains={1:3,1:4})", "grade 1 is given twice"),
        ("nDCG(gains={1:inf})", "a finite gain"),
        ("AP(gains={1:2})", "AP has no parameter 'gains'"),
    ],
)
def test_a_bad_table_is_refused_saying_why(text: str, says: str) -> None:
    with pytest.raises(MeasureError) as raised:
        rv.parse(text)
    assert says in str(raised.value)


@pytest.mark.slow
def test_the_command_line_takes_trec_evals_spelling_and_prints_the_catalogues(tmp_path) -> None:
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("q 0 a 2\nq 0 b 1\n")
    run.write_text("q Q0 b 1 2.0 r\nq Q0 a 2 1.0 r\n")
    done = run_cli("evaluate", str(qrels), str(run), "-m", "ndcg.1=3,2=9", "--format", "json")
    assert done.returncode == 0, done.stderr
    (row,) = json.loads(done.stdout)
    assert row["measure"] == "nDCG(gains={1:3,2:9})"
    # b (grade 1, gain 3) then a (grade 2, gain 9); the ideal: a, then b
    ideal = 9 + 3 / math.log2(3)
    assert row["value"] == pytest.approx((3 + 9 / math.log2(3)) / ideal, rel=1e-15)
