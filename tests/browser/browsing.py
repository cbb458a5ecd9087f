"""What the browser tests share: Debian's chromium (the ``browser`` fixture: skips with the reason
where chromium is missing, fails instead when CI is set), a fresh ``streamlit run app.py`` on a free
loopback port, and waits on the app's own events (a run finished), never on time."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from conftest import ROOT

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _unavailable(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"browser tests cannot run in CI: {reason}")
    pytest.skip(reason)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def serving(url: str, process: subprocess.Popen) -> None:
    """Wait (on the server's health answer, up to 90 s) until the streamlit server at ``url``
    serves; else kill it and fail."""
    deadline = time.time() + 90
    while time.time() < deadline:
        try:
            if urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).read() == b"ok":
                return
        except OSError:
            time.sleep(0.3)
    process.kill()
    pytest.fail("streamlit did not start within 90 s")


@contextlib.contextmanager
def streamlit_server(
    *script_args: str, env: dict | None = None, port: int | None = None, options: dict | None = None
):
    """A fresh ``streamlit run app.py [-- script_args]`` on a free loopback port (or ``port``),
    with Streamlit's ``options`` too, until the block ends; yields its URL (the process is
    ``streamlit_server.process``)."""
    port = port or _free_port()
    log = open(os.devnull, "w")
    flags = {
        "server.port": port,
        "server.address": "127.0.0.1",
        "server.headless": "true",
        "browser.gatherUsageStats": "false",
        "server.fileWatcherType": "none",
        **(options or {}),
    }
    command = [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py")]
    command += [item for key, value in flags.items() for item in (f"--{key}", str(value))]
    command += ["--", *script_args] if script_args else []
    process = subprocess.Popen(
        command, cwd=ROOT, stdout=log, stderr=log, env={**os.environ, **(env or {})}
    )
    streamlit_server.process = process
    url = f"http://127.0.0.1:{port}"
    serving(url, process)
    try:
        yield url
    finally:
        process.terminate()
        process.wait(timeout=20)
        log.close()


@pytest.fixture(scope="module", name="browser")
def chromium_browser():
    """Debian's chromium, headless (a test module imports this fixture to use it as ``browser``)."""
    if not Path(CHROMIUM).exists():
        _unavailable("no chromium found (apt-get install chromium)")
    try:
        from playwright.sync_api import expect, sync_playwright
    except ImportError:
        _unavailable("playwright is not installed")
    # an assertion waits as long as any other wait here (its own default is 5 s: a loaded machine
    # redraws slower than that)
    expect.set_options(timeout=60_000)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        yield browser
        browser.close()


def open_page(page, url: str) -> None:
    page.goto(url)
    page.wait_for_selector('[data-testid="stApp"]')
    settled(page)


def judging_grid(page):
    """The meeting's judging grid (the table with the "qrels file" column), once drawn. Found by
    what it holds, not as the page's first table: while a run draws, the discussion queue's table
    further down is there before it."""
    grid = page.locator('[data-testid="stMain"] [data-testid="stDataFrame"]').filter(
        has_text="qrels file"
    )
    grid.locator("canvas").first.wait_for()
    return grid


#: Streamlit marks its root with the script's state; "notRunning" once a run has drawn everything.
SETTLED = '[data-testid="stApp"][data-test-script-state="notRunning"]'


def settled(page) -> None:
    """Wait until the app's script run has finished and nothing shows it running (an event, not a
    delay)."""
    page.wait_for_selector(SETTLED, state="attached", timeout=60_000)
    page.wait_for_function(
        "!document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=60_000
    )


def choose(page, label: str, option: str) -> None:
    """Pick ``option`` of a select box, as a person does. A rerun redraws the box and closes a list
    it had open, also between the list showing and the click on the option: the box is opened
    once the app has settled, and opened again if the option could not be clicked."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    box = page.locator('[data-testid="stSelectbox"]').filter(has_text=label).first
    listed = page.get_by_role("option", name=option, exact=True)
    for attempt in range(3):
        settled(page)
        box.get_by_role("combobox").click()
        try:
            listed.click(timeout=15_000)
            return
        except PlaywrightTimeout:
            if attempt == 2:
                raise


#: WCAG's contrast ratio of the least readable caption of the page's main part against the app's
#: background, each caption's colour blended by its alpha and the opacity of it and every element
#: around it, as the screen shows it (a caption in columns had Streamlit's own 0.6: 3.89:1).
CAPTION_CONTRAST = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  const rgba = (text) => text.match(/[0-9.]+/g).map(Number);
  const [br, bg, bb] = rgba(getComputedStyle(app).backgroundColor);
  const channel = (v) => {
    v /= 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  };
  const lum = (r, g, b) => 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
  let least = Infinity;
  const captions = document.querySelectorAll(
    '[data-testid="stMain"] [data-testid="stCaptionContainer"]');
  for (const caption of captions) {
    const text = caption.querySelector('p') || caption;
    const [fr, fg, fb, fa = 1] = rgba(getComputedStyle(text).color);
    let alpha = fa;
    for (let e = text; e && e !== app; e = e.parentElement) {
      alpha *= Number(getComputedStyle(e).opacity);
    }
    const blend = (f, b) => alpha * f + (1 - alpha) * b;
    const a = lum(blend(fr, br), blend(fg, bg), blend(fb, bb)), b = lum(br, bg, bb);
    least = Math.min(least, (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05));
  }
  return least;
}"""


def read_conventions(page, text: str) -> None:
    """Open the conventions' line at the top of the page, as a reader clicks it, and wait until
    what it holds says ``text``."""
    settled(page)
    page.locator('[data-testid="stMain"] [data-testid="stExpander"] summary').first.click()
    page.get_by_text(text).first.wait_for()
