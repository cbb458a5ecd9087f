"""The Query features page: the correlations are the library's (scipy's rho, tested in
tests/reference/test_features.py), one chart per numeric feature, a click on a query links it
into the Per-query deltas page."""

from __future__ import annotations

import pytest
from apptest import figure, shown, start
from conftest import ROOT

import rankviz as rv
from rankviz.study import FEATURE_REPORT


@pytest.mark.slow
def test_the_page_shows_the_librarys_correlations_and_a_chart_each() -> None:
    folder = ROOT / "sample_data" / "dl-hard-passage"
    study = rv.Study.open(rv.StudyRequest(folder, measures=["nDCG@10"]))
    baseline, run = study.run_names[:2]
    at = start(
        "features", collection="dl-hard-passage", baseline=baseline, run=run, measure="nDCG@10",
        measures="nDCG@10",
    )  # fmt: skip
    assert not at.exception and not at.error
    table = at.dataframe[0].value.set_index("feature")
    report = study.ask(FEATURE_REPORT, rv.parse("nDCG@10"), run, baseline, k=10)
    for feature in report.numeric:
        assert table.loc[feature.name, "spearman_rho"] == pytest.approx(feature.rho, abs=1e-12)
    charts = at.get("plotly_chart")
    assert len(charts) == len(report.numeric)
    points = figure(at, 0)["data"][2]
    assert len(points["x"]) == report.numeric[0].queries
    assert [shown(h) for h in at.subheader][: len(report.numeric)] == [
        f.name for f in report.numeric
    ]


@pytest.mark.slow
def test_a_fused_run_joins_the_runs_with_the_librarys_numbers() -> None:
    """The sidebar's "Add a fused run": bm25 and dense by RRF join the runs as
    ``rrf60(bm25+dense)``, selected, with the AP of the library's fusion of the same runs cut at
    the deepest of them (100 a query, where the union went to 155), and no warning about it."""
    from rankviz.study.fusing import Recipe, fused_run

    at = start(collection="cranfield", runs="bm25,dense", measures="AP")
    assert not at.exception and not at.error
    at.sidebar.multiselect(key="fuse.runs").set_value(["bm25", "dense"]).run()
    at.sidebar.button(key="fuse.add").click().run()
    assert not at.exception and not at.error
    means = at.dataframe[0].value
    assert "rrf60(bm25+dense)" in means.index
    folder = ROOT / "sample_data" / "cranfield"
    runs = [rv.read_run(folder / "runs" / f"{n}.run.gz", name=n) for n in ("bm25", "dense")]
    fused = fused_run(runs, Recipe("rrf", 60), depth=100)  # Cranfield's runs rank 100 a query
    want = rv.evaluate(rv.read_qrels(folder / "qrels.txt"), fused, ["AP"]).mean("AP", fused.name)
    assert means.loc["rrf60(bm25+dense)", "AP"] == pytest.approx(want, abs=1e-12)
    # no deeper than its runs: the checks find no depths that differ (it was 155 against 100)
    assert not [w for w in at.warning if "different depths" in shown(w)]
