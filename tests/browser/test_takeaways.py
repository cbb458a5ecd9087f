"""What a team carries out of the meeting, downloaded from the page as a person does (#66)."""

from __future__ import annotations

import io
import subprocess
import sys

import pandas as pd
import pytest
from browsing import (
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
