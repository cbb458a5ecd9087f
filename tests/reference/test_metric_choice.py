"""Metric choice: agreement, discriminative power, stability and warnings, checked against direct
computations."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import SAMPLES
from scipy import stats

import rankviz as rv
from rankviz.analyses import measure_evidence as evidence
from rankviz.analyses import metric_choice as mc
from rankviz.analyses import task
from rankviz.io.collection import open_collection
from rankviz.settings.report_settings import MetricSettings


@pytest.fixture(scope="module")
def dl_hard():
    collection = open_collection(SAMPLES / "dl-hard-passage")
    qrels = collection.read_qrels()
    runs = {name: collection.read_run(name) for name in collection.run_paths}
    tables = {
        p: {n: rv.rank(r, qrels, ties=p) for n, r in runs.items()}
        for p in ("trec_eval", "pessimistic", "optimistic")
    }
    return collection, qrels, runs, tables


def test_tau_ap_hand_computed_and_kendall_is_scipys() -> None:
    assert evidence.tau_ap([3, 2, 1], [3, 1, 2]) == pytest.approx(0.5)
    assert evidence.tau_ap([3, 2, 1], [1, 2, 3]) == pytest.approx(-1.0)
    assert evidence.tau_ap([0.1, 0.5, 0.3, 0.9], [0.1, 0.5, 0.3, 0.9]) == pytest.approx(1.0)
    means = pd.DataFrame(
        {"A": [0.1, 0.4, 0.3, 0.2], "B": [0.2, 0.1, 0.5, 0.4], "A again": [0.1, 0.4, 0.3, 0.2]}
    )
    kendall = evidence.agreement(means)
    assert kendall.loc["A", "B"] == pytest.approx(
        stats.kendalltau(means.A, means.B).statistic, abs=1e-15
    )
    assert (
        kendall.loc["A", "A again"] == 1.0
        and evidence.agreement(means, method="tau_ap").loc["A", "A again"] == 1.0
    )
    np.testing.assert_array_equal(kendall.to_numpy(), kendall.to_numpy().T)


def test_a_measure_that_cannot_separate_runs_has_no_power_and_no_swaps() -> None:
    rng = np.random.default_rng(1)
    base = rng.random(60)
    flat = pd.DataFrame({"a": base, "b": base, "c": base})
    separated = pd.DataFrame({"a": base, "b": base + 0.3, "c": base + 0.6})
    summary, asl = evidence.discriminative_power(
        {"flat": flat, "separated": separated}, n_resamples=300, rng=2
    )
    assert summary.loc["flat", "power"] == 0.0 and summary.loc["flat", "significant"] == 0
    assert summary.loc["separated", "power"] == 1.0 and summary.loc["separated", "pairs"] == 3
    assert list(asl[asl.measure == "flat"]["p"]) == [1.0, 1.0, 1.0]
    assert (
        evidence.swap_rate(flat, trials=200, rng=1) == 0.0
        and evidence.swap_rate(separated, trials=200, rng=1) == 0.0
    )
    noisy = pd.DataFrame({"a": base, "b": base + 0.01 * rng.standard_normal(60)})
    assert 0.0 < evidence.swap_rate(noisy, trials=500, rng=1) < 1.0


def test_half_means_equal_but_for_their_last_bits_are_tied_not_swapped() -> None:
    """Run b is run a moved by one unit in the last place, up or down at random: its half-means
    differ from a's only where a sum's rounding falls, which a BLAS kernel decides; no swap."""
    rng = np.random.default_rng(4)
    base = rng.random(200)
    nudged = np.where(rng.random(200) < 0.5, np.nextafter(base, 2.0), np.nextafter(base, -1.0))
    assert (nudged != base).all()
    matrix = pd.DataFrame({"a": base, "b": nudged, "c": base + 0.5})
    assert evidence.swap_rate(matrix, trials=300, rng=1) == 0.0
    assert evidence.swap_rate(matrix[["c", "b", "a"]], trials=300, rng=1) == 0.0


def test_warnings_match_the_qrels_and_runs(dl_hard) -> None:
    collection, qrels, runs, tables = dl_hard
    warnings = task.collection_warnings(tables["trec_eval"], rel=2, k=10)
    judgments = qrels.to_frame()
    relevant = judgments[judgments.rel >= 2].groupby("qid").size()
    assert warnings.queries == judgments.qid.nunique()
    assert warnings.no_relevant_in_qrels == sorted(set(judgments.qid) - set(relevant.index))
    assert warnings.many_relevant == sorted(relevant[relevant >= 10].index)
    found = set()
    for run in runs.values():
        frame = run.to_frame().merge(judgments, on=["qid", "docid"])
        found |= set(frame[frame.rel >= 2].qid)
    assert warnings.none_found == sorted(set(relevant.index) - found)
    bm25 = runs["bm25"].to_frame()
    top = (
        bm25.sort_values(["qid", "score", "docid"], ascending=[True, False, False])
        .groupby("qid")
        .head(10)
    )
    judged = top.merge(judgments, on=["qid", "docid"], how="left").rel.notna().mean()
    assert warnings.judged["bm25"] == pytest.approx(judged)
    assert any("have no relevant document in the qrels" in m for m in warnings.messages())


@pytest.mark.slow
def test_report_on_a_sample_collection(dl_hard) -> None:
    collection, qrels, runs, tables = dl_hard
    measures = [
        rv.parse(m, defaults={"rel": 2}) for m in ("RR@10", "Hits@10", "AP", "nDCG@10", "ERR@20")
    ]
    settings = rv.EvalSettings(rel=2)
    report = mc.metric_report(
        tables, measures, settings, MetricSettings(n_resamples=200, splits=200), rng=3
    )
    every = [rv.parse(m, defaults={"rel": 2}) for m in report.measures]
    frame = rv.evaluate(qrels, list(runs.values()), every).to_frame()
    expected = frame.pivot(index="run", columns="measure", values="value")
    for measure in report.means.columns:
        for run in report.means.index:
            assert report.means.loc[run, measure] == pytest.approx(
                expected.loc[run, measure], abs=1e-12
            )
    assert report.task.graded and not report.task.single_answer
    # graded, many relevant items, users who stop (guessed): the measures that honour all three
    assert [r.measure for r in report.recommendations] == ["ERR@10", "RBP(rel=2,graded=True)"]
    # the measures asked for, then every candidate at the task's K not among them (those that
    # do not fit too: the advice says where they separate more): the advice comes with its evidence
    assert list(report.measures) == [
        *map(str, measures),
        "ERR@10",
        "RBP(rel=2,graded=True)",
        "AP(rel=2)@10",
        "P(rel=2)@10",
        "RBP(rel=2)",
    ]
    assert list(report.power.index) == list(report.measures) and (report.power.pairs == 15).all()
    gmax = rv.evaluate_tables(
        tables["trec_eval"], [rv.parse("ERR@20"), rv.parse("ERR(gmax=5)@20")], settings
    ).means()
    assert report.stability.loc["ERR@20", "gmax tau"] == pytest.approx(
        stats.kendalltau(gmax["ERR@20"], gmax["ERR(gmax=5)@20"]).statistic
    )
    assert np.isnan(report.stability.loc["nDCG@10", "threshold tau"])
    assert (report.stability["tie width"] >= 0).all()
    again = mc.metric_report(
        tables, measures, settings, MetricSettings(n_resamples=200, splits=200), rng=3
    )
    pd.testing.assert_frame_equal(report.stability, again.stability)


def test_recommendations_follow_the_answers(dl_hard) -> None:
    warnings = task.collection_warnings(dl_hard[3]["trec_eval"], rel=2, k=10)
    one = task.recommend(task.Task(True, 10, False, False), warnings, graded_share=0.4, rel=2)
    assert [r.measure for r in one] == ["RR(rel=2)@10", "Hits(rel=2)@10"]
    assert "36% of queries have 10+ relevant" in one[0].hides
    many = task.recommend(task.Task(False, None, True, True), warnings, graded_share=0.4, rel=1)
    assert [r.measure for r in many] == ["ERR@20", "RBP(rel=1,graded=True)"]
    binary = task.recommend(task.Task(False, 10, False, False), warnings, graded_share=0.4, rel=1)
    assert [r.measure for r in binary] == ["AP@10", "P@10", "RBP(rel=1)"]
    assert all(str(rv.parse(r.measure)) == r.measure for r in one + many)
