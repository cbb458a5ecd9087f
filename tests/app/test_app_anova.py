"""The Significance page's two-way ANOVA: the table is statsmodels' ``anova_lm`` on the selected
runs' values, on runs and on a collection of per-query scores alone."""

from __future__ import annotations

import pandas as pd
import pytest
import statsmodels.api as sm
import statsmodels.formula.api as smf
from apptest import shown, start
from conftest import CRANFIELD

import rankviz as rv


def _statsmodels(matrix: pd.DataFrame) -> pd.DataFrame:
    long = matrix.rename_axis("topic").reset_index().melt("topic", var_name="system")
    return sm.stats.anova_lm(smf.ols("value ~ C(system) + C(topic)", long).fit())


def test_the_anova_table_is_statsmodels() -> None:
    runs = ["bm25", "dense", "rrf"]
    at = start("significance", collection="cranfield", runs=",".join(runs), measure="AP")
    assert not at.exception and not at.error
    table = next(d.value for d in at.dataframe if "omega2" in d.value.columns)
    matrix = (
        rv.Study.open(rv.StudyRequest(CRANFIELD, runs, measures=["AP"])).evaluation().matrix("AP")
    )
    reference = _statsmodels(matrix)
    assert table.loc["system", "F"] == pytest.approx(reference.loc["C(system)", "F"], rel=1e-9)
    assert table.loc["topic", "F"] == pytest.approx(reference.loc["C(topic)", "F"], rel=1e-9)
    assert table.loc["residual", "mean_sq"] == pytest.approx(
        reference.loc["Residual", "mean_sq"], rel=1e-9
    )
    assert any("topics would bring that to" in shown(c) for c in at.caption)
