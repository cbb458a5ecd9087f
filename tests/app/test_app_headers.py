"""AppTest: the tables of the Significance page (its ANOVA among them) and of Reproducibility
show their headers in words: a column the API names in code (``sum_sq``, ``p_unpaired_advanced``)
carries a label without underscores."""

from __future__ import annotations

import json

import pytest
from apptest import start

REPRO_RUNS = {"orig_b": "bm25", "orig_a": "dense", "rep_b": "qld", "rep_a": "rrf"}


@pytest.mark.parametrize(
    ("page", "link"),
    [
        ("significance", {"runs": "bm25,dense,rrf", "measures": "AP"}),
        ("repro", {"measures": "AP,nDCG@10", **REPRO_RUNS}),
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
