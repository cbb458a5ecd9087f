"""rankviz against pytrec_eval and gdeval on generated runs, tie-free and with many equal scores."""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from generated import LAYOUTS, collections, write_files
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankviz as rv
import rankviz.measures

CUTOFF = 5


def _trec_eval_top(docs: dict, k: int) -> dict:
    """The first k documents in trec_eval's order (score, then docid bytes, both descending)."""
    ordered = sorted(docs.items(), key=lambda item: (item[1], item[0].encode()), reverse=True)
    return dict(ordered[:k])


_PYTREC_CHILD = """
import json, sys, pytrec_eval
qrels, run, measures, rel, judged_only = json.load(sys.stdin)
evaluator = pytrec_eval.RelevanceEvaluator(
    qrels, set(measures), relevance_level=rel, judged_docs_only_flag=judged_only
)
json.dump(evaluator.evaluate(run), sys.stdout)
"""


def _pytrec_eval(qrels: dict, run: dict, rel: int, judged_only: bool = False) -> dict:
    """pytrec_eval, one process per evaluation: a second evaluation in the same process can hang
    (seen here with pytrec-eval-terrier 0.5.11; trec_eval keeps state between calls)."""
    done = subprocess.run(
        [sys.executable, "-c", _PYTREC_CHILD],
        input=json.dumps([qrels, run, sorted({_requested(m) for m in PYTREC}), rel, judged_only]),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return json.loads(done.stdout)


PYTREC = {
    "recip_rank": "RR",
    "map": "AP",
    f"map_cut_{CUTOFF}": f"AP@{CUTOFF}",
    "ndcg": "nDCG",
    f"ndcg_cut_{CUTOFF}": f"nDCG@{CUTOFF}",
    f"P_{CUTOFF}": f"P@{CUTOFF}",
    "success_1": "Hits@1",
    f"success_{CUTOFF}": f"Hits@{CUTOFF}",
    f"recall_{CUTOFF}": f"R@{CUTOFF}",
    "bpref": "Bpref",
    "Rprec": "Rprec",
    "infAP": "infAP",
    "iprec_at_recall_0.00": "IPrec@0.0",
    # the levels between: trec_eval 10 rounds where pytrec_eval's trec_eval 9 added 0.9 and cut
    # (tests/reference/test_trec_eval_cli.py checks them against trec_eval 10)
    "iprec_at_recall_1.00": "IPrec@1.0",
    "binG": "binG",
    "utility": "Utility",
}


def _requested(name: str) -> str:
    """The name pytrec_eval is asked for (``iprec_at_recall`` gives every level)."""
    return "iprec_at_recall" if name.startswith("iprec_at_recall") else name


@pytest.mark.slow
@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=collections(), rel=st.sampled_from([1, 2]), layout=st.sampled_from(LAYOUTS))
def test_matches_pytrec_eval(tmp_path: Path, data, rel: int, layout: str) -> None:
    qrels, run = data
    qrels_path, run_path = write_files(tmp_path, qrels, run, layout)
    measures = {te: str(rv.parse(ours, defaults={"rel": rel})) for te, ours in PYTREC.items()}
    measures["recip_rank_top"] = str(rv.parse(f"RR@{CUTOFF}", defaults={"rel": rel}))
    frame = rv.evaluate(
        rv.read_qrels(qrels_path), rv.read_run(run_path), list(measures.values())
    ).to_frame(per_query=True)
    ours = {(r.qid, r.measure): r.value for r in frame.itertuples()}

    reference = _pytrec_eval(qrels, run, rel)
    top = _pytrec_eval(qrels, {q: _trec_eval_top(d, CUTOFF) for q, d in run.items()}, rel)
    for qid in qrels:
        for te_name, name in measures.items():
            if qid not in run:
                assert ours[(qid, name)] == 0.0
                continue
            expected = (
                top[qid]["recip_rank"] if te_name == "recip_rank_top" else reference[qid][te_name]
            )
            assert ours[(qid, name)] == pytest.approx(expected, abs=1e-12), (qid, name)
    for name in measures.values():
        per_query = [ours[(q, name)] for q in qrels]
        assert ours[("all", name)] == pytest.approx(sum(per_query) / len(per_query), abs=1e-12)


def _judged_only(name: str) -> str:
    """``AP(rel=2)@5`` -> ``AP(rel=2,judged_only=True)@5``."""
    measure = rv.parse(name)
    return str(
        rv.measures.make(measure.name, measure.cutoff, **dict(measure.params), judged_only=True)
    )


@pytest.mark.slow
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=collections(), rel=st.sampled_from([1, 2]), layout=st.sampled_from(LAYOUTS))
def test_judged_only_matches_trec_eval_minus_j(tmp_path: Path, data, rel: int, layout: str) -> None:
    """The condensed list (Sakai 2007) is trec_eval -J: every family on the judged documents
    only."""
    qrels, run = data
    qrels_path, run_path = write_files(tmp_path, qrels, run, layout)
    measures = {
        te: _judged_only(str(rv.parse(ours, defaults={"rel": rel}))) for te, ours in PYTREC.items()
    }
    frame = rv.evaluate(
        rv.read_qrels(qrels_path), rv.read_run(run_path), list(measures.values())
    ).to_frame(per_query=True)
    ours = {(r.qid, r.measure): r.value for r in frame.itertuples()}
    reference = _pytrec_eval(qrels, run, rel, judged_only=True)
    for qid in qrels:
        for te_name, name in measures.items():
            expected = reference[qid][te_name] if qid in run else 0.0
            if math.isnan(expected):  # iprec's 0/0 on an empty condensed list: rankviz says 0
                assert te_name.startswith("iprec_at_recall"), (qid, name)
                expected = 0.0
            assert ours[(qid, name)] == pytest.approx(expected, abs=1e-12), (qid, name)


def _gdeval_script(tmp: Path) -> Path:
    """ir_measures' bundled gdeval.pl, printing full precision instead of 5 decimals."""
    import ir_measures

    source = Path(ir_measures.__file__).parent / "bin" / "gdeval.pl"
    text = source.read_text().replace("%.5f,%.5f", "%.17g,%.17g")
    script = tmp / "gdeval_full.pl"
    script.write_text(text)
    return script


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("perl") is None, reason="gdeval.pl needs perl")
@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=collections(numeric_qids=True), k=st.sampled_from([1, 3, 10, 20]))
def test_err_and_exp_ndcg_match_gdeval(tmp_path: Path, data, k: int) -> None:
    qrels, run = data
    qrels_path, run_path = write_files(tmp_path, qrels, run)
    printed = subprocess.run(
        ["perl", str(_gdeval_script(tmp_path)), str(qrels_path), str(run_path), str(k)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    frame = rv.evaluate(
        rv.read_qrels(qrels_path), rv.read_run(run_path), [f"ERR@{k}", f"nDCG(gain=exp)@{k}"]
    ).to_frame(per_query=True)
    ours = {(r.qid, r.measure): r.value for r in frame.itertuples()}
    rows = [
        line.split(",")
        for line in printed.splitlines()[1:]
        if line and not line.split(",")[1] == "amean"
    ]
    for _runid, topic, ndcg, err in rows:
        assert ours[(topic, f"ERR@{k}")] == pytest.approx(float(err), abs=1e-12)
        assert ours[(topic, f"nDCG(gain=exp)@{k}")] == pytest.approx(float(ndcg), abs=1e-12)
    topics_printed = {row[1] for row in rows}
    for qid in qrels:
        if qid not in topics_printed:
            # gdeval prints only topics in the run with a positive grade; rankviz scores the rest 0
            assert ours[(qid, f"ERR@{k}")] == 0.0
