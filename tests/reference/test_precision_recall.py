"""The precision-recall curve is trec_eval 10's iprec_at_recall averaged: its ``all`` lines, kept in
tests/data/trec-eval-cli (with -c: a missed query counts 0)."""

from __future__ import annotations

import pytest
from conftest import ROOT

from rankviz.study import PRECISION_RECALL, Study, StudyRequest

DATA = ROOT / "tests" / "data"


def _trec_evals_means(kept: str) -> list[float]:
    lines = (DATA / "trec-eval-cli" / kept).read_text().splitlines()
    return [
        float(line.split("\t")[2])
        for line in lines
        if line.startswith("iprec_at_recall_") and line.split("\t")[1] == "all"
    ]


@pytest.mark.parametrize(
    ("run", "kept", "missing", "queries"),
    [
        ("trec-eval-fixtures/results.test", "quicktest-1.out", "zero", 3),
        ("conformance/te_test/run_trunc.txt", "every-qc.out", "zero", 3),
    ],
)
def test_the_curve_is_trec_evals_mean_interpolated_precision(run, kept, missing, queries) -> None:
    study = Study.open(
        StudyRequest(
            DATA / "trec-eval-fixtures" / "qrels.test", [DATA / run], options={"missing": missing}
        )
    )
    curves = study.ask(PRECISION_RECALL)
    (row,) = curves.precision.to_numpy()
    assert list(row.round(4)) == pytest.approx(_trec_evals_means(kept), abs=1e-12)
    assert curves.queries == queries and curves.levels == tuple(i / 10 for i in range(11))
    frame = curves.to_frames()["curve"]
    assert list(frame.columns) == ["run", "recall", "precision"] and len(frame) == 11


def test_skipping_missed_queries_averages_over_the_answered_ones() -> None:
    qrels = DATA / "trec-eval-fixtures" / "qrels.test"
    run = DATA / "conformance" / "te_test" / "run_trunc.txt"
    zero = Study.open(StudyRequest(qrels, [run])).ask(PRECISION_RECALL)
    skip = Study.open(StudyRequest(qrels, [run], options={"missing": "skip"})).ask(PRECISION_RECALL)
    assert (zero.queries, skip.queries) == (3, 2)
    assert skip.precision.to_numpy() == pytest.approx(zero.precision.to_numpy() * 3 / 2, abs=1e-12)
