"""The app's pages: one registry that the navigation and every link between pages read.

Each page is a script of :mod:`rankviz.app.views`, inside the package, so an installed rankviz
serves them (``rankviz app``, which runs :mod:`rankviz.app.main`). A page's ``url_path`` is its
file's stem, which is also what Streamlit's older ``pages/`` discovery derives from a file name: in
a checkout,
``streamlit run app.py`` finds the thin entries of ``pages/`` on a fresh server's very first request
(before ``app.py`` has run ``st.navigation``), and each hands over to :func:`navigate`, which
registers the pages with their titles for the rest of the server's life and runs the page asked for.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import streamlit as st
from streamlit.runtime.scriptrunner import StopException

from rankviz._arrow import SERVER_DECAY_MS, prefer_jemalloc
from rankviz.app.meeting import kept
from rankviz.app.signin import visitors

VIEWS = Path(__file__).resolve().parent.parent / "views"


@dataclass(frozen=True)
class PageSpec:
    key: str  # the file stem and the url path
    title: str
    # the page shows one collection, in the frame (the sidebar): every page but Across collections
    framed: bool = True
    # it reads rankings or qrels: a collection of scores alone is told so
    needs_rankings: bool = False
    # the navigation's section: which question the page answers
    section: str = "Compare the runs"

    @property
    def file(self) -> Path:
        return VIEWS / f"{self.key}.py"


TRUST = "Can we trust the numbers"
BEYOND = "Beyond one set of runs"
PAGES = (
    PageSpec("overview", "Overview"),
    PageSpec("deltas", "Per-query deltas"),
    PageSpec("significance", "Significance"),
    PageSpec("histograms", "Rank histograms", needs_rankings=True),
    PageSpec("features", "Query features"),
    PageSpec("ties", "Ties", needs_rankings=True, section=TRUST),
    PageSpec("unjudged", "Unjudged documents", needs_rankings=True, section=TRUST),
    PageSpec("judgments", "Judgments", needs_rankings=True, section=TRUST),
    PageSpec("metric_choice", "Metric choice", section=TRUST),
    PageSpec("repro", "Reproducibility", needs_rankings=True, section=BEYOND),
    PageSpec("across", "Across collections", framed=False, section=BEYOND),
)
DEFAULT_PAGE = PAGES[0]


def spec(key: str) -> PageSpec:
    return next(p for p in PAGES if p.key == key)


def navigate(default: str = DEFAULT_PAGE.key) -> None:
    """``st.navigation`` over :data:`PAGES` (``default``: the page of the root URL), and run the
    page asked for."""
    prefer_jemalloc(decay_ms=SERVER_DECAY_MS)
    # with sign-in: nothing but the sign-in until the visitor is signed in
    visitors.gate([page.key for page in PAGES], default)
    from rankviz.app.frame.sidebar import scores_only_in_view

    hidden = {page.key for page in PAGES if page.needs_rankings} if scores_only_in_view() else set()
    sections: dict[str, list] = {}
    for page in PAGES:  # in sections, each the question its pages answer; a link still opens one
        sections.setdefault(page.section, []).append(  # hidden (it says why it shows nothing)
            st.Page(
                page.file,
                title=page.title,
                url_path=page.key,
                default=page.key == default,
                visibility="hidden" if page.key in hidden else "visible",
            )
        )
    try:
        st.navigation(sections).run()
    except StopException:  # st.stop(): the page drew all it draws
        kept.run_finished()
        raise
    kept.run_finished()  # not reached by a run a newer one interrupts (RerunException)
