"""The samples that show what a collection of one's own would: ndeval's measures on the diversity
sample (sample_data/cranfield-diversity)."""

from __future__ import annotations

import pytest
from apptest import start
from conftest import CRANFIELD

import rankviz as rv


@pytest.mark.slow
def test_the_diversity_sample_shows_ndevals_measures_by_default() -> None:
    """sample_data/cranfield-diversity: its subtopics.txt beside the qrels, its collection.toml's
    diversity measures on the Overview, each mean the library's."""
    at = start(collection="cranfield-diversity")
    assert not at.exception and not at.error
    means = at.dataframe[0].value
    shown = ["alpha-nDCG@20", "ERR-IA@20", "strec@20", "nDCG@20"]
    assert list(means.columns) == shown
    library = rv.Study.open(
        rv.StudyRequest(CRANFIELD.parent / "cranfield-diversity", measures=shown)
    ).evaluation()
    for run in means.index:
        for measure in shown:
            assert means.loc[run, measure] == pytest.approx(library.mean(measure, run), abs=1e-12)
    assert "NRBP" in at.sidebar.multiselect[1].options
