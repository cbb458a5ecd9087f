"""AppTest of the checks in the app: a banner on every page, the list on the Overview, the queries
of the query view marked; the documents that count (depth, identical ids) from the sidebar and the
URL."""

from __future__ import annotations

import pytest
from apptest import shown, start
from conftest import ROOT

import rankviz as rv
from rankviz.study import CHECK

PAGES = ("overview", "deltas", "histograms", "significance", "metric_choice", "ties", "unjudged")


@pytest.mark.parametrize(
    "page",
    [p if p in ("overview", "deltas") else pytest.param(p, marks=pytest.mark.slow) for p in PAGES],
)
@pytest.mark.few
def test_a_warning_of_the_checks_is_a_banner_on_every_page(page: str) -> None:
    at = start(page, collection="trec-cast-2021")
    assert not at.exception
    banners = [shown(w) for w in at.warning if shown(w).startswith("Checks:")]
    assert len(banners) == 1 and "depth-differs" in banners[0], [shown(w) for w in at.warning]
    assert ("The Overview lists every finding" in banners[0]) == (page != "overview")


@pytest.mark.slow
def test_the_overview_lists_every_finding_and_a_depth_ends_the_warning() -> None:
    at = start("overview", collection="trec-cast-2021")
    findings = next(d.value for d in at.dataframe if "code" in d.value.columns)
    assert {"depth-differs", "qid-mismatch", "unretrieved-relevant"} <= set(findings["code"])
    expected = rv.Study.open(rv.StudyRequest(ROOT / "sample_data" / "trec-cast-2021")).ask(CHECK)
    assert len(findings) == len(expected.findings)
    cut = start("overview", collection="trec-cast-2021", depth="93")
    assert not cut.exception and not [w for w in cut.warning if shown(w).startswith("Checks:")]
    assert any("run depth: the first 93 documents" in shown(c) for c in cut.caption)


def test_the_documents_that_count_give_the_command_lines_numbers() -> None:
    at = start("overview", runs="bm25,dense", depth="5", ignore_identical_ids="1")
    assert not at.exception
    means = at.dataframe[0].value
    expected = (
        rv.Study.open(
            rv.StudyRequest(
                ROOT / "sample_data" / "cranfield",
                ["bm25", "dense"],
                options={"depth": 5, "ignore_identical_ids": True},
            )
        )
        .evaluation()
        .means()
    )
    for run in means.index:
        for measure in means.columns:
            assert means.loc[run, measure] == pytest.approx(
                expected.loc[run, measure], abs=1e-12
            ), (run, measure)
    plain = start("overview", runs="bm25,dense").dataframe[0].value
    assert (plain != means).any().any()  # the cut changed numbers
    assert at.query_params["depth"] == "5" and at.query_params["ignore_identical_ids"] == "1"


def test_the_query_view_says_what_the_checks_found_about_its_query() -> None:
    at = start("deltas", runs="bm25,dense", baseline="bm25", run="dense", query="22")
    assert not at.exception
    assert any("Check: note: unretrieved-relevant" in shown(i) for i in at.info)
    queue = at.dataframe[0].value
    assert "check" in queue.columns
    other = start("deltas", runs="bm25,dense", baseline="bm25", run="dense", query="1")
    assert not any("Check:" in shown(i) for i in other.info)
