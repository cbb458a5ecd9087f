"""Every (run, query, measure) value that trec_eval and gdeval print for the conformance cases."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from conftest import CONFORMANCE

import rankviz as rv

CASES = CONFORMANCE

TREC_EVAL_NAMES = {
    "recip_rank": "RR",
    "recip_rank_M10": "RR@10",
    "map": "AP",
    "map_cut_10": "AP@10",
    "ndcg": "nDCG",
    "ndcg_cut_5": "nDCG@5",
    "ndcg_cut_10": "nDCG@10",
    "ndcg_cut_20": "nDCG@20",
    "success_1": "Hits@1",
    "success_5": "Hits@5",
    "success_10": "Hits@10",
    "P_5": "P@5",
    "P_10": "P@10",
    "num_ret": "NumRet",
    "num_rel": "NumRel",
    "num_rel_ret": "NumRelRet",
}

GDEVAL_NAMES = {
    f"{m}@{k}": f"{ours}@{k}"
    for k in (5, 10, 20)
    for m, ours in (("ndcg_exp", "nDCG(gain=exp)"), ("err", "ERR"))
}


def _runs(case: Path) -> dict[str, Path]:
    return {p.name.split(".")[0][len("run_") :]: p for p in sorted(case.glob("run_*"))}


def _expected(path: Path, names: dict[str, str]) -> dict[tuple[str, str, str], float]:
    with path.open(newline="") as handle:
        return {
            (row["run"], row["qid"], names[row["measure"]]): float(row["value_full"])
            for row in csv.DictReader(handle, delimiter="\t")
            if row["measure"] in names
        }


def _trec_eval_files():
    for case in sorted(CASES.iterdir()):
        for path in sorted(case.glob("expected_c*.tsv")) + sorted(case.glob("expected_noc*.tsv")):
            yield pytest.param(case, path, id=f"{case.name}/{path.stem}")


@pytest.mark.parametrize(("case", "expected_file"), list(_trec_eval_files()))
def test_trec_eval_values(case: Path, expected_file: Path) -> None:
    missing = "zero" if expected_file.stem.startswith("expected_c") else "skip"
    rel = 2 if expected_file.stem.endswith("_l2") else 1
    names = {te: str(rv.parse(ours, defaults={"rel": rel})) for te, ours in TREC_EVAL_NAMES.items()}
    expected = _expected(expected_file, names)
    assert expected, "no rows to compare"
    qrels = rv.read_qrels(case / "qrels.txt")
    runs = _runs(case)
    got = {}
    for name in {run for run, _, _ in expected}:
        run = rv.read_run(runs[name], name=name)
        frame = rv.evaluate(qrels, run, list(names.values()), missing=missing).to_frame(
            per_query=True
        )
        got.update({(r.run, r.qid, r.measure): r.value for r in frame.itertuples()})
    counts = {names[te] for te in ("num_ret", "num_rel", "num_rel_ret")}
    expected = {k: v for k, v in expected.items() if k[1] != "all" or k[2] not in counts}
    for key, value in expected.items():
        assert key in got, f"{key} missing from rankviz output"
        assert got[key] == pytest.approx(value, abs=1e-12), key
    assert {k for k in got if k[1] != "all"} == {k for k in expected if k[1] != "all"}
    assert {k[2] for k in expected} >= counts, "the counts are compared too"


def _gdeval_files():
    for case in sorted(CASES.iterdir()):
        path = case / "expected_gdeval.tsv"
        if path.exists() and (case / "qrels.txt").exists() and case.name != "err_dup_docids":
            yield pytest.param(case, path, id=case.name)


@pytest.mark.parametrize(("case", "expected_file"), list(_gdeval_files()))
def test_gdeval_values(case: Path, expected_file: Path) -> None:
    expected = {k: v for k, v in _expected(expected_file, GDEVAL_NAMES).items() if k[1] != "all"}
    assert expected
    qrels = rv.read_qrels(case / "qrels.txt")
    runs = _runs(case)
    for name in {run for run, _, _ in expected}:
        frame = rv.evaluate(
            qrels, rv.read_run(runs[name], name=name), list(GDEVAL_NAMES.values())
        ).to_frame(per_query=True)
        got = {(r.run, r.qid, r.measure): r.value for r in frame.itertuples()}
        for key, value in expected.items():
            if key[0] == name:
                assert got[key] == pytest.approx(value, abs=1e-12), key


def test_gdeval_mean_over_printed_topics() -> None:
    """gdeval's amean averages the topics it prints: those in the run with a positive grade."""
    case = CASES / "graded"
    expected = _expected(case / "expected_gdeval.tsv", GDEVAL_NAMES)
    frame = rv.evaluate(
        rv.read_qrels(case / "qrels.txt"),
        rv.read_run(case / "run_good.txt", name="good"),
        ["ERR@20"],
    ).to_frame(per_query=True)
    printed = {q for (run, q, m) in expected if run == "good" and m == "ERR@20" and q != "all"}
    ours = frame[frame.qid.isin(printed)].value.mean()
    assert ours == pytest.approx(expected[("good", "all", "ERR@20")], abs=1e-12)


def test_duplicate_docid_is_an_error_naming_the_line() -> None:
    with pytest.raises(rv.FormatError) as info:
        rv.read_run(CASES / "err_dup_docids" / "run_dup.txt")
    error = info.value
    lines = (CASES / "err_dup_docids" / "run_dup.txt").read_text().splitlines()
    assert error.line == lines[error.line_no - 1]
    assert "twice" in error.reason and error.line_no > 1


def test_empty_run_is_an_error() -> None:
    with pytest.raises(rv.FormatError, match="empty file"):
        rv.read_run(CASES / "err_empty_run" / "run_empty.txt")


def test_query_judged_only_negative_scores_zero() -> None:
    """trec_eval crashes on a topic whose judgments are all -2; rankviz scores it 0 (nothing
    relevant)."""
    case = CASES / "err_negonly_query"
    qrels = rv.read_qrels(case / "qrels.txt")
    frame = rv.evaluate(
        qrels, rv.read_run(case / "run_neg.txt"), ["AP", "RR", "nDCG@10", "ERR@10"]
    ).to_frame(per_query=True)
    negative_only = {q for q, g in zip(qrels.to_frame().qid, qrels.to_frame().rel) if g <= -2} - {
        q for q, g in zip(qrels.to_frame().qid, qrels.to_frame().rel) if g > -2
    }
    assert negative_only
    assert (frame[frame.qid.isin(negative_only)].value == 0).all()


def test_float32_ties_follow_trec_eval_10_not_9() -> None:
    """Scores equal as float32 but not as double stay distinct (trec_eval 10), unlike
    pytrec_eval."""
    diffs = (CASES / "ties" / "trec_eval_10_vs_908_diffs.tsv").read_text()
    assert "float32" in diffs
    qrels = rv.read_qrels(CASES / "ties" / "qrels.txt")
    frame = rv.evaluate(qrels, rv.read_run(CASES / "ties" / "run_float32.txt"), ["RR"]).to_frame()
    assert frame.value.iloc[0] == pytest.approx(1.0)


def test_a_negative_grade_is_in_the_pool_unjudged_for_every_measure_that_asks(tmp_path) -> None:
    """trec_eval reads a negative grade as "in the pool, unjudged" (RELVALUE_UNJUDGED). rankviz did
    so in Bpref and judged_only but counted such documents as judged in Judged@K, RBP's residual and
    ``--unjudged relevant``: on trec_eval's own qrels.rel_level, query 303 had Judged@10 1.0 against
    trec_eval's unj_10 0.5. Judged@K is 1 - unj_K wherever the run retrieves K (expected_unj.tsv,
    trec_eval 10), and each of the three (and AP and nDCG, which never counted them) equals its
    value on the qrels with the negative lines removed, with and without the holes judged
    relevant."""
    case = CONFORMANCE / "te_rel_level"
    unjudged = {
        (row[0], row[1]): float(row[2])
        for row in csv.reader(open(case / "expected_unj.tsv"), delimiter="\t")
    }
    run = case / "run_STANDARD.txt"
    measures = ["Judged@5", "Judged@10", "Judged@20", "RBP(p=0.8,residual=True)"]
    study = rv.Study.open(rv.StudyRequest(case / "qrels.txt", [run], measures=measures))
    evaluation = study.evaluation()
    for k in (5, 10, 20):
        got = evaluation.per_query(f"Judged@{k}", "run_STANDARD")
        for qid in ("301", "302", "303"):
            assert got[qid] == pytest.approx(1 - unjudged[(f"unj_{k}", qid)], abs=5e-5), (k, qid)
    assert evaluation.per_query("Judged@10", "run_STANDARD")["303"] == 0.5
    lines = (case / "qrels.txt").read_text().splitlines()
    assert any(int(line.split()[3]) < 0 for line in lines)
    unlisted = tmp_path / "qrels.unlisted.txt"
    unlisted.write_text("".join(line + "\n" for line in lines if int(line.split()[3]) >= 0))
    for options in ({}, {"unjudged": "relevant:1"}):
        given = rv.Study.open(
            rv.StudyRequest(
                case / "qrels.txt", [run], measures=[*measures, "AP", "nDCG@10"], options=options
            )
        ).evaluation()
        removed = rv.Study.open(
            rv.StudyRequest(unlisted, [run], measures=[*measures, "AP", "nDCG@10"], options=options)
        ).evaluation()
        for measure in (*measures, "AP", "nDCG@10"):
            assert given.per_query(measure, "run_STANDARD").to_dict() == pytest.approx(
                removed.per_query(measure, "run_STANDARD").to_dict(), abs=1e-12
            ), (options, measure)
