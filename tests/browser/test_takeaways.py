"""What a team carries out of the meeting, downloaded from the page as a person does (#66)."""

from __future__ import annotations

import io
import subprocess
import sys

import pandas as pd
import pytest
from browsing import (
    CAPTION_CONTRAST,
    chromium_browser,  # noqa: F401 (the ``browser`` fixture)
    open_page,
    streamlit_server,
)
from conftest import CRANFIELD, ROOT

from rankviz.io.collection import open_collection
from rankviz.io.meeting import MeetingStore

pytestmark = pytest.mark.browser


def _cli_means(qrels: str, db) -> pd.DataFrame:
    done = subprocess.run(
        [sys.executable, "-m", "rankviz", "evaluate", str(CRANFIELD), "--judgments", str(db)]
        + ["--qrels", qrels, "--format", "tsv"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    table = pd.read_csv(io.StringIO(done.stdout), sep="\t", dtype={"qid": str})
    return table[table["qid"] == "all"].set_index(["run", "measure"])["value"]


def test_the_meeting_report_downloaded_has_every_runs_means_as_evaluate(browser, tmp_path) -> None:
    """The report's means table lists every run; outside the pair the meeting discussed, the
    "qrels file" column showed the values with the meeting's judgments (24 of 42 rows wrong on
    Cranfield). Each of its numbers is `rankviz evaluate`'s under the same qrels, to the 4 digits
    it prints."""
    db = tmp_path / "meeting.sqlite"
    collection = open_collection(CRANFIELD)
    rows = []
    for name in list(collection.run_paths):  # the top 3 of every run on 10 queries, re-graded
        run = collection.read_run(name).to_frame()
        top = run.sort_values(["qid", "score"], ascending=[True, False]).groupby("qid").head(3)
        top = top[top["qid"].astype(str).isin([str(q) for q in range(1, 11)])]
        rows += [
            (str(q), str(d), (len(rows) + i) % 5)
            for i, (q, d) in enumerate(zip(top["qid"], top["docid"], strict=True))
        ]
    MeetingStore(db, collection="Cranfield").judge_many(
        list({(q, d): (q, d, g) for q, d, g in rows}.values()), by="Ann", via="typed name"
    )
    with streamlit_server("--notes", str(db)) as url:
        context = browser.new_context(
            viewport={"width": 1400, "height": 1000}, accept_downloads=True
        )
        page = context.new_page()
        page.set_default_timeout(60_000)
        open_page(page, f"{url}/deltas?query=1")
        with page.expect_download() as download:
            page.get_by_role("button", name="Meeting report (HTML)").click()
        means = pd.read_html(download.value.path())[0].set_index(["run", "measure"])
        context.close()
    assert set(means.index.get_level_values("run")) == set(list(collection.run_paths))
    for qrels, column in (("file", "qrels file"), ("meeting", "with the meeting's")):
        expected = _cli_means(qrels, db)
        shown = means[column]
        assert len(shown) == len(expected)
        for (run, measure), value in expected.items():
            assert shown.loc[(run, measure)] == pytest.approx(round(value, 4), abs=1e-9), (
                qrels,
                run,
                measure,
            )


@pytest.fixture(scope="module")
def server():
    with streamlit_server() as url:
        yield url


def test_every_caption_of_every_page_reads_at_4_5_to_1(browser, server) -> None:
    """WCAG AA's 4.5:1 for every caption, not the first alone: Across collections' captions in
    columns kept Streamlit's 60% (3.89:1); the plain pages had no readable style at all."""
    from rankviz.app.frame.pages import PAGES

    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    page.set_default_timeout(60_000)
    for spec in PAGES:
        open_page(
            page, f"{server}/{'' if spec.key == 'overview' else spec.key}?runs=bm25,dense,rrf"
        )
        page.get_by_role("heading", name=spec.title, exact=True).wait_for()
        assert page.evaluate(CAPTION_CONTRAST) >= 4.5, spec.key
    context.close()


def test_the_recorded_notice_leaves_the_qrels_in_force_in_sight(browser, tmp_path) -> None:
    """'Recorded by Ann: ...' showed for ten seconds over the top right corner, where the choice
    of the qrels in force is: the notice now sits at the bottom, clear of it, at 1280x720."""
    from test_browser import _give_name, _type_grade

    db = tmp_path / "meeting.sqlite"
    MeetingStore(db, collection="Cranfield").judge("2", "12", 1, by="Bob", via="typed name")
    with streamlit_server("--notes", str(db)) as url:
        context = browser.new_context(viewport={"width": 1280, "height": 720})
        page = context.new_page()
        page.set_default_timeout(60_000)
        open_page(page, f"{url}/deltas?query=1")
        page.get_by_role("heading", name="The meeting's record").wait_for()
        _give_name(page, "Ann")
        _type_grade(page, 0, "2")
        notice = page.locator('[data-testid="stToast"]').filter(has_text="Recorded by Ann")
        notice.wait_for()
        page.locator('[data-testid="stMainBlockContainer"]').evaluate("e => e.scrollIntoView()")
        choice = page.locator('[data-testid="stRadio"]').filter(has_text="Qrels in force")
        choice.wait_for()
        said, chosen = notice.bounding_box(), choice.bounding_box()
        apart = (
            said["y"] >= chosen["y"] + chosen["height"]
            or chosen["y"] >= said["y"] + said["height"]
            or said["x"] >= chosen["x"] + chosen["width"]
            or chosen["x"] >= said["x"] + said["width"]
        )
        assert apart, (said, chosen)
        assert said["y"] + said["height"] <= 720  # on screen
        context.close()
