"""The dashboard in a real browser: Debian's chromium driven by Playwright against `streamlit run`.

Skips (with the reason) where chromium is missing; fails instead when CI is set.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from apptest import FORMULA, IMAGE, LINK
from browsing import (
    CAPTION_CONTRAST,
    _free_port,
    choose,
    chromium_browser,  # noqa: F401 (the ``browser`` fixture)
    judging_grid,
    open_page,
    read_conventions,
    serving,
    settled,
    streamlit_server,
)
from conftest import ROOT

from rankviz.app.frame.pages import PAGES
from rankviz.io.collection import open_collection
from rankviz.io.meeting import MeetingStore


@pytest.fixture(scope="module")
def server():
    with streamlit_server() as url:
        yield url


@pytest.fixture
def page(browser, server):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(60_000)
    yield page
    context.close()


@pytest.mark.parametrize(
    ("path", "header"),
    [
        ("", "Overview"),
        ("deltas", "Per-query deltas"),
        ("histograms", "Rank histograms"),
        ("significance", "Significance"),
        ("ties", "Ties"),
        ("unjudged", "Unjudged documents"),
        ("metric_choice", "Metric choice"),
        # runs named alike in every sample collection: the baseline alone; a row pairs two more
        ("across?compared=1", "Across collections"),
    ],
)
def test_each_page_renders_its_figure(page, server, path, header) -> None:
    open_page(page, f"{server}/{path}")
    page.get_by_role("heading", name=header, exact=True).wait_for()
    page.locator(".js-plotly-plot").first.wait_for()
    assert page.locator(".js-plotly-plot").count() >= 1
    assert page.get_by_text("Traceback").count() == 0


def test_change_measure_and_open_a_query_view(page, server) -> None:
    open_page(page, f"{server}/deltas?baseline=bm25&run=dense")
    page.get_by_role("heading", name="Per-query deltas").wait_for()
    choose(page, "Measure", "nDCG@10")
    page.wait_for_function("location.search.includes('measure=nDCG%4010')")
    page.get_by_text("nDCG@10: dense minus bm25, per query (sorted)").first.wait_for()
    query_box = page.locator('[data-testid="stSelectbox"]').filter(has_text="Query").first
    query_box.click()
    page.keyboard.type("3: what problems of heat")
    page.get_by_role("option").filter(has_text="3: what problems of heat").first.click()
    page.wait_for_function("location.search.includes('query=3')")
    _markdown(page, "what problems of heat conduction").wait_for()


def _upload_run(page, name: str, data: bytes) -> None:
    """Open the sidebar's uploader and give it one run file, as a person does."""
    page.get_by_text("Add your own runs, qrels and scores").click()
    kind = "application/gzip" if name.endswith(".gz") else "text/plain"
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').first.set_input_files(
        files=[{"name": name, "mimeType": kind, "buffer": data}]
    )


def test_malformed_upload_shows_a_message_not_a_traceback(page, server) -> None:
    open_page(page, server)
    _upload_run(page, "broken.run", b"1 Q0 486 1 0.9 t\n1 Q0 51 2 high t\n")
    page.get_by_text("Run not loaded").wait_for()
    message = page.get_by_text("Run not loaded").inner_text()
    assert "broken.run, line 2" in message and "score 'high' is not a number" in message
    assert page.get_by_text("Traceback").count() == 0


def _markdown(page, text: str):
    """Text shown as markdown (not a table's cell, which the grid may keep hidden)."""
    return page.locator('[data-testid="stMarkdownContainer"]').filter(has_text=text).first


def _param(page, name: str) -> str | None:
    return page.evaluate(f"new URLSearchParams(location.search).get({name!r})")


def _selected(page, label: str) -> str:
    box = page.locator('[data-testid="stSelectbox"]').filter(has_text=label).first
    return box.get_by_role("combobox").input_value()


def test_clicking_a_delta_bar_opens_that_query_and_the_selector_follows(page, server) -> None:
    open_page(page, f"{server}/deltas?baseline=bm25&run=dense&measure=AP")
    page.get_by_role("heading", name="Per-query deltas").wait_for()
    first = _param(page, "query")  # the queue's first query is open
    chart = page.locator(".js-plotly-plot").first
    chart.scroll_into_view_if_needed()
    # the largest gain: the queue opened the largest loss
    bar = chart.locator("g.point path").first.bounding_box()
    # plotly's drag layer takes the click
    page.mouse.click(bar["x"] + bar["width"] / 2, bar["y"] + bar["height"] / 2)
    page.wait_for_function(f"new URLSearchParams(location.search).get('query') !== {first!r}")
    query = _param(page, "query")
    text = open_collection(ROOT / "sample_data" / "cranfield").queries[query]
    _markdown(page, text[:30]).wait_for()  # the query view shows the clicked query
    page.wait_for_function(
        "document.querySelector('input[aria-label=\"Query\"]')"
        f".value.startsWith({(query + ': ')!r})"
    )
    page.locator('[data-testid="stRadio"]').filter(has_text="Depth").get_by_text(
        "20", exact=True
    ).click()
    page.wait_for_function("location.search.includes('depth=20')")
    # no jump back
    assert _param(page, "query") == query and _selected(page, "Query").startswith(f"{query}: ")
    assert page.get_by_text("Traceback").count() == 0


def test_browser_back_undoes_a_change(page, server) -> None:
    open_page(page, f"{server}/deltas?baseline=bm25&run=dense&measure=AP")
    page.get_by_role("heading", name="Per-query deltas").wait_for()
    choose(page, "Measure", "nDCG@10")
    page.wait_for_function("location.search.includes('measure=nDCG%4010')")
    page.get_by_text("nDCG@10: dense minus bm25").first.wait_for()
    page.go_back()
    page.wait_for_function("new URLSearchParams(location.search).get('measure') === 'AP'")
    page.get_by_text("AP: dense minus bm25").first.wait_for()
    assert _selected(page, "Measure") == "AP"


def test_page_settings_follow_the_presenter_between_pages(page, server) -> None:
    open_page(page, f"{server}/deltas?baseline=bm25&run=dense&measure=AP")
    page.get_by_role("heading", name="Per-query deltas").wait_for()
    choose(page, "Baseline", "qld")
    page.wait_for_function("location.search.includes('baseline=qld')")
    page.locator('[data-testid="stSidebarNav"]').get_by_text("Significance", exact=True).click()
    page.get_by_role("heading", name="Significance").wait_for()
    choose(page, "Test", "randomization: paired randomization (sign flips)")
    page.wait_for_function("location.search.includes('test=randomization')")
    assert _selected(page, "Baseline") == "qld"
    page.locator('[data-testid="stSidebarNav"]').get_by_text("Overview", exact=True).click()
    page.get_by_role("heading", name="Overview").wait_for()
    # the Overview marks use the Significance page's test
    page.get_by_text("randomization test").first.wait_for()
    page.locator('[data-testid="stSidebarNav"]').get_by_text("Per-query deltas", exact=True).click()
    page.get_by_role("heading", name="Per-query deltas").wait_for()
    assert _selected(page, "Baseline") == "qld" and _selected(page, "Measure") == "AP"
    link = page.url  # the whole view: a colleague opening it sees the same screen
    other = page.context.browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    open_page(other, link)
    other.get_by_role("heading", name="Per-query deltas").wait_for()
    assert _selected(other, "Baseline") == "qld" and _selected(other, "Query") == _selected(
        page, "Query"
    )
    other.context.close()


def test_an_upload_joins_the_selection_and_says_so(page, server) -> None:
    open_page(page, server)
    _upload_run(
        page,
        "mine.run.gz",
        (ROOT / "sample_data" / "cranfield" / "runs" / "bm25.run.gz").read_bytes(),
    )
    page.get_by_text("Added the run mine from mine.run.gz").wait_for()
    page.wait_for_function(
        "new URLSearchParams(location.search).get('runs').split(',').includes('mine')"
    )
    notice = page.get_by_text("Added the run mine from mine.run.gz").bounding_box()
    assert notice["y"] < 400  # at the top of the page, not below the fold
    assert page.get_by_text("Traceback").count() == 0


def test_an_uploaded_scores_file_joins_the_measures(page, server) -> None:
    """The third uploader takes per-query scores: named at the top, offered among the measures."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    open_page(page, server)
    page.get_by_text("Add your own runs, qrels and scores").click()
    rows = "run\tquery\tmeasure\tvalue\n" + "".join(
        f"{run}\t{q}\tjudge\t0.{q}\n" for run in ("bm25", "dense") for q in range(1, 9)
    )
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').nth(2).set_input_files(
        files=[{"name": "judge.tsv", "mimeType": "text/plain", "buffer": rows.encode()}]
    )
    page.get_by_text("Added the scores judge from judge.tsv").wait_for()
    measures = page.locator('[data-testid="stMultiSelect"]').filter(has_text="Measures").first
    offered = page.get_by_role("option", name="judge", exact=True)
    # a rerun redraws the box and closes a list it had open (as choose() says): opened once the
    # app has settled, and again if the rerun took it
    for attempt in range(3):
        settled(page)
        measures.click()
        page.keyboard.type("judg")  # the list is long: filtered as a person does
        try:
            offered.wait_for(timeout=15_000)
            break
        except PlaywrightTimeout:
            if attempt == 2:
                raise
            page.keyboard.press("Escape")
    assert page.get_by_text("Traceback").count() == 0


def test_an_upload_stays_across_page_switches_until_removed(page, server) -> None:
    """Uploads belong to the browser session, not to the page that drew the uploader."""
    open_page(page, server)
    _upload_run(
        page,
        "mine.run.gz",
        (ROOT / "sample_data" / "cranfield" / "runs" / "bm25.run.gz").read_bytes(),
    )
    page.get_by_text("Added the run mine from mine.run.gz").wait_for()
    runs = page.locator('[data-testid="stMultiSelect"]').filter(has_text="Runs").first
    for title in ("Ties", "Significance", "Overview"):
        page.get_by_role("link", name=title, exact=True).click()
        page.get_by_role("heading", name=title, exact=True).wait_for()
        settled(page)
        runs.get_by_text("mine", exact=True).wait_for()
        assert page.get_by_text("uploaded in another browser session").count() == 0
    page.get_by_role("button", name="Remove mine.run.gz").click()
    page.get_by_role("button", name="Remove mine.run.gz").wait_for(state="detached")
    settled(page)
    assert runs.get_by_text("mine", exact=True).count() == 0
    assert page.get_by_text("Traceback").count() == 0


@pytest.fixture(params=["no record", "a record with judgments"])
def projector_server(request, server, tmp_path):
    """The shared server, or one whose meeting's record holds a judgment (the qrels-in-force
    choice then joins the top of the page)."""
    if request.param == "no record":
        yield server
        return
    from rankviz.io.meeting import MeetingStore

    notes = tmp_path / "notes"
    notes.mkdir()
    MeetingStore(notes / "cranfield.sqlite", collection="Cranfield").judge(
        "1", "184", 2, by="Ann", via="typed name"
    )
    with streamlit_server(env={"RANKVIZ_NOTES": str(notes)}) as url:
        yield url


def test_projector_mode_at_1280x720(browser, projector_server) -> None:
    server = projector_server
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    page.set_default_timeout(60_000)
    open_page(page, f"{server}/deltas?baseline=bm25&run=dense&measure=AP&present=1")
    page.get_by_role("heading", name="Per-query deltas").wait_for()
    page.wait_for_function(
        "getComputedStyle(document.querySelector('[data-testid=\"stAppViewContainer\"]')).fontSize "
        "=== '20px'"
    )
    assert not page.locator('[data-testid="stSidebar"]').is_visible()  # folded away
    assert page.locator('[data-testid="stSidebar"]').bounding_box()["width"] == 0
    # and out of the keyboard's way: Tab went through its 40 controls before the page's first
    page.wait_for_function(SIDEBAR_HIDDEN)
    header = page.locator('header[data-testid="stHeader"]').bounding_box()
    conventions = page.locator('[data-testid="stMain"] [data-testid="stExpander"] summary').first
    # the conventions' line is not under the header, and it is one line (it was four at 1280)
    assert conventions.bounding_box()["y"] >= header["y"] + header["height"]
    assert page.evaluate(CONVENTIONS_LINES) == 1
    # captions readable at a projector: WCAG AA's 4.5:1 (Streamlit's own grey is 3.8:1)
    assert page.evaluate(CAPTION_CONTRAST) >= 4.5
    # one screen per query: Previous/Next, the query, and both rankings with their grade cells,
    # unscrolled
    next_button = page.get_by_role("button", name="Next").bounding_box()
    box = judging_grid(page).bounding_box()
    assert next_button["y"] + next_button["height"] <= 720
    # ten rows of documents and their grades
    assert box["y"] + box["height"] <= 720 and box["height"] >= 29 * 10
    assert page.get_by_label("Note on this query").bounding_box()["y"] < 720
    # the name the judging needs is asked beside the grid, on the same screen (it was 4 below)
    name = page.get_by_role(
        "textbox", name="Your name (for the meeting's record; this browser remembers it)"
    )
    assert name.bounding_box()["y"] + name.bounding_box()["height"] <= 720
    # any document's text, with the query's words marked, opens over the first screen
    reader = page.get_by_role("button", name="Read a document")
    assert reader.bounding_box()["y"] + reader.bounding_box()["height"] <= 720
    reader.click()
    marked = page.locator('[data-testid="stPopoverBody"] mark').first
    marked.wait_for()
    assert marked.bounding_box()["y"] < 720
    context.close()


def test_the_first_judgment_does_not_move_the_judging_grid(browser, tmp_path) -> None:
    """At a projector the meeting's first judgment brings the "Qrels in force" choice in: its
    place is kept from the start (the choice shown, waiting), so the grid stays where it was."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    notes = tmp_path / "notes"
    notes.mkdir()
    with streamlit_server(env={"RANKVIZ_NOTES": str(notes)}) as url:
        context = browser.new_context(viewport={"width": 1280, "height": 720})
        page = context.new_page()
        page.set_default_timeout(60_000)
        link = f"{url}/deltas?baseline=bm25&run=dense&measure=AP&present=1&query=1"
        tops = []
        for judged in (False, True):
            if judged:  # a colleague's first grade, recorded as the grid records one
                MeetingStore(notes / "cranfield.sqlite", collection="Cranfield").judge(
                    "1", "184", 2, by="Ann", via="typed name"
                )
            open_page(page, link)
            page.get_by_role("heading", name="Per-query deltas").wait_for()
            grid = judging_grid(page)
            settled(page)  # the page drawn whole: the choice above the grid is there, or not
            choice = page.get_by_role("radiogroup").filter(has_text="meeting")
            assert choice.count() == (1 if judged else 0)
            if judged:  # once the page has drawn itself where it was before
                try:
                    page.wait_for_function(GRID_AT, arg=tops[0], timeout=30_000)
                except PlaywrightTimeout:
                    pass
            tops.append(grid.bounding_box()["y"])
        text = page.locator('[data-testid="stMain"]').inner_text()
        assert tops[0] == tops[1], text[:2000]
        context.close()


#: How many lines the conventions' line at the top of the page takes (its label's height in lines).
CONVENTIONS_LINES = """() => {
  const label = document.querySelector('[data-testid="stMain"] [data-testid="stExpander"] '
    + 'summary [data-testid="stMarkdownContainer"] p');
  const line = parseFloat(getComputedStyle(label).lineHeight);
  return Math.round(label.getBoundingClientRect().height / line);
}"""

#: The top of the page's first table is at ``top`` (the argument).
GRID_AT = """top => {
  const grid = [...document.querySelectorAll('[data-testid="stMain"] [data-testid="stDataFrame"]')]
    .find((table) => table.textContent.includes("qrels file"));
  return grid !== undefined && grid.getBoundingClientRect().top === top;
}"""


def test_the_navigation_groups_the_pages_by_the_question_they_answer(page, server) -> None:
    open_page(page, server)
    nav = page.locator('[data-testid="stSidebarNav"]')
    headers = nav.locator('[data-testid="stNavSectionHeader"]')
    headers.first.wait_for()
    assert headers.all_inner_texts() == [
        "Compare the runs",
        "Can we trust the numbers",
        "Beyond one set of runs",
    ]
    links = [t.strip() for t in nav.locator("a").all_inner_texts()]
    assert links == [spec.title for spec in PAGES]


def test_the_sidebar_marks_each_runs_chip_and_folds_the_conventions(page, server) -> None:
    """Each chosen run's chip carries the colour the run has in every figure (the CSS finds the
    chips where Streamlit draws them); the conventions sit behind one line saying they are
    trec_eval's."""
    from playwright.sync_api import expect

    from rankviz.plots import run_colours

    open_page(page, f"{server}/?runs=dense,bm25")
    sidebar = page.locator('[data-testid="stSidebar"]')
    chips = sidebar.locator('[data-testid="stMultiSelect"]').first.locator("[data-tag-index]")
    expect(chips).to_have_count(2)
    offered = list(open_collection(ROOT / "sample_data" / "cranfield").run_paths)
    colours = run_colours(offered)
    for chip, run in zip(chips.all(), ["dense", "bm25"], strict=True):
        assert run in chip.inner_text()
        red, green, blue = (int(colours[run][i : i + 2], 16) for i in (1, 3, 5))
        expect(chip).to_have_css("border-left-color", f"rgb({red}, {green}, {blue})")
    expect(sidebar.get_by_text("Conventions: trec_eval's")).to_be_visible()
    expect(sidebar.get_by_text("Tie policy", exact=True)).to_be_hidden()


def test_significance_page_changes_test_and_shows_the_forest_plot(page, server) -> None:
    open_page(page, f"{server}/significance?runs=bm25,dense,rrf&baseline=bm25&measure=AP")
    page.get_by_role("heading", name="Significance").wait_for()
    page.get_by_text("AP: difference from bm25 with confidence interval").first.wait_for()
    choose(page, "Test", "wilcoxon: Wilcoxon signed-rank")
    page.wait_for_function("location.search.includes('test=wilcoxon')")
    page.get_by_text("Wilcoxon signed-rank").first.wait_for()
    page.get_by_text("AP: adjusted p-values of all pairs").first.wait_for()
    assert page.get_by_text("Traceback").count() == 0


def test_across_collections_a_row_chosen_in_one_collection_moves_the_pooled_delta(
    page, server
) -> None:
    from rankviz.study.studies import summarise

    three = "cranfield,dl-hard-passage,trec-cast-2021"  # the samples with real runs
    open_page(page, f"{server}/across?compared=1&across_measure=AP&collections={three}")
    page.get_by_role("heading", name="Across collections", exact=True).wait_for()
    page.locator(".js-plotly-plot").first.wait_for()
    choose(page, "run 1", "rrf")  # the first column: Cranfield
    page.wait_for_function(
        "new URLSearchParams(location.search).get('rows.cranfield') === 'bm25,rrf'"
    )
    settled(page)
    rows = {
        name: _param(page, f"rows.{name}").split(",")
        for name in ("cranfield", "dl-hard-passage", "trec-cast-2021")
    }
    names = {name: {runs[0]: "base", runs[1]: "other"} for name, runs in rows.items()}
    expected = summarise(
        [ROOT / "sample_data" / name for name in rows],
        baseline="base",
        runs=["other"],
        measures=["AP"],
        names=names,
    ).pooled.iloc[0]
    pooled = page.evaluate("document.querySelector('.js-plotly-plot').data[1].x[0]")
    assert pooled == pytest.approx(expected["delta"], abs=1e-12)
    assert page.get_by_text("Traceback").count() == 0


def test_the_judgments_page_gives_the_commands_numbers_and_a_source_fills_the_files_holes(
    browser, tmp_path, capsys
) -> None:
    import json

    from apptest import judged_collection

    from rankviz.cli import main

    folder = judged_collection(tmp_path)
    runs = ["bm25", "bm25_t5-zs", "bm25_rm3"]
    assert (
        main(
            [
                "agreement",
                str(folder),
                f"{folder}:umbrela",
                *runs,
                "-m",
                "nDCG@10",
                "--format",
                "json",
            ]
        )
        == 0
    )
    expected = json.loads(capsys.readouterr().out)
    with streamlit_server(
        "--data", str(folder), env={"RANKVIZ_NOTES": str(tmp_path / "notes")}
    ) as url:
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        page = context.new_page()
        page.set_default_timeout(60_000)
        open_page(page, f"{url}/judgments?collection=judged&runs={','.join(runs)}&measures=nDCG@10")
        page.get_by_role("heading", name="Judgments", exact=True).wait_for()
        metric = page.locator('[data-testid="stMetric"]').filter(has_text="Cohen's kappa").first
        assert f"{expected['kappa']:.3f}" in metric.inner_text()
        pairs = page.locator('[data-testid="stMetric"]').filter(has_text="Pairs both judge").first
        assert f"{expected['pairs']:,}" in pairs.inner_text()
        _markdown(
            page,
            expected["verdicts"][0]
            .replace("qrels.txt", "file")
            .replace("qrels.umbrela.txt", "umbrela"),
        ).wait_for()
        page.locator(".js-plotly-plot").first.wait_for()  # the confusion of grades
        open_page(page, f"{url}/?collection=judged&runs={','.join(runs)}&measures=nDCG@10")
        # Qrels in force: the file with its holes filled
        page.get_by_text("file+umbrela", exact=True).click()
        page.wait_for_function(
            "new URLSearchParams(location.search).get('qrels') === 'file+umbrela'"
        )
        read_conventions(page, "holes filled by qrels.umbrela.txt (llm:gpt-4o)")
        assert page.get_by_text("Traceback").count() == 0
        context.close()


@pytest.mark.slow
def test_an_installed_package_serves_its_sample_collection_from_any_folder(
    browser, tmp_path
) -> None:
    """pip install of the checkout, then ``rankviz app`` from a folder that is not the checkout."""
    site = tmp_path / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--target",
            str(site),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
        text=True,
        timeout=600,
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {**os.environ, "PYTHONPATH": str(site), "RANKVIZ_NOTES": str(tmp_path / "notes")}
    missing = subprocess.run(
        [str(site / "bin" / "rankviz"), "evaluate", "sample_data/cranfield"],
        cwd=elsewhere,
        env=env,
        capture_output=True,
        text=True,
    )
    assert (
        missing.returncode == 2
        and "sample_data/cranfield: no such file or folder" in missing.stderr
    )
    port = _free_port()
    command = [str(site / "bin" / "rankviz"), "app", "--port", str(port), "--no-browser"]
    process = subprocess.Popen(
        command, cwd=elsewhere, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    url = f"http://127.0.0.1:{port}"
    try:
        serving(url, process)
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        page = context.new_page()
        page.set_default_timeout(60_000)
        open_page(page, url)
        page.get_by_role("heading", name="Overview", exact=True).wait_for()
        page.locator(".js-plotly-plot").first.wait_for()
        page.get_by_text("Cranfield").first.wait_for()
        open_page(page, f"{url}/deltas?baseline=bm25&run=dense&query=3")
        # the query text, from the package's files
        _markdown(page, "what problems of heat conduction").wait_for()
        assert page.get_by_text("Traceback").count() == 0
        context.close()
    finally:
        process.terminate()
        process.wait(timeout=20)


def test_metric_choice_answers_change_the_advice(page, server) -> None:
    open_page(page, f"{server}/metric_choice?runs=bm25,dense,rrf&measures=MRR,MRR@K,MAP,NDCG@K")
    page.get_by_role("heading", name="Metric choice", exact=True).wait_for()
    page.get_by_text("Kendall's tau between the run orderings").first.wait_for()
    radio = page.locator('[data-testid="stRadio"]').filter(has_text="One correct answer per query?")
    radio.get_by_text("yes", exact=True).click()
    page.wait_for_function("location.search.includes('one_answer=yes')")
    # one answer, graded, users who stop (guessed): ERR is the measure that honours all three
    page.wait_for_function(
        "document.body.innerText.replaceAll('\\u2060', '').includes('Report ERR@10: graded "
        "relevance and sequential browsing')"
    )
    assert page.get_by_text("Traceback").count() == 0


def test_group_by_control_on_dl_hard(page, server) -> None:
    open_page(
        page, f"{server}/?collection=dl-hard-passage&runs=bm25,bm25_t5-zs&measures=NDCG@K,MRR"
    )
    page.get_by_role("heading", name="Overview", exact=True).wait_for()
    choose(page, "Group queries by", "query_intent")
    page.wait_for_function("location.search.includes('group_by=query_intent')")
    page.get_by_role("heading", name="By query_intent").wait_for()
    page.get_by_text("nDCG@10 per group").first.wait_for()
    assert page.get_by_text("Traceback").count() == 0


def test_a_deep_link_is_the_first_request_of_a_fresh_server(browser) -> None:
    """Streamlit's pages/ discovery answers a fresh server's first request; the page hands over to
    the navigation: the link's state shows, and the sidebar lists the pages by their titles."""
    with streamlit_server() as url:
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        page = context.new_page()
        page.set_default_timeout(60_000)
        open_page(page, f"{url}/deltas?baseline=bm25&run=dense&measure=AP&query=27")
        page.get_by_role("heading", name="Per-query deltas").wait_for()
        text = open_collection(ROOT / "sample_data" / "cranfield").queries["27"]
        _markdown(page, text[:30]).wait_for()
        links = page.locator('[data-testid="stSidebarNav"] a').all_inner_texts()
        assert [link.strip() for link in links] == [p.title for p in PAGES]
        assert "not loaded" not in page.content() and page.get_by_text("Traceback").count() == 0
        assert "query=27" in page.url and "measure=AP" in page.url
        context.close()


def test_two_browsers_at_once_keep_their_own_views(browser, server) -> None:
    contexts = [browser.new_context(viewport={"width": 1400, "height": 1000}) for _ in range(2)]
    pages = [c.new_page() for c in contexts]
    for page in pages:
        page.set_default_timeout(60_000)
    pages[0].goto(f"{server}/deltas?baseline=bm25&run=dense&measure=AP&query=3")
    pages[1].goto(f"{server}/deltas?baseline=qld&run=rrf&measure=nDCG%4010&query=5")
    for page, title in zip(pages, ("AP: dense minus bm25", "nDCG@10: rrf minus qld")):
        page.wait_for_selector('[data-testid="stApp"]')
        page.get_by_text(title).first.wait_for()
    choose(pages[0], "Measure", "RR@10")
    pages[0].get_by_text("RR@10: dense minus bm25").first.wait_for()
    pages[1].reload()
    # the other session is untouched
    pages[1].get_by_text("nDCG@10: rrf minus qld").first.wait_for()
    assert "measure=nDCG%4010" in pages[1].url and "measure=RR%4010" in pages[0].url
    for context in contexts:
        context.close()


def test_dark_theme_renders_every_page(browser, server) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 720}, color_scheme="dark")
    page = context.new_page()
    page.set_default_timeout(60_000)
    for spec in PAGES:
        open_page(
            page, f"{server}/{'' if spec.key == 'overview' else spec.key}?runs=bm25,dense,rrf"
        )
        page.get_by_role("heading", name=spec.title, exact=True).wait_for()
        background = page.evaluate(
            "getComputedStyle(document.querySelector('[data-testid=\"stApp\"]')).backgroundColor"
        )
        red, green, blue = (
            int(v)
            for v in background[background.index("(") + 1 : background.index(")")].split(",")[:3]
        )
        assert red + green + blue < 150, f"{spec.key}: not dark ({background})"
        assert page.evaluate(CAPTION_CONTRAST) >= 4.5, spec.key
        assert page.get_by_text("Traceback").count() == 0
    context.close()


def test_a_hostile_collection_and_link_make_no_request_elsewhere_and_show_literally(
    browser, tmp_path
) -> None:
    from apptest import FORMULA, IMAGE, LINK, hostile_collection

    folder = hostile_collection(tmp_path)
    with streamlit_server("--data", str(folder)) as url:
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        page = context.new_page()
        page.set_default_timeout(60_000)
        requests: list[str] = []
        page.on("request", lambda request: requests.append(request.url))
        link = urllib.parse.quote(LINK)
        open_page(
            page,
            f"{url}/deltas?collection=hostile&measures=AP&baseline=b&run=%5Ba%5D(http:evil.example)&query=301&k={link}",
        )
        page.get_by_role("heading", name="Per-query deltas").wait_for()
        page.get_by_text("Query view").first.wait_for()
        settled(page)
        # word joiners keep links from forming
        text = page.evaluate("document.body.innerText").replace("\u2060", "")
        assert f"{LINK} <b>bold</b> {FORMULA}" in text  # the query text, literally
        assert f"k='{LINK}'" in text  # the link parameter's warning, literally
        assert f"{IMAGE} {FORMULA}" in text  # the description
        assert (
            page.locator('a[href*="evil.example"]').count() == 0
            and page.locator('img[src*="evil.example"]').count() == 0
        )
        assert page.locator(".katex").count() == 0
        elsewhere = [r for r in requests if not r.startswith((url, "data:", "blob:", "about:"))]
        assert not elsewhere, elsewhere
        context.close()


def _peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmHWM")


@pytest.mark.skipif(
    not Path("/proc/self/status").exists(), reason="reads the server's peak memory from /proc"
)
def test_a_gzip_bomb_upload_is_refused_with_bounded_memory(browser) -> None:
    import gzip

    # 1 GiB in about 1 MB
    bomb = gzip.compress(b"1 Q0 d 1 1.0 t\n" + b" " * (1024 * 2**20), compresslevel=9)
    with streamlit_server(env={"RANKVIZ_MAX_UPLOAD_MB": "64"}) as url:
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        page = context.new_page()
        page.set_default_timeout(60_000)
        open_page(page, url)
        baseline = _peak_rss_mb(streamlit_server.process.pid)
        _upload_run(page, "bomb.run.gz", bomb)
        page.get_by_text("decompresses to more than the limit of 64 MB").first.wait_for()
        peak = _peak_rss_mb(streamlit_server.process.pid)
        assert peak - baseline < 300, f"server peak grew from {baseline:.0f} MB to {peak:.0f} MB"
        context.close()


NAME_LABEL = "Your name (for the meeting's record; this browser remembers it)"
JUDGING = 2  # the judging table: the third table of the Deltas page (queue, aligned view, judging)


def _give_name(page, name: str) -> None:
    field = page.get_by_label(NAME_LABEL)
    field.fill(name)
    field.press("Enter")
    # the editor is open to this person
    page.get_by_text("Give your name above").wait_for(state="detached")
    settled(page)  # the editor, now editable, is drawn again


def _judging_cell(page, column: int, row: int) -> str:
    return (
        page.locator('[data-testid="stDataFrame"]')
        .nth(JUDGING)
        .locator(f"#glide-cell-{column}-{row}")
        .inner_text()
    )


def _cells_show(page, column: int, texts: list[str]) -> None:
    """The judging table's ``column`` shows ``texts`` in its first rows, once the rerun that brings
    them has drawn the grid (the message of a rerun appears before its grid is drawn again)."""
    from playwright.sync_api import expect

    grid = page.locator('[data-testid="stDataFrame"]').nth(JUDGING)
    for row, text in enumerate(texts):
        expect(grid.locator(f"#glide-cell-{column}-{row}")).to_have_text(text, timeout=30_000)


def _judge(page, row: int, grade: str) -> None:
    """Type a grade into the grade column (the sixth) of a row of the judging table, as a person
    does, and wait for it to be recorded."""
    _type_grade(page, row, grade)
    page.get_by_text("1 judgment(s) of query").wait_for()


def _type_grade(page, row: int, grade: str, *, confirm: bool = True) -> None:
    """Type a grade into the grade column (the sixth) of a row of the judging table (and confirm the
    cell), once the app has settled: a run still drawing (the one a name given starts) redraws the
    grid and takes an open editor with it."""
    settled(page)
    editor = page.locator('[data-testid="stDataFrame"]').nth(JUDGING)
    editor.scroll_into_view_if_needed()
    box = editor.locator("canvas").first.bounding_box()
    # the docid cell of the row (under the header)
    page.mouse.click(box["x"] + 30, box["y"] + 35 * (row + 1) + 17)
    focused = "cell => document.activeElement && document.activeElement.id === cell"
    # the grid moves the focus to the selected cell
    page.wait_for_function(focused, arg=f"glide-cell-0-{row}")
    for _ in range(5):
        page.keyboard.press("ArrowRight")
    page.wait_for_function(focused, arg=f"glide-cell-5-{row}")
    # typing on a cell opens its editor (an input over the grid) with what was typed
    page.keyboard.type(grade[0])
    page.wait_for_function(
        "document.activeElement && document.activeElement.classList.contains('gdg-input')"
    )
    page.keyboard.type(grade[1:])
    page.wait_for_function("value => document.activeElement.value === value", arg=grade)
    if confirm:
        page.keyboard.press("Enter")


def _query_shown(page) -> str:
    """The query of the query view, as the URL holds it."""
    from urllib.parse import parse_qs, urlsplit

    return parse_qs(urlsplit(page.url).query)["query"][0]


def _meeting_page(browser, url: str, path: str, name: str | None = "Ann"):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(60_000)
    open_page(page, f"{url}{path}")
    if name is not None:
        page.get_by_role("heading", name="The meeting's record").wait_for()
        _give_name(page, name)
    return context, page


def test_a_note_and_a_grade_typed_and_then_next_are_in_the_record(browser, tmp_path) -> None:
    """Nothing typed is lost: a note typed without Ctrl+Enter, and a grade typed in a cell whose
    editor is still open, are recorded on the query they were typed on when the person presses
    Next."""
    db = tmp_path / "meeting.sqlite"
    with streamlit_server("--notes", str(db)) as url:
        context, page = _meeting_page(
            browser, url, "/deltas?runs=bm25,dense&baseline=bm25&run=dense&measure=AP"
        )
        first = _query_shown(page)
        # no Ctrl+Enter
        page.get_by_label("Note on this query").fill("the run misses the definition")
        page.get_by_role("button", name="Next").click()
        page.get_by_text(f"Recorded by Ann: the note of query {first}").wait_for()
        page.wait_for_function(
            "first => new URLSearchParams(location.search).get('query') !== first", arg=first
        )
        settled(page)
        second = _query_shown(page)
        assert second != first
        docid = _judging_cell(page, 0, 0)
        _type_grade(page, 0, "3", confirm=False)  # the cell's editor still open
        page.get_by_role("button", name="Next").click()
        page.get_by_text(f"1 judgment(s) of query {second}").wait_for()
        settled(page)
        # that click closed the cell's editor: the grid took it, not Next
        if _query_shown(page) == second:
            page.get_by_role("button", name="Next").click()
        page.wait_for_function(
            "second => new URLSearchParams(location.search).get('query') !== second", arg=second
        )
        settled(page)
        third = _query_shown(page)
        page.get_by_role("textbox", name="New tag").fill("pool too shallow")  # no Enter
        page.get_by_role("button", name="Next").click()
        page.get_by_text(f"the tag pool too shallow of query {third}").wait_for()
        context.close()
    store = MeetingStore(db, create=False)
    assert store.notes() == {first: "the run misses the definition"}
    assert [(j.qid, j.docid, j.grade, j.by) for j in store.judgments()] == [
        (second, docid, 3, "Ann")
    ]
    assert store.tags() == {third: ["pool too shallow"]}


def test_a_reload_keeps_the_name_and_asks_before_unsent_typing_is_lost(browser, tmp_path) -> None:
    """A reload lost the person's name (the grid closed until it was typed again, four screens down
    at 720p). The browser now remembers it; and a reload or closed tab with a note typed but not
    applied asks first, as any unsaved form does."""
    db = tmp_path / "meeting.sqlite"
    with streamlit_server("--notes", str(db)) as url:
        context, page = _meeting_page(
            browser,
            url,
            "/deltas?runs=bm25,dense&baseline=bm25&run=dense&measure=AP",
            name="Ann <b>&</b>",
        )
        page.reload()
        page.get_by_role("heading", name="The meeting's record").wait_for()
        settled(page)
        from playwright.sync_api import expect

        expect(page.get_by_label(NAME_LABEL)).to_have_value("Ann <b>&</b>")
        # the grid is open to her at once
        assert page.get_by_text("Give your name above").count() == 0
        page.get_by_label("Note on this query").fill("typed, not applied")  # no Ctrl+Enter, no blur
        with page.expect_event("dialog") as asked:
            page.close(run_before_unload=True)
        assert asked.value.type == "beforeunload"
        asked.value.dismiss()  # stay on the page: the note is still there
        expect(page.get_by_label("Note on this query")).to_have_value("typed, not applied")
        context.close()


def test_a_grade_outside_the_scale_typed_in_the_grid_is_refused_and_nothing_is_clamped(
    browser, tmp_path
) -> None:
    """Cranfield's grades run 0-4: a typed 44 is refused with the grades named (not recorded, not
    made a 4); once the cell is corrected, the grade typed is recorded."""
    db = tmp_path / "meeting.sqlite"
    with streamlit_server("--notes", str(db)) as url:
        context, page = _meeting_page(browser, url, "/deltas?query=1")
        docid = _judging_cell(page, 0, 0)
        _type_grade(page, 0, "44")
        page.get_by_text("Not recorded").wait_for()
        alert = page.locator('[data-testid="stAlert"]').filter(has_text="Not recorded").inner_text()
        assert "grade 44 is not one of the grades of this collection: 0, 1, 2, 3, 4" in alert, alert
        assert not db.exists() or MeetingStore(db, create=False).judgments() == []
        _judge(page, 0, "2")  # the corrected cell
        context.close()
    assert [(j.qid, j.docid, j.grade) for j in MeetingStore(db, create=False).judgments()] == [
        ("1", docid, 2)
    ]


def test_two_people_judge_one_query_and_see_each_others_judgments(browser, tmp_path) -> None:
    """Two browser sessions on one server judge documents of the same query; each sees the other's
    judgment after a rerun; the Overview with the meeting's qrels shows the command line's means."""
    import hashlib

    import pandas as pd

    db = tmp_path / "meeting.sqlite"
    qrels = ROOT / "sample_data" / "cranfield" / "qrels.txt"
    before = hashlib.sha256(qrels.read_bytes()).hexdigest()
    with streamlit_server("--notes", str(db)) as url:
        contexts = [
            browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
            for _ in range(2)
        ]
        ann, bob = (c.new_page() for c in contexts)
        for page, name in ((ann, "Ann"), (bob, "Bob")):
            page.set_default_timeout(60_000)
            open_page(page, f"{url}/deltas?query=1")
            page.get_by_role("heading", name="The meeting's record").wait_for()
            _give_name(page, name)
        first, second = _judging_cell(ann, 0, 0), _judging_cell(ann, 0, 1)
        # unjudged documents come first
        assert _judging_cell(ann, 3, 0) == _judging_cell(ann, 3, 1) == "unjudged"
        _judge(ann, 0, "2")
        _judge(bob, 1, "3")  # Bob's page had not shown Ann's judgment; his rerun shows both
        _cells_show(bob, 4, ["2 (Ann)", "3 (Bob)"])
        note = ann.get_by_label("Note on this query")
        note.fill("two unjudged documents are relevant")
        note.press("Control+Enter")  # Ann's next rerun shows Bob's judgment
        ann.get_by_text("Recorded by Ann: the note of query 1").wait_for()
        _cells_show(ann, 4, ["2 (Ann)", "3 (Bob)"])
        log = db.parent / "log.tsv"
        done = subprocess.run(
            [sys.executable, "-m", "rankviz", "judgments", "export", str(db), "--format", "tsv"],
            capture_output=True,
            text=True,
            cwd=ROOT,
            check=True,
        )
        log.write_text(done.stdout)
        recorded = pd.read_csv(log, sep="\t", dtype=str)
        assert recorded[["qid", "docid", "grade", "by"]].values.tolist() == [
            ["1", first, "2", "Ann"],
            ["1", second, "3", "Bob"],
        ]

        open_page(ann, f"{url}/?qrels=meeting")
        settled(ann)
        with ann.expect_download() as download:
            ann.get_by_role("button", name="Download table (CSV)").click()
        shown = pd.read_csv(download.value.path(), index_col=0)
        # the table downloaded is of the qrels the conventions say are in force
        read_conventions(ann, "with the meeting's 2 judgments in force")
        cli = subprocess.run(
            [
                sys.executable,
                "-m",
                "rankviz",
                "evaluate",
                str(qrels.parent),
                "--judgments",
                str(db),
                "--format",
                "tsv",
            ],
            capture_output=True,
            text=True,
            cwd=ROOT,
            check=True,
        )
        expected = pd.read_csv(__import__("io").StringIO(cli.stdout), sep="\t").pivot(
            index="run", columns="measure", values="value"
        )
        for run in shown.index:
            for measure in shown.columns:
                assert shown.loc[run, measure] == pytest.approx(
                    expected.loc[run, measure], abs=1e-12
                )
        assert (
            ann.get_by_text("Traceback").count() == 0 and bob.get_by_text("Traceback").count() == 0
        )
        for context in contexts:
            context.close()
    assert hashlib.sha256(qrels.read_bytes()).hexdigest() == before


def test_the_meetings_report_opens_offline_with_every_discussed_query_and_hostile_text_literal(
    browser, tmp_path
) -> None:
    """`rankviz report` writes one page: no request leaves it, every query the meeting touched is
    there with its grades, tags and note, and text from the record shows as written."""

    folder = tmp_path / "cranfield"
    shutil.copytree(ROOT / "sample_data" / "cranfield", folder)
    store = MeetingStore(folder)
    store.judge("1", "184", 4, by="Ann", via="typed name", note=f"{LINK} <b>bold</b>")
    store.judge("2", "12", 0, by="<img src=x onerror=alert(1)>", via="typed name")
    store.tag("3", "<script>window.ran=1</script>", by="Bob", via="typed name")
    store.set_note("4", f"{IMAGE} {FORMULA}\nsecond line", by="Bob", via="typed name")
    store.tag("\u202e5", "right-to-left override in the id", by="Bob", via="typed name")
    queries = (folder / "queries.tsv").read_text().splitlines()
    long_text = "x" * 200_000  # one 200 KB word: the page must still fit its width
    (folder / "queries.tsv").write_text(
        "\n".join(f"6\t{long_text}" if line.split("\t")[0] == "6" else line for line in queries)
        + "\n"
    )
    store.tag("6", "long", by="Bob", via="typed name")
    out = tmp_path / "report.html"
    done = subprocess.run(
        [sys.executable, "-m", "rankviz", "report", str(folder), "bm25", "dense", "-o", str(out)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    asked = []

    def only_the_file(route) -> None:
        if route.request.url == out.as_uri():
            route.continue_()
        else:  # anything else the page would fetch: recorded and refused
            asked.append(route.request.url)
            route.abort()

    context.route("**/*", only_the_file)
    page = context.new_page()
    page.goto(out.as_uri())
    page.get_by_role(
        "heading", name="Means under the qrels file and with the meeting's judgments"
    ).wait_for()
    assert asked == []
    body = page.inner_text("body")
    for qid in ("1", "2", "3", "4"):
        assert page.get_by_role("heading", name=f"Query {qid}:").count() == 1, qid
    assert "<script>window.ran=1</script>" in body and page.evaluate("window.ran") is None
    assert "<img src=x onerror=alert(1)>" in body and f"{LINK} <b>bold</b>" in body
    assert f"{IMAGE} {FORMULA}" in body and "second line" in body
    row = page.locator("tr").filter(has_text="184").filter(has_text="Ann").first
    assert "4" in row.inner_text()  # the meeting's grade beside the document
    widths = page.evaluate(
        "[...document.querySelectorAll('table')].map(t => t.scrollWidth <= t.clientWidth + 1)"
    )
    assert all(widths)  # no table wider than the page: nothing cut when printed
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280  # long text wraps
    assert page.evaluate("getComputedStyle(document.body).fontSize") == "16px"
    # every text of the record is isolated: an override in a query id reverses nothing after it
    isolated = page.evaluate(
        "[...document.querySelectorAll('h3 bdi')].map(b => getComputedStyle(b).unicodeBidi)"
    )
    assert isolated and set(isolated) == {"isolate"}
    assert page.locator("h3 bdi").filter(has_text="\u202e5").count() == 1
    # times in a reader's words, the instant kept
    assert re.search(r"\b\d{1,2} [A-Z][a-z]{2} \d{4}, \d\d:\d\d UTC\b", body)
    assert not re.search(r"\d{4}-\d\d-\d\dT\d\d:", body)
    assert page.locator("time[datetime]").count() >= 4
    context.close()


def test_an_out_of_scale_entry_in_the_record_leaves_every_number_and_one_warning(
    browser, tmp_path
) -> None:
    """A record written by an older version holds grade 44 on Cranfield (0-4): the Overview and
    Per-query deltas show their numbers, one warning names the entry, nothing crashes."""
    db = tmp_path / "meeting.sqlite"
    MeetingStore(db).judge_many(
        [("1", "184", 44), ("1", "29", 3)], by="Old version", via="typed name"
    )
    with streamlit_server("--notes", str(db)) as url:
        context, page = _meeting_page(browser, url, "/?runs=bm25,dense", name=None)
        page.get_by_role("button", name="Download table (CSV)").wait_for()
        settled(page)
        assert page.get_by_text("judgment 1 (1 184) left out: grade 44").count() == 1
        assert page.locator('[data-testid="stDataFrame"]').count() >= 1
        open_page(page, f"{url}/deltas?runs=bm25,dense&query=1")
        page.get_by_role("heading", name="Query view").wait_for()
        settled(page)
        assert page.get_by_text("judgment 1 (1 184) left out: grade 44").count() == 1
        body = page.inner_text("body")
        assert "Traceback" not in body and "MeasureError" not in body
        context.close()


def test_two_people_editing_one_note_see_the_conflict_in_their_browsers(browser, tmp_path) -> None:
    """Bob's page showed no note when Ann recorded hers: his note does not replace hers silently; he
    sees both, and his choice is recorded."""
    db = tmp_path / "meeting.sqlite"
    with streamlit_server("--notes", str(db)) as url:
        (ann_context, ann), (bob_context, bob) = (
            _meeting_page(browser, url, "/deltas?query=1", name) for name in ("Ann", "Bob")
        )
        note = ann.get_by_label("Note on this query")
        note.fill("Ann's note")
        note.press("Control+Enter")
        ann.get_by_text("Recorded by Ann: the note of query 1").wait_for()
        mine = bob.get_by_label("Note on this query")
        mine.fill("Bob's note")
        mine.press("Control+Enter")  # typed against the empty note his page showed
        bob.get_by_text("was changed by someone else").wait_for()
        assert MeetingStore(db, create=False).notes() == {"1": "Ann's note"}
        # kept as his draft
        assert bob.get_by_label("Note on this query").input_value() == "Bob's note"
        bob.get_by_role("button", name="Record my note (replaces theirs)").click()
        bob.get_by_text("Recorded the note of query 1 by Bob").wait_for()
        for context in (ann_context, bob_context):
            context.close()
    store = MeetingStore(db, create=False)
    assert store.notes() == {"1": "Bob's note"}
    assert [e.what for e in store.history("1") if e.kind == "note"] == ["Ann's note", "Bob's note"]


def test_judging_keeps_the_place_in_the_discussion_queue(browser, tmp_path) -> None:
    """Two Nexts, then a judgment with the meeting's qrels in force: the same query stays open, at
    the same place of the queue."""
    db = tmp_path / "meeting.sqlite"
    with streamlit_server("--notes", str(db)) as url:
        context, page = _meeting_page(
            browser, url, "/deltas?runs=bm25,dense&baseline=bm25&run=dense&measure=AP"
        )
        for _ in range(2):
            before = _query_shown(page)
            page.get_by_role("button", name="Next").click()
            page.wait_for_function(
                "q => new URLSearchParams(location.search).get('query') !== q", arg=before
            )
            settled(page)
        third = _query_shown(page)
        page.get_by_text("Query 3 of").wait_for()
        _judge(page, 0, "2")
        settled(page)
        assert _query_shown(page) == third
        assert page.get_by_text("Query 3 of").count() == 1  # the queue kept its order and the place
        context.close()
    assert [j.qid for j in MeetingStore(db, create=False).judgments()] == [third]


def test_a_click_on_a_query_of_a_feature_chart_links_it_into_the_deltas_page(page, server) -> None:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    open_page(page, f"{server}/features?baseline=bm25&run=dense&measure=AP")
    page.get_by_role("heading", name="Query features").wait_for()
    link = page.get_by_role("link", name="open")
    for attempt in range(3):  # a click while a rerun redraws the chart is lost: click again
        settled(page)  # the page drawn, its charts ready for a click
        chart = page.locator(".js-plotly-plot").first
        chart.scroll_into_view_if_needed()
        point = chart.locator("g.points path.point").first
        point.wait_for()
        box = point.bounding_box()
        page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        try:
            link.wait_for(timeout=20_000)
            break
        except PlaywrightTimeout:
            if attempt == 2:
                raise
    href = link.get_attribute("href")
    assert href.startswith("deltas?") and "query=" in href and "baseline=bm25" in href
    page.goto(f"{server}/{href}")  # a markdown link opens a new tab: followed here in this one
    page.get_by_role("heading", name="Per-query deltas").wait_for()
    query = href.split("query=")[1].split("&")[0]
    page.wait_for_function(f"new URLSearchParams(location.search).get('query') === {query!r}")
    assert page.get_by_text("Traceback").count() == 0


def test_a_folder_of_scores_alone_in_a_browser(browser, tmp_path) -> None:
    """A collection of nugget scores alone (no runs, no qrels): the Overview's table and the
    Per-query deltas page with both answers, at 1280x720; the navigation lists only the pages that
    can show scores, a link to another still opens it and says why it shows nothing, and choosing a
    collection of runs brings every page back."""
    from playwright.sync_api import expect

    folder = tmp_path / "nuggets"
    folder.mkdir()
    for name in ("scores.tsv", "queries.tsv"):
        shutil.copy(ROOT / "sample_data" / "rag-nuggets" / name, folder / name)
    ranked = tmp_path / "ranked"  # a collection of runs beside it
    (ranked / "runs").mkdir(parents=True)
    shutil.copy(ROOT / "sample_data" / "cranfield" / "qrels.txt", ranked / "qrels.txt")
    for run in ("bm25", "dense"):
        shutil.copy(ROOT / "sample_data" / "cranfield" / "runs" / f"{run}.run.gz", ranked / "runs")
    with streamlit_server("--data", str(folder), "--data", str(ranked)) as url:
        context = browser.new_context(viewport={"width": 1280, "height": 720})
        page = context.new_page()
        page.set_default_timeout(60_000)
        open_page(page, f"{url}/?collection=nuggets")
        page.get_by_role("heading", name="Overview").wait_for()
        page.get_by_text("Per-query scores alone: no chance level").wait_for()
        links = page.locator('[data-testid="stSidebarNav"] a')
        scoring = [p.title for p in PAGES if not p.needs_rankings]
        expect(links).to_have_count(len(scoring))
        assert [t.strip() for t in links.all_inner_texts()] == scoring
        assert len(scoring) < len(PAGES)
        open_page(
            page, f"{url}/deltas?collection=nuggets&baseline=bm25-gpt&run=dense-gpt&measure=vital"
        )
        page.get_by_role("heading", name="Discussion queue").wait_for()
        page.get_by_text("Answers").first.wait_for()
        open_page(page, f"{url}/ties?collection=nuggets")
        page.get_by_text("holds per-query scores only").wait_for()
        assert page.get_by_text("Traceback").count() == 0
        choose(page, "Collection", "ranked")  # in the same session: a collection of runs
        expect(links).to_have_count(len(PAGES))
        context.close()


#: The folded sidebar's controls are hidden (out of Tab's way).
SIDEBAR_HIDDEN = """() => {
  const field = document.querySelector('[data-testid="stSidebar"] input');
  return field !== null && getComputedStyle(field).visibility === "hidden";
}"""

#: The label of the element that has the keyboard: its aria-label, else its text ("" for none).
FOCUSED = (
    "((el) => el ? (el.getAttribute('aria-label') || el.innerText || '').trim() : '')"
    "(document.activeElement)"
)
GRADES_FIELD = "Grades by keyboard (docid grade, ...)"


def _tab_to(page, label: str, *, most: int, key: str = "Tab", route: list | None = None) -> int:
    """Press ``key`` until the element labelled ``label`` has the keyboard; how many presses (none
    when it has it already; at most ``most``, else the test fails). ``route``: filled with what had
    the keyboard on the way (for a caller's own message)."""
    if page.evaluate(FOCUSED).startswith(label):
        return 0
    passed = [] if route is None else route  # what had the keyboard on the way
    for presses in range(1, most + 1):
        page.keyboard.press(key)
        passed.append(page.evaluate(FOCUSED)[:30])
        if passed[-1].startswith(label):
            return presses
    raise AssertionError(f"{label!r} not reached in {most} presses of {key}: passed {passed}")


def test_a_meeting_at_a_projector_by_keyboard_alone(browser, tmp_path) -> None:
    """At 1280x720 in projector mode, with the keyboard alone: the name, three grades in two lines,
    a tag and a note, then Next; every entry is in the record, in at most 40 presses besides the
    typed text (95 before: Enter in the name dropped the keyboard to the page, 10 Tabs back to the
    grades and 19 on to the tag). Each step done, the keyboard is where the next one is: the name
    -> the grades (Enter on the empty field) -> the tag (Enter on it empty) -> the note (Ctrl+Enter)
    -> Next."""
    from playwright.sync_api import expect

    db = tmp_path / "meeting.sqlite"
    with streamlit_server("--notes", str(db)) as url:
        context = browser.new_context(viewport={"width": 1280, "height": 720})
        page = context.new_page()
        page.set_default_timeout(60_000)
        open_page(page, f"{url}/deltas?baseline=bm25&run=dense&measure=AP&present=1&query=1")
        page.wait_for_function(SIDEBAR_HIDDEN)  # folded away once the page has said so
        settled(page)  # every control drawn before the keyboard goes round them
        route: list[str] = []  # said if the presses are too many: where the keyboard went
        # the grades' field is closed until the name is given
        presses = _tab_to(page, "Your name", most=40, route=route)
        page.keyboard.type("Ann")
        presses += _press(page, "Enter")
        expect(page.get_by_role("textbox", name=GRADES_FIELD)).to_be_enabled()
        _focus_on(page, "Grades by keyboard")  # no Tab: the keyboard went on by itself
        page.keyboard.type("746 2, 665 0")
        presses += _press(page, "Enter")
        _recorded(page, "Recorded by Ann: 2 judgment(s) of query 1")
        _focus_on(page, "Grades by keyboard")
        page.keyboard.type("573 1")
        presses += _press(page, "Enter")
        _recorded(page, "Recorded by Ann: 1 judgment(s) of query 1")
        _focus_on(page, "Grades by keyboard")
        presses += _press(page, "Enter")  # on the empty field: done with grades
        _focus_on(page, "New tag")
        page.keyboard.type("vocabulary")
        presses += _press(page, "Enter")
        _recorded(page, "Recorded by Ann: the tag vocabulary of query 1")
        _focus_on(page, "New tag")
        presses += _press(page, "Enter")  # on the empty field: done with tags
        _focus_on(page, "Note on this query")
        page.keyboard.type("aircraft models: the runs miss the vocabulary")
        presses += _press(page, "Control+Enter")
        _recorded(page, "Recorded by Ann: the note of query 1")
        _focus_on(page, "Next")
        presses += _press(page, "Enter")
        page.wait_for_function("new URLSearchParams(location.search).get('query') !== '1'")
        settled(page)
        assert presses <= 40, (presses, route)
        store = MeetingStore(db, create=False)
        assert sorted((j.qid, j.docid, j.grade, j.by) for j in store.judgments()) == [
            ("1", "573", 1, "Ann"),
            ("1", "665", 0, "Ann"),
            ("1", "746", 2, "Ann"),
        ]
        assert store.tags() == {"1": ["vocabulary"]}
        assert store.notes() == {"1": "aircraft models: the runs miss the vocabulary"}
        context.close()


def _press(page, key: str) -> int:
    page.keyboard.press(key)
    return 1


def _focus_on(page, label: str) -> None:
    """Wait until the control labelled ``label`` has the keyboard (the page moves it there)."""
    page.wait_for_function(f"label => {FOCUSED}.startsWith(label)", arg=label)


def _recorded(page, said: str) -> None:
    page.get_by_text(said).first.wait_for()
    settled(page)


@pytest.mark.slow  # a Dask cluster and a server of its own
def test_rankviz_app_with_a_scheduler_serves_passes_its_workers_took(browser, tmp_path) -> None:
    """``rankviz app --scheduler ADDRESS`` started for real (the command line execs Streamlit)
    against a local Dask cluster: the Overview of two runs shows its table, and the runs' passes
    were taken on the cluster (its scheduler has run rankviz's pass tasks)."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0"
    ) as local:
        port = _free_port()
        command = [
            sys.executable, "-m", "rankviz", "app", "--scheduler", local.scheduler_address,
            "--no-browser", "--port", str(port),
        ]  # fmt: skip
        environment = {**os.environ, "RANKVIZ_STORE": str(tmp_path / "store")}
        with open(os.devnull, "w") as log:
            process = subprocess.Popen(command, cwd=ROOT, stdout=log, stderr=log, env=environment)
            url = f"http://127.0.0.1:{port}"
            try:
                serving(url, process)
                page = browser.new_page()
                page.set_default_timeout(120_000)
                open_page(page, f"{url}/?collection=cranfield&runs=bm25,dense&measures=AP")
                page.get_by_role("heading", name="Overview").wait_for()
                page.locator('[data-testid="stMain"] [data-testid="stDataFrame"]').first.wait_for()
                assert page.get_by_text("Traceback").count() == 0
                page.close()
            finally:
                process.terminate()
                process.wait(timeout=30)
        with distributed.Client(local.scheduler_address) as client:
            prefixes = client.run_on_scheduler(
                lambda dask_scheduler: list(dask_scheduler.task_prefixes)
            )
        assert "pass_of_file" in prefixes, prefixes
