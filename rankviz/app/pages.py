"""The app's pages: one registry that the navigation and every link between pages read.

A page's ``url_path`` is its file's stem, which is also what Streamlit's older ``pages/`` discovery
derives from the file name, so the same link opens the same page in either mode. That discovery
answers the very first request of a fresh server (Streamlit finds ``pages/`` before ``app.py`` has
run ``st.navigation``), showing raw file names in the sidebar: a page reached that way hands over to
:func:`navigate`, which registers the pages with their titles for the rest of the server's life and
runs the page that was asked for.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

import streamlit as st

ROOT = Path(__file__).resolve().parents[2]  # the checkout: app.py, pages/, sample_data/


@dataclass(frozen=True)
class PageSpec:
    key: str  # the file stem and the url path
    title: str

    @property
    def file(self) -> Path:
        return ROOT / "pages" / f"{self.key}.py"


PAGES = (
    PageSpec("overview", "Overview"),
    PageSpec("deltas", "Per-query deltas"),
    PageSpec("histograms", "Rank histograms"),
    PageSpec("significance", "Significance"),
    PageSpec("ties", "Ties"),
    PageSpec("unjudged", "Unjudged documents"),
    PageSpec("metric_choice", "Metric choice"),
    PageSpec("judgments", "Judgments"),
    PageSpec("across", "Across collections"),
)
DEFAULT_PAGE = PAGES[0]


def spec(key: str) -> PageSpec:
    return next(p for p in PAGES if p.key == key)


_serving = threading.local()  # each script run has its own thread


def navigate(default: str = DEFAULT_PAGE.key) -> None:
    """``st.navigation`` over :data:`PAGES` (``default``: the page of the root URL), and run the page asked for."""
    pages = [st.Page(page.file, title=page.title, url_path=page.key, default=page.key == default) for page in PAGES]
    _serving.navigating = True
    try:
        st.navigation(pages).run()
    finally:
        _serving.navigating = False


def navigating() -> bool:
    """Whether this script run reached the page through :func:`navigate`."""
    return getattr(_serving, "navigating", False)
