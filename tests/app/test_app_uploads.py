"""AppTest: an uploaded run joins the selection even when the run that read it ends early (a page
switch clicked while the page was still being drawn)."""

from __future__ import annotations

from apptest import shown
from conftest import CRANFIELD
from streamlit.testing.v1 import AppTest

from rankviz.app import measure_picker

SCRIPT = "from rankviz.app.pages import navigate\nnavigate(default='overview')\n"


def test_an_upload_interrupted_before_the_selection_still_joins_it(monkeypatch) -> None:
    """The first run reads the upload and says so, then ends where the selection is drawn (as
    Streamlit ends a run when the person clicks another page); the next run selects the run."""
    data = (CRANFIELD / "runs" / "bm25.run.gz").read_bytes()
    at = AppTest.from_string(SCRIPT, default_timeout=120)
    at.session_state["rankviz.uploads"] = {
        "runs": {"upload:mine": ("mine.run.gz", data)},
        "qrels": None,
        "scores": {},
    }
    at.query_params["collection"] = "cranfield"
    at.query_params["runs"] = "bm25,dense"
    choose = measure_picker.choose_runs_and_measures

    def ended_there(*args, **kwargs):
        import streamlit as st

        st.stop()

    monkeypatch.setattr(measure_picker, "choose_runs_and_measures", ended_there)
    at.run()
    assert any("Added the run mine from mine.run.gz" in shown(s) for s in at.success)
    monkeypatch.setattr(measure_picker, "choose_runs_and_measures", choose)
    at.run()
    assert not at.exception
    runs = next(m for m in at.multiselect if m.label == "Runs")
    assert runs.value == ["bm25", "dense", "mine"]
    assert at.query_params["runs"] == "bm25,dense,mine"
    # joined once: taking it out of the selection keeps it out
    runs.set_value(["bm25", "dense"]).run()
    assert next(m for m in at.multiselect if m.label == "Runs").value == ["bm25", "dense"]
