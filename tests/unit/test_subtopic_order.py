"""The diversity qrels' one sort (rankviz.io.subtopics): by topic, docid and subtopic, whether the
three fit in one int64 key or not, the order a lexsort gives; and their topics' codes, taken from
where the topic changes, are dictionary encoding's."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from hypothesis import given
from hypothesis import strategies as st

from rankviz.io.encoding import grouped_dictionary
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


@given(
    runs=st.lists(
        st.tuples(st.sampled_from(["1", "2", "10", "b", "é", "01"]), st.integers(1, 4)),
        max_size=12,
    ),
    chunked=st.booleans(),
)
def test_topics_coded_where_they_change_are_dictionary_encodings(runs, chunked) -> None:
    """Runs of equal topics, a topic sometimes coming back later (then hashed as before)."""
    values = [topic for topic, length in runs for _ in range(length)]
    array = pa.array(values, pa.string())
    given_values = pa.chunked_array([array[:3], array[3:]]) if chunked else array
    expected = pc.dictionary_encode(array)
    found = grouped_dictionary(given_values)
    assert found.type == expected.type
    assert found.dictionary.to_pylist() == expected.dictionary.to_pylist()
    assert found.indices.to_pylist() == expected.indices.to_pylist()
