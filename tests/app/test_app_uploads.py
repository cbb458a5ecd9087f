"""AppTest: an uploaded run joins the selection even when the run that read it ends early (a page
switch clicked while the page was still being drawn)."""

from __future__ import annotations

import pytest
from apptest import shown
from conftest import CRANFIELD
from streamlit.testing.v1 import AppTest

from rankviz.app.frame import measure_picker
from rankviz.app.widgets.text import md

SCRIPT = "from rankviz.app.frame.pages import navigate\nnavigate(default='overview')\n"


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


@pytest.mark.slow
def test_what_was_recorded_is_said_again_after_a_run_ended_by_a_newer_one(monkeypatch) -> None:
    """A click during the run that says what was recorded starts a newer run, and Streamlit drops
    what the ended run had not yet sent: the notice is said by the next run too; then by every run
    for ten seconds (the browser takes a notice away when a run that does not say it finishes),
    and not after."""
    import streamlit as st

    from rankviz.app.meeting import kept, recorder

    clock = [1000.0]
    monkeypatch.setattr(kept, "monotonic", lambda: clock[0])
    at = AppTest.from_string(SCRIPT, default_timeout=120)
    at.query_params["collection"] = "cranfield"
    text = "Recorded by Ann: the note of query 1."
    at.session_state["rankviz.meeting_recorded"] = (text, clock[0], False)
    say = recorder.say
    ended = []

    def ended_once(meeting) -> None:  # right after the notice: the person clicked
        if not ended:
            ended.append(True)
            st.rerun()
        say(meeting)

    monkeypatch.setattr(recorder, "say", ended_once)
    said = []  # the notices the runs send
    toast = st.toast
    monkeypatch.setattr(st, "toast", lambda body, **kw: said.append(body) or toast(body, **kw))
    at.run()
    assert ended and not at.exception
    # said by the ended run and again by the next, which drew the whole page
    assert said == [md(text)] * 2
    clock[0] += kept.SAY_FOR - 1
    at.run()
    assert said == [md(text)] * 3
    clock[0] += 1
    at.run()
    assert said == [md(text)] * 3
