"""A run's per-query delta against the queries' features (#42): Spearman's rho and p are scipy's,
the trend's band statsmodels' OLS interval, the features counted from the collection's own files,
the buckets partition the queries, the categories' means pandas'; on runs and on scores alone."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from conftest import ROOT, run_cli
from scipy import stats

import rankviz as rv
from rankviz.study import FEATURE_REPORT

HARD = ROOT / "sample_data" / "dl-hard-passage"


@pytest.fixture(scope="module")
def report():
    study = rv.Study.open(rv.StudyRequest(HARD, measures=["nDCG@10"]))
    baseline, run = study.run_names[:2]
    return study, study.ask(FEATURE_REPORT, rv.parse("nDCG@10"), run, baseline, k=10), baseline, run


def _delta(study, baseline, run) -> pd.Series:
    matrix = study.evaluation().matrix("nDCG@10")
    return matrix[run] - matrix[baseline]


def test_the_features_are_the_collections_files_counted(report) -> None:
    study, found, baseline, run = report
    texts = pd.read_csv(HARD / "queries.tsv", sep="\t", header=None, dtype=str, index_col=0)[1]
    qrels = pd.read_csv(HARD / "qrels.txt", sep=" ", header=None, dtype={0: str})
    relevant = qrels[qrels[3] >= study.settings.rel].groupby(0).size()
    judged = qrels[qrels[3] >= 0].groupby(0).size()
    features = found.features
    for q in features.index:
        assert features.loc[q, "terms"] == len(texts[q].split())
        assert features.loc[q, "relevant"] == relevant.get(q, 0)
        assert features.loc[q, "judged"] == judged.get(q, 0)
    means = study.evaluation().matrix("nDCG@10").mean(axis=1)
    assert np.allclose(features["difficulty"], means.reindex(features.index), atol=1e-15)
    groups = pd.read_csv(HARD / "query_groups.tsv", sep="\t", dtype=str).set_index("qid")
    assert set(groups.columns) - {"query", "text"} <= set(found.categorical)


def test_rho_p_and_the_band_are_scipys_and_statsmodels(report) -> None:
    study, found, baseline, run = report
    delta = _delta(study, baseline, run)
    for feature in found.numeric:
        x = found.features[feature.name].reindex(delta.index)
        held = x.notna()
        reference = stats.spearmanr(x[held], delta[held])
        assert feature.rho == pytest.approx(reference.statistic, abs=1e-12)
        assert feature.p_value == pytest.approx(reference.pvalue, rel=1e-9)
        model = sm.OLS(delta[held].to_numpy(), sm.add_constant(x[held].to_numpy())).fit()
        predicted = model.get_prediction(
            sm.add_constant(feature.band["x"].to_numpy())
        ).summary_frame(alpha=0.05)
        assert np.allclose(feature.band["fit"], predicted["mean"], rtol=1e-9, atol=1e-12)
        assert np.allclose(feature.band["low"], predicted["mean_ci_lower"], rtol=1e-9, atol=1e-12)
        assert np.allclose(feature.band["high"], predicted["mean_ci_upper"], rtol=1e-9, atol=1e-12)


def test_the_buckets_partition_the_queries_in_order(report) -> None:
    study, found, baseline, run = report
    delta = _delta(study, baseline, run)
    for feature in found.numeric:
        for buckets in (feature.by_width, feature.by_frequency):
            assert buckets["queries"].sum() == feature.queries
            assert (buckets["low"].to_numpy()[1:] > buckets["high"].to_numpy()[:-1]).all()
            x = found.features[feature.name].reindex(delta.index)
            for row in buckets.itertuples():
                named = [float(edge) for edge in row.bucket.split(" – ")]
                assert named == pytest.approx([row.low, row.high][: len(named)], rel=1e-5)
                assert len(named) == 2 or row.low == row.high
                inside = delta[(x >= row.low) & (x <= row.high)]
                assert len(inside) == row.queries
                assert row.mean == pytest.approx(inside.mean(), abs=1e-12)


def test_the_categories_means_are_pandas(report) -> None:
    study, found, baseline, run = report
    delta = _delta(study, baseline, run)
    groups = pd.read_csv(HARD / "query_groups.tsv", sep="\t", dtype=str).set_index("qid")
    for name, frame in found.categorical.items():
        if name not in groups.columns:
            continue
        want = delta.groupby(groups[name].reindex(delta.index)).agg(["size", "mean"])
        got = frame.set_index("category")
        assert list(got.index) == sorted(want.index)
        assert np.allclose(got["mean"], want.loc[got.index, "mean"], atol=1e-12)
        assert (got["queries"] == want.loc[got.index, "size"]).all()


@pytest.mark.slow
def test_a_billion_buckets_are_as_many_buckets_as_queries() -> None:
    """``--bins 1000000000`` took 7.8 GB and went on growing: the buckets are bounded by the
    queries, equal to asking for that many."""
    asked = run_cli(
        "features", str(HARD), "-m", "nDCG@10", "--format", "json", "--bins", "1000000000"
    )
    assert asked.returncode == 0, asked.stderr
    numeric = json.loads(asked.stdout)["numeric"]
    queries = numeric[0]["queries"]
    bounded = run_cli(
        "features", str(HARD), "-m", "nDCG@10", "--format", "json", "--bins", str(queries)
    )
    assert json.loads(bounded.stdout)["numeric"] == numeric
    assert all(sum(b["queries"] for b in f["equal_width"]) == f["queries"] for f in numeric)


@pytest.mark.slow
def test_the_command_gives_json_and_works_on_scores_alone(tmp_path) -> None:
    done = run_cli("features", str(HARD), "-m", "nDCG@10", "--format", "json")
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    assert {f["feature"] for f in payload["numeric"]} >= {"terms", "relevant", "difficulty"}
    scores = ROOT / "sample_data" / "rag-nuggets" / "scores.tsv"
    alone = run_cli("features", str(scores), "-m", "vital", "--format", "json")
    assert alone.returncode == 0, alone.stderr
    written = pd.read_csv(scores, sep="\t", dtype={"query": str})
    matrix = written[written["measure"] == "vital"].pivot(
        index="query", columns="run", values="value"
    )
    delta = matrix.iloc[:, 1] - matrix.iloc[:, 0]
    (difficulty,) = [f for f in json.loads(alone.stdout)["numeric"] if f["feature"] == "difficulty"]
    reference = stats.spearmanr(matrix.mean(axis=1), delta)
    assert difficulty["spearman_rho"] == pytest.approx(reference.statistic, abs=1e-12)
