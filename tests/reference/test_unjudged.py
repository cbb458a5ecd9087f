"""Unjudged documents: Judged@K, Bpref, Rprec, RBP and judged_only against the reference tools, and
the "holes judged at grade g" end against evaluating on qrels with those judgments added."""

from __future__ import annotations

import json
import subprocess
import sys

import ir_measures
import numpy as np
import pytest
from conftest import CAST, CONFORMANCE, CRANFIELD, DL_HARD
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankviz as rv
from rankviz.analyses.unjudged import unjudged_report
from rankviz.cli import main
from rankviz.settings.report_settings import UnjudgedSettings

DOCIDS = st.text(alphabet="abcdefg", min_size=1, max_size=3)


@st.composite
def tie_free(draw):
    """qrels and a run without equal scores (ir_measures breaks ties its own way), grades -1..3."""
    qids = draw(
        st.lists(st.sampled_from(["q1", "q2", "q3", "q4"]), min_size=1, max_size=4, unique=True)
    )
    qrels, run = {}, {}
    for qid in qids:
        docs = draw(st.lists(DOCIDS, min_size=1, max_size=15, unique=True))
        scores = draw(
            st.lists(st.integers(0, 10**6), min_size=len(docs), max_size=len(docs), unique=True)
        )
        judged = draw(st.lists(st.sampled_from(docs + ["zz", "yy"]), max_size=12, unique=True))
        qrels[qid] = {d: draw(st.integers(-1, 3)) for d in judged} or {"zz": 1}
        if draw(st.integers(0, 4)):
            run[qid] = {d: float(s) for d, s in zip(docs, scores)}
    return qrels, run


def _ir_measures(measure, qrels: dict, run: dict) -> dict[str, float]:
    qrel_rows = [ir_measures.Qrel(q, d, g) for q, docs in qrels.items() for d, g in docs.items()]
    run_rows = [ir_measures.ScoredDoc(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    return {
        m.query_id: float(m.value) for m in ir_measures.iter_calc([measure], qrel_rows, run_rows)
    }


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(data=tie_free(), k=st.sampled_from([1, 3, 5, 20]))
def test_judged_at_k_is_ir_measures(data, k) -> None:
    qrels, run = data
    if not run:
        return
    ours = rv.evaluate(rv.qrels_from_dict(qrels), rv.run_from_dict(run), [f"Judged@{k}"])
    # a negative grade is trec_eval's "in the pool, unjudged" (unj_K); ir_measures counts it judged:
    # its Judged@K on the qrels without those lines is trec_eval's rule
    listed = {q: {d: g for d, g in docs.items() if g >= 0} for q, docs in qrels.items()}
    reference = _ir_measures(
        ir_measures.Judged @ k, {q: docs for q, docs in listed.items() if docs}, run
    )
    for qid, value in reference.items():
        assert dict(zip(*ours.run_values(f"Judged@{k}", "run")))[qid] == pytest.approx(
            value, abs=1e-12
        )


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(data=tie_free(), rel=st.sampled_from([1, 2]), p=st.sampled_from([0.5, 0.8, 0.95]))
def test_rbp_is_ir_measures(data, rel, p) -> None:
    qrels, run = data
    if not run:
        return
    name = str(rv.parse(f"RBP(rel={rel},p={p})"))
    ours = dict(
        zip(
            *rv.evaluate(rv.qrels_from_dict(qrels), rv.run_from_dict(run), [name]).run_values(
                name, "run"
            )
        )
    )
    reference = _ir_measures(ir_measures.RBP(rel=rel, p=p), qrels, run)
    for qid, value in reference.items():
        assert ours[qid] == pytest.approx(value, abs=1e-12)


def test_rbp_and_its_residual_by_hand() -> None:
    """Ranks: relevant, unjudged, non-relevant, relevant; p = 0.5, depth 4: residual = 0.5 * 0.5 +
    0.5^4."""
    qrels = rv.qrels_from_dict({"q": {"a": 1, "c": 0, "d": 2}})
    run = rv.run_from_dict({"q": {"a": 4.0, "b": 3.0, "c": 2.0, "d": 1.0}})
    means = rv.evaluate(
        qrels, run, ["RBP(p=0.5)", "RBP(p=0.5,residual=True)", "RBP(p=0.5,residual=True)@2"]
    ).means()
    assert means.loc["run", "RBP(rel=1,p=0.5)"] == pytest.approx(0.5 * (1 + 0.5**3))
    assert means.loc["run", "RBP(rel=1,p=0.5,residual=True)"] == pytest.approx(0.5 * 0.5 + 0.5**4)
    assert means.loc["run", "RBP(rel=1,p=0.5,residual=True)@2"] == pytest.approx(0.5 * 0.5 + 0.5**2)


PYTREC_CHILD = """
import json, sys, pytrec_eval
qrels, run, measures, rel, judged_only = json.load(sys.stdin)
e = pytrec_eval.RelevanceEvaluator(
    qrels, set(measures), relevance_level=rel, judged_docs_only_flag=judged_only
)
json.dump(e.evaluate(run), sys.stdout)
"""
TREC_EVAL = {
    "bpref": "Bpref",
    "Rprec": "Rprec",
    "map": "AP",
    "ndcg_cut_10": "nDCG@10",
    "P_10": "P@10",
    "recip_rank": "RR",
}


def _pytrec(qrels: dict, run: dict, rel: int, judged_only: bool) -> dict:
    payload = json.dumps([qrels, run, sorted(TREC_EVAL), rel, judged_only])
    done = subprocess.run(
        [sys.executable, "-c", PYTREC_CHILD],
        input=payload,
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    return json.loads(done.stdout)


def _as_dicts(qrels: rv.Qrels, run: rv.Run) -> tuple[dict, dict]:
    judged, ranked = qrels.to_frame(), run.to_frame()
    qrels_dict = {q: dict(zip(g.docid, map(int, g.rel))) for q, g in judged.groupby("qid")}
    run_dict = {q: dict(zip(g.docid, map(float, g.score))) for q, g in ranked.groupby("qid")}
    return qrels_dict, run_dict


CASES = [
    (CRANFIELD, "bm25", 1),
    (CRANFIELD, "rrf", 2),
    (DL_HARD, "bm25_t5-zs", 2),
    (CAST, "org_manual_bm25", 2),
    (CONFORMANCE / "te_test", "run_STANDARD.txt", 1),
    (CONFORMANCE / "graded", "run_noisy.txt", 2),
]


@pytest.mark.parametrize(
    ("folder", "run_name", "rel"), CASES, ids=[f"{c[0].name}-{c[1]}" for c in CASES]
)
@pytest.mark.parametrize("judged_only", [False, True])
def test_bpref_rprec_and_judged_only_are_trec_eval_on_real_collections(
    folder, run_name, rel, judged_only
) -> None:
    if (folder / "runs").is_dir():
        collection = rv.open_collection(folder)
        qrels, run = collection.read_qrels(), collection.read_run(run_name)
    else:
        qrels, run = rv.read_qrels(folder / "qrels.txt"), rv.read_run(folder / run_name)
    names = {te: rv.parse(ours, defaults={"rel": rel}) for te, ours in TREC_EVAL.items()}
    if judged_only:
        names = {
            te: rv.measures.make(m.name, m.cutoff, **dict(m.params), judged_only=True)
            for te, m in names.items()
        }
    evaluation = rv.evaluate(qrels, run, list(names.values()))
    reference = _pytrec(*_as_dicts(qrels, run), rel, judged_only)
    for te, measure in names.items():
        qids, values = evaluation.run_values(measure, run.name)
        for qid, value in zip(qids, values):
            if qid in reference:  # pytrec_eval reports only the queries the run answers
                assert value == pytest.approx(reference[qid][te], abs=1e-9), (str(measure), qid)


@pytest.mark.slow
@settings(
    max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=tie_free(), grade=st.sampled_from([1, 2, 3]), cutoff=st.sampled_from([None, 2, 5]))
def test_holes_judged_at_g_equal_qrels_with_those_judgments_added(data, grade, cutoff) -> None:
    qrels, run = data
    if not run:
        return
    at = "" if cutoff is None else f"@{cutoff}"
    measures = [f"{m}{at}" for m in ("AP", "nDCG", "RR", "R", "ERR", "Hits", "nDCG(gain=exp)")] + (
        ["P" + at] if cutoff else []
    )
    filled = rv.evaluate(
        rv.qrels_from_dict(qrels), rv.run_from_dict(run), measures, unjudged=f"relevant:{grade}"
    )
    augmented = {q: dict(docs) for q, docs in qrels.items()}
    for qid, docs in run.items():
        # trec_eval order
        ranked = sorted(docs.items(), key=lambda item: (item[1], item[0].encode()), reverse=True)[
            :cutoff
        ]
        # a hole: not in the qrels, or below 0 (trec_eval's "in the pool, unjudged")
        for docid, _ in ranked:
            if augmented.setdefault(qid, {}).get(docid, -1) < 0:
                augmented[qid][docid] = grade
    ordinary = rv.evaluate(
        rv.qrels_from_dict(augmented), rv.run_from_dict(run), measures, gmax=max(4, grade)
    )
    for measure in measures:
        np.testing.assert_allclose(
            filled.matrix(measure, complete=False),
            ordinary.matrix(measure, complete=False),
            atol=1e-12,
        )


def test_the_unjudged_report_on_dl_hard() -> None:
    collection = rv.open_collection(DL_HARD)
    qrels, runs = collection.read_qrels(), [collection.read_run(n) for n in ("bm25", "bm25_t5-zs")]
    settings_ = rv.EvalSettings(rel=2)
    measures = [rv.parse(m, defaults={"rel": 2}) for m in ("nDCG@10", "AP")]
    report = unjudged_report(qrels, runs, measures, settings_, options=UnjudgedSettings(k=10))
    top = (
        runs[0]
        .to_frame()
        .sort_values(["qid", "score", "docid"], ascending=[True, False, False])
        .groupby("qid")
        .head(10)
    )
    judged = top.merge(qrels.to_frame(), on=["qid", "docid"], how="left").rel.notna().mean()
    assert report.judged.loc["bm25", "share judged"] == pytest.approx(judged)
    section = report.sections["nDCG@10"]
    plain = rv.evaluate(qrels, runs, measures, settings_).means()
    filled = rv.evaluate(qrels, runs, measures, settings_.replace(unjudged="relevant:2")).means()
    assert section.means["nonrelevant"].to_dict() == pytest.approx(plain["nDCG@10"].to_dict())
    assert section.means["filled"].to_dict() == pytest.approx(filled["nDCG@10"].to_dict())
    assert (section.means["low"] <= section.means["high"]).all()
    first = report.documents.iloc[0]
    assert first["runs"] == 2 and first["best rank"] >= 1  # most-shared first
    assert report.documents["runs"].is_monotonic_decreasing
    # one line for the runs alike, each one's share beside its name
    (line,) = report.warnings()
    assert "only part of the top 10 of 2 runs is judged" in line and "50%" in line


def test_cli_unjudged_and_evaluate_unjudged(capsys) -> None:
    argv = [
        "unjudged",
        str(DL_HARD),
        "bm25",
        "bm25_t5-zs",
        "-m",
        "nDCG@10",
        "-k",
        "10",
        "--format",
        "json",
    ]
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    (section,) = report["measures"]
    assert report["grade"] == 2 and set(section["means"]) == {"bm25", "bm25_t5-zs"}
    assert section["pairs"][0]["baseline"] == "bm25" and report["documents"][0]["runs"] == 2
    assert (
        main(
            [
                "evaluate",
                str(DL_HARD),
                "bm25",
                "-m",
                "nDCG@10",
                "--unjudged",
                "relevant:2",
                "--format",
                "json",
            ]
        )
        == 0
    )
    (record,) = json.loads(capsys.readouterr().out)
    assert record["value"] == pytest.approx(section["means"]["bm25"]["filled"])
    with pytest.raises(SystemExit) as refused:
        main(["evaluate", str(DL_HARD), "bm25", "--unjudged", "relevant:x"])
    assert (
        refused.value.code == 2
        and "write nonrelevant, relevant or relevant:G" in capsys.readouterr().err
    )


@pytest.mark.parametrize(("folder", "k"), [(CRANFIELD, 10), (DL_HARD, 20), (CAST, 5)])
def test_the_judged_share_from_per_query_measures_is_the_share_of_the_tables(folder, k) -> None:
    """What the app reads under the meeting's judgments (Judged@K and NumRet@K of each query, which
    a judgment revises for its query alone) is the share of the top K's documents the qrels judge,
    as the tables give it, missed queries and short rankings included."""
    from rankviz.analyses.unjudged import judged_share, judged_share_of

    study = rv.Study.open(rv.StudyRequest(folder, measures=[f"Judged@{k}", f"NumRet@{k}"]))
    evaluation = study.evaluation()
    for name in study.run_names:
        share = judged_share_of(
            evaluation.matrix(f"Judged@{k}", complete=False)[name].to_numpy(dtype=float),
            evaluation.matrix(f"NumRet@{k}", complete=False)[name].to_numpy(dtype=float),
        )
        assert share == pytest.approx(judged_share(study.table(name), k), abs=1e-12)
