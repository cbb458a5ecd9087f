"""The two-way ANOVA without replication (#42): Sakai's book's Table 5.1 (20 topics x 3 systems,
nDCG@5, as elinor keeps it) to the book's digits, statsmodels' ``anova_lm`` on generated matrices,
the margin of error scipy's t quantile, the topic set size the fewest topics reaching a target, on
runs and on a per-query score table."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
import statsmodels.formula.api as smf
from conftest import ROOT, run_cli
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import rankviz as rv
from rankviz.analyses.anova import two_way_anova
from rankviz.errors import OptionError

#: Sakai, "Laboratory Experiments in Information Retrieval" (2018), Table 5.1: nDCG@5 of three
#: systems on 20 topics (the values elinor's tests cite from the book)
TABLE_5_1 = pd.DataFrame(
    {
        "A": [0.7, 0.3, 0.2, 0.6, 0.4, 0.4, 0.0, 0.7, 0.1, 0.3]
        + [0.5, 0.4, 0.0, 0.6, 0.5, 0.3, 0.1, 0.5, 0.2, 0.1],
        "B": [0.5, 0.1, 0.0, 0.2, 0.4, 0.3, 0.0, 0.5, 0.3, 0.3]
        + [0.4, 0.4, 0.1, 0.4, 0.2, 0.1, 0.1, 0.6, 0.3, 0.2],
        "C": [0.0, 0.0, 0.2, 0.1, 0.3, 0.3, 0.1, 0.2, 0.4, 0.4]
        + [0.4, 0.3, 0.3, 0.2, 0.2, 0.2, 0.1, 0.5, 0.4, 0.3],
    }
)


def _statsmodels(matrix: pd.DataFrame) -> pd.DataFrame:
    long = matrix.rename_axis("topic").reset_index().melt("topic", var_name="system")
    return sm.stats.anova_lm(smf.ols("value ~ C(system) + C(topic)", long).fit())


def test_the_books_table_5_1() -> None:
    result = two_way_anova(TABLE_5_1, measure="nDCG@5")
    assert (result.ss_system, result.ss_topic, result.ss_residual) == pytest.approx(
        (0.1083, 1.0293, 0.8317), abs=5e-5
    )
    assert (result.ms_system, result.ms_topic, result.residual_variance) == pytest.approx(
        (0.0542, 0.0542, 0.0219), abs=5e-5
    )
    assert result.f_system == pytest.approx(2.475, abs=5e-4)
    assert result.p_system == pytest.approx(0.098, abs=5e-4)
    assert result.p_topic == pytest.approx(0.009, abs=5e-4)
    assert (result.df_system, result.df_topic, result.df_residual) == (2, 19, 38)


@settings(deadline=None, max_examples=30)
@given(
    systems=st.integers(2, 6),
    topics=st.integers(3, 40),
    seed=st.integers(0, 2**32 - 1),
)
@pytest.mark.slow
def test_f_p_and_the_residual_are_statsmodels(systems: int, topics: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    matrix = pd.DataFrame(
        rng.random((topics, 1)) + 0.3 * rng.random((1, systems)) + rng.random((topics, systems)),
        columns=[f"s{i}" for i in range(systems)],
    )
    result = two_way_anova(matrix)
    table = _statsmodels(matrix)
    system, topic, residual = table.loc["C(system)"], table.loc["C(topic)"], table.loc["Residual"]
    assert result.f_system == pytest.approx(system["F"], rel=1e-9)
    assert result.p_system == pytest.approx(system["PR(>F)"], rel=1e-9, abs=1e-300)
    assert result.f_topic == pytest.approx(topic["F"], rel=1e-9)
    assert result.p_topic == pytest.approx(topic["PR(>F)"], rel=1e-9, abs=1e-300)
    assert result.residual_variance == pytest.approx(residual["mean_sq"], rel=1e-9)
    # partial omega squared from statsmodels' sums of squares (Olejnik & Algina's formula)
    n = systems * topics
    v_e = residual["mean_sq"]
    want = (system["sum_sq"] - system["df"] * v_e) / (system["sum_sq"] + (n - system["df"]) * v_e)
    assert result.omega2_system == pytest.approx(want, rel=1e-9)
    moe = stats.t.ppf(0.975, residual["df"]) * np.sqrt(v_e / topics)
    assert result.moe == pytest.approx(moe, rel=1e-12)


def test_the_topic_set_size_is_the_fewest_topics_reaching_the_target() -> None:
    result = two_way_anova(TABLE_5_1)
    for target in (0.1, 0.05, 0.02, 0.001, 1e-4):  # up to some hundred thousand topics
        n = result.topics_for(target)
        assert result.margin_of_error(n) <= target < result.margin_of_error(n - 1)
    assert result.topics_for(result.moe) <= 20  # the margin the table itself has
    assert result.topics_for(10.0) == 2  # any two topics reach it
    with pytest.raises(OptionError, match="up to 10\\^7 topics"):
        result.topics_for(1e-7)


def test_a_topic_some_system_lacks_is_left_out() -> None:
    gappy = TABLE_5_1.copy()
    gappy.loc[3, "B"] = np.nan
    assert two_way_anova(gappy).topics == 19
    assert two_way_anova(gappy).f_system == pytest.approx(
        two_way_anova(TABLE_5_1.drop(index=3)).f_system, rel=1e-15
    )
    with pytest.raises(OptionError, match="two or more topics"):
        two_way_anova(TABLE_5_1.iloc[:1])


def test_the_command_on_a_score_table_gives_the_json_keys(tmp_path) -> None:
    long = TABLE_5_1.rename_axis("query").reset_index().melt("query", var_name="run")
    long.assign(measure="nDCG@5").to_csv(tmp_path / "book.tsv", sep="\t", index=False)
    done = run_cli("anova", str(tmp_path / "book.tsv"), "--format", "json", "--target-moe", "0.05")
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    want = two_way_anova(TABLE_5_1)
    for key in ("f_system", "p_system", "f_topic", "p_topic", "residual_variance", "moe"):
        assert got[key] == pytest.approx(getattr(want, key), rel=1e-12), key
    assert got["omega2_system"] == pytest.approx(want.omega2_system, rel=1e-12)
    assert got["topics_needed"] == want.topics_for(0.05)


def test_the_command_on_runs_is_the_librarys_on_the_evaluation() -> None:
    folder = ROOT / "sample_data" / "cranfield"
    done = run_cli("anova", str(folder), "-m", "AP", "--format", "json")
    assert done.returncode == 0, done.stderr
    matrix = rv.Study.open(rv.StudyRequest(folder, measures=["AP"])).evaluation().matrix("AP")
    table = _statsmodels(matrix)
    got = json.loads(done.stdout)
    assert got["f_system"] == pytest.approx(table.loc["C(system)", "F"], rel=1e-9)
    assert got["topics"] == len(matrix) and len(got["systems"]) == matrix.shape[1]
