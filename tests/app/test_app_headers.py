"""AppTest: the tables of every page show their headers in words: a column the API names in code
(``sum_sq``, ``p_unpaired_advanced``, ``can_flip``) carries a label without underscores, and no
cell of text is empty where the API holds None (a literal "None" on the screen)."""

from __future__ import annotations

import json

import pytest
from apptest import start

REPRO_RUNS = {"orig_b": "bm25", "orig_a": "dense", "rep_b": "qld", "rep_a": "rrf"}


@pytest.mark.parametrize(
    ("page", "link"),
    [
        ("significance", {"runs": "bm25,dense,rrf", "measures": "AP"}),
        pytest.param("repro", {"measures": "AP,nDCG@10", **REPRO_RUNS}, marks=pytest.mark.slow),
    ],
)
def test_no_table_header_is_a_code_name(page: str, link: dict[str, str]) -> None:
    at = start(page, collection="cranfield", **link)
    assert not at.exception and at.dataframe
    coded = 0
    for table in at.dataframe:
        labels = json.loads(table.proto.columns or "{}")
        for column in map(str, [*table.value.columns, table.value.index.name or ""]):
            if "_" in column:
                coded += 1
                label = labels.get(column, {}).get("label", column)
                assert "_" not in label, (page, column)
    assert coded >= 3  # the tables do have code-named columns to word


#: every page with what it needs to show its tables (two runs at least, the reproduction's four)
PAGES = {
    "overview": {},
    "deltas": {},
    "significance": {"runs": "bm25,dense,rrf", "measures": "AP"},
    "features": {},
    "ties": {"runs": "bm25,bm25-raw,rrf"},
    "unjudged": {},
    "metric_choice": {},
    "repro": {"measures": "AP,nDCG@10", **REPRO_RUNS},
}
#: names that are names, not code: the tie policy trec_eval's (its program's name)
NAMES = {"trec_eval"}


@pytest.mark.parametrize("page", list(PAGES))
def test_no_page_shows_a_code_name_or_none(page: str) -> None:
    at = start(page, collection="cranfield", **PAGES[page])
    assert not at.exception and at.dataframe, page
    for table in at.dataframe:
        labels = json.loads(table.proto.columns or "{}")
        frame = table.value
        for column in map(str, [*frame.columns, frame.index.name or ""]):
            label = labels.get(column, {}).get("label", column)
            assert "_" not in label or label in NAMES, (page, column)
        for column in frame.columns:
            if frame[column].dtype == object:
                assert not frame[column].isna().any(), (page, column)
