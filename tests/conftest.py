"""Shared paths and markers. ``-m "not browser and not slow"`` is the quick subset (README)."""

import os
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
DATA = Path(__file__).parent / "data"
CONFORMANCE = DATA / "conformance"
TE = CONFORMANCE / "te_test"
SAMPLES = ROOT / "sample_data"
CRANFIELD = SAMPLES / "cranfield"
DL_HARD = SAMPLES / "dl-hard-passage"
CAST = SAMPLES / "trec-cast-2021"
PAGES = ROOT / "pages"


@pytest.fixture
def data_dir() -> Path:
    return DATA


def pytest_collection_modifyitems(items) -> None:
    """Every test of a browser module is a browser test."""
    for item in items:
        if item.module.__name__.endswith("test_browser"):
            item.add_marker(pytest.mark.browser)


# the app's disk store of parsed runs goes to a folder of this test session (servers started by
# the browser tests inherit it), not to the user's ~/.cache
os.environ["RANKVIZ_STORE"] = tempfile.mkdtemp(prefix="rankviz-store-")
# the meeting's records of the sample collections too (never sample_data/*/rankviz-notes.sqlite)
os.environ["RANKVIZ_NOTES"] = tempfile.mkdtemp(prefix="rankviz-notes-")
