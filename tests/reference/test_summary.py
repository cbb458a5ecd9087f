"""A summary across collections: each collection's paired delta against scipy's paired t interval,
the pooled random-effects delta, tau2 and I2 against statsmodels' DerSimonian-Laird, the JSON, the
names file, the ranks, and the CI gate on the pooled deltas."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import ROOT
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy import stats
from statsmodels.stats.meta_analysis import combine_effects

import rankviz as rv
from rankviz.analyses.summary import dersimonian_laird
from rankviz.cli import main
from rankviz.studies import summarise

SAMPLES = ROOT / "sample_data"
NAMES = ("cranfield\tdense\texpansion\ndl-hard-passage\tbm25_rm3\texpansion\ncranfield\trrf\treranked\n"
         "dl-hard-passage\tbm25_t5-zs\treranked\ntrec-cast-2021\torg_manual_bm25\tbm25\n"
         "trec-cast-2021\torg_manual_ance\texpansion\ntrec-cast-2021\torg_manual_ance_bert\treranked\n")  # fmt: skip
FOLDERS = [SAMPLES / "cranfield", SAMPLES / "dl-hard-passage", SAMPLES / "trec-cast-2021"]


@pytest.fixture(scope="module")
def names(tmp_path_factory):
    path = tmp_path_factory.mktemp("names") / "names.tsv"
    path.write_text("collection\trun\tname\n" + NAMES)
    return path


@pytest.fixture(scope="module")
def result(names):
    from rankviz.studies import read_names

    return summarise(FOLDERS, baseline="bm25", measures=["nDCG@10", "AP"], names=read_names(names))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # statsmodels divides by Q = 0 when every effect is equal
@settings(max_examples=60, deadline=None)
@given(effects=st.lists(st.floats(-1, 1), min_size=2, max_size=8), seed=st.integers(0, 2**32 - 1))
def test_the_pooled_delta_is_statsmodels_dersimonian_laird(effects, seed) -> None:
    variances = np.random.default_rng(seed).uniform(1e-4, 0.05, len(effects))
    ours = dersimonian_laird(np.array(effects), variances)
    reference = combine_effects(np.array(effects), variances, method_re="dl")
    assume(ours["q"] > 1e-9)  # effects (nearly) equal: statsmodels' I2 = 1 - (k - 1) / Q is rounding noise; ours is 0
    assert ours["tau2"] == pytest.approx(max(reference.tau2, 0.0), abs=1e-12)
    assert ours["i2"] == pytest.approx(max(reference.i2, 0.0), abs=1e-12)
    if reference.tau2 >= 0:  # statsmodels does not floor tau2: its pooled estimate is ours where tau2 is not negative
        low, high = reference.conf_int(use_t=False)[1]
        assert ours["delta"] == pytest.approx(reference.mean_effect_re, abs=1e-12)
        assert (ours["ci_low"], ours["ci_high"]) == pytest.approx((low, high), abs=1e-12)


def test_each_collections_delta_is_the_paired_t_interval_of_its_differences(result) -> None:
    row = result.collections.query("collection == 'DL-HARD (passage)' and run == 'reranked' and measure == 'AP'").iloc[0]
    evaluation = rv.Study.open(SAMPLES / "dl-hard-passage", ["bm25", "bm25_t5-zs"], measures=["AP"]).evaluation()
    matrix = evaluation.matrix(evaluation.measures[0])
    test = stats.ttest_rel(matrix["bm25_t5-zs"], matrix["bm25"])
    interval = test.confidence_interval(0.95)
    assert row["measure_here"] == "AP(rel=2)" and "relevant from grade 2" in row["conventions"]  # its own conventions
    assert row["delta"] == pytest.approx((matrix["bm25_t5-zs"] - matrix["bm25"]).mean(), abs=1e-12)
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((interval.low, interval.high), abs=1e-12)
    assert row["n"] == len(matrix)


def test_the_pooled_rows_wins_and_ranks(result) -> None:
    pooled = result.pooled.set_index(["run", "measure"])
    per = result.collections.query("measure == 'nDCG@10' and run == 'expansion'")
    reference = combine_effects(per["delta"].to_numpy(), per["variance"].to_numpy(), method_re="dl")
    assert pooled.loc[("expansion", "nDCG@10"), "delta"] == pytest.approx(reference.mean_effect_re, abs=1e-12)
    assert pooled.loc[("expansion", "nDCG@10"), ["wins", "ties", "losses"]].tolist() == [2, 0, 1]  # DL-HARD loses
    assert pooled.loc[("reranked", "nDCG@10"), "mean_rank"] == 1.0 and pooled.loc[("reranked", "nDCG@10"), "borda"] == 6.0


def test_standardised_deltas_divide_by_each_collections_sd(names) -> None:
    from rankviz.studies import read_names

    standardised = summarise(FOLDERS[:2], baseline="bm25", runs=["reranked"], measures=["AP"], names=read_names(names),
                             standardised=True)  # fmt: skip
    row = standardised.collections.query("collection == 'Cranfield'").iloc[0]
    matrix = rv.Study.open(SAMPLES / "cranfield", ["bm25", "rrf"], measures=["AP"]).evaluation().matrix("AP")
    differences = matrix["rrf"] - matrix["bm25"]
    assert row["delta"] == pytest.approx(differences.mean() / differences.std(ddof=1), abs=1e-12)


def test_the_command_prints_json_and_gates_on_the_pooled_delta(names, capsys) -> None:
    folders = [str(f) for f in FOLDERS]
    assert main(["summary", *folders, "--baseline", "bm25", "--names", str(names), "-m", "nDCG@10", "--format", "json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert set(payload) == {"collections", "pooled"}
    assert set(payload["collections"][0]) == {"collection", "run", "measure", "mean", "delta", "ci_low", "ci_high", "n"}
    assert set(payload["pooled"][0]) == {"run", "measure", "delta", "ci_low", "ci_high", "tau2", "i2"}
    # expansion's pooled interval reaches below 0: not better; reranked's lies above 0
    assert main(["summary", *folders, "--baseline", "bm25", "--names", str(names), "--fail-if", "not-better"]) == 1
    err = capsys.readouterr().err
    assert "gate failed: expansion against bm25 on nDCG@10 over 3 collections" in err and "reranked" not in err
    assert main(["summary", *folders, "--baseline", "bm25", "--names", str(names), "--fail-if", "worse"]) == 0
    assert main(["summary", *folders[:2], "--baseline", "bm25"]) == 2  # no run but the baseline in both
    assert "no run besides the baseline is in every collection" in capsys.readouterr().err
