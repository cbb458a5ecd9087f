"""The diversity qrels' one sort (rankviz.io.subtopics): by topic, docid and subtopic, whether the
three fit in one int64 key or not, the order a lexsort gives."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from rankviz.io.subtopics import _order


@given(
    rows=st.lists(
        st.tuples(st.integers(0, 30), st.integers(0, 50), st.integers(0, 8)), max_size=200
    ),
    huge=st.booleans(),
)
def test_one_key_sorts_as_a_lexsort(rows, huge) -> None:
    topic, doc, subtopic = (
        (np.array(c, dtype=np.int64) for c in zip(*rows))
        if rows
        else (np.zeros(0, dtype=np.int64),) * 3
    )
    if huge and len(subtopic):  # a subtopic number near 10^18: no single key holds the three
        subtopic = subtopic * 10**17
    expected = np.lexsort((subtopic, doc, topic))
    assert _order(topic, doc, subtopic).tolist() == expected.tolist()
