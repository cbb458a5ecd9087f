"""The Reproducibility page shows the library's reproduction (repro_eval's numbers: see
tests/reference/test_reproducibility.py) of the four runs chosen."""

from __future__ import annotations

import pytest
from apptest import start
from conftest import CRANFIELD

import rankviz as rv
from rankviz.study import REPRODUCTION


@pytest.mark.slow
def test_the_page_shows_the_librarys_numbers() -> None:
    runs = dict(orig_b="bm25", orig_a="rrf", rep_b="bm25-raw", rep_a="dense")
    at = start("repro", collection="cranfield", measures="AP,nDCG@10", **runs)
    assert not at.exception and not at.error
    orderings, effects = at.dataframe[0].value, at.dataframe[1].value
    study = rv.Study.open(
        rv.StudyRequest(CRANFIELD, list(runs.values()), measures=["AP", "nDCG@10"])
    )
    want = study.ask(REPRODUCTION, ["bm25", "rrf"], ["bm25-raw", "dense"])
    reproduced, _ = want.verdict()
    verdict = at.warning[0].value  # partly: the page leads with it
    assert reproduced == "partly" and verdict.startswith("**Reproduced: partly**")
    assert "AP: partly" in verdict.replace("\\", "") and "nDCG@10" in verdict.replace("\\", "")
    means = want.means()
    for row in orderings.itertuples():
        assert row.ktu == pytest.approx(means.loc[row.role, "ktu"], abs=1e-12)
        assert row.rbo == pytest.approx(means.loc[row.role, "rbo"], abs=1e-12)
    expected = want.effects.set_index("measure")
    for row in effects.itertuples():
        assert row.er == pytest.approx(expected.loc[row.measure, "er"], rel=1e-12)
        assert row.rmse_baseline == pytest.approx(expected.loc[row.measure, "rmse_baseline"])


def test_fewer_than_four_runs_say_what_to_choose() -> None:
    at = start("repro", collection="cranfield", runs="bm25,dense")
    assert not at.exception and not at.error
    assert "Choose four runs" in at.info[0].value


@pytest.mark.slow
def test_the_reproduction_sample_opens_on_its_roles_and_says_reproduced() -> None:
    """sample_data/cranfield-reproduction: its run names sort in the roles' order, so the page
    opens on the original and reproduced pairs and leads with the library's verdict."""
    at = start("repro", collection="cranfield-reproduction")
    assert not at.exception and not at.error
    roles = [box.value for box in at.selectbox if box.label.startswith(("Original", "Reproduced"))]
    assert roles == ["bm25", "bm25_rrf", "reproduced-bm25", "reproduced-bm25_rrf"]
    study = rv.Study.open(rv.StudyRequest(CRANFIELD.parent / "cranfield-reproduction"))
    reproduced, _ = study.ask(
        REPRODUCTION, ["bm25", "bm25_rrf"], ["reproduced-bm25", "reproduced-bm25_rrf"]
    ).verdict()
    assert reproduced == "yes" and at.success[0].value.startswith("**Reproduced: yes**")


@pytest.mark.slow
def test_a_collection_that_declares_no_reproduction_gives_no_verdict_until_asked() -> None:
    """Cranfield declares none: the page said "Reproduced: partly" of four of its own runs taken as
    originals and copies. It now asks which runs reproduce which, and says nothing until then."""
    at = start("repro", collection="cranfield")
    assert not at.exception and not at.error
    roles = [box.value for box in at.selectbox if box.label.startswith(("Original", "Reproduced"))]
    assert roles == ["", "", "", ""]
    assert "declares no reproduction" in at.info[0].value.replace("\\", "")
    assert not at.success and not at.warning and not [e for e in at.error]
    assert not any("Reproduced" in m.value for m in [*at.markdown, *at.info])
    for label, run in zip(("Original baseline", "Original advanced", "Reproduced baseline"),
                          ("bm25", "rrf", "bm25-raw"), strict=True):  # fmt: skip
        next(b for b in at.selectbox if b.label == label).set_value(run).run()
        assert not at.warning and not at.success  # three of four: still no verdict
    next(b for b in at.selectbox if b.label == "Reproduced advanced").set_value("dense").run()
    assert at.warning[0].value.startswith("**Reproduced: partly**")
    assert at.query_params["rep_a"] == "dense"
