"""Sums over the earlier elements of a segment (the expected measures' products over earlier tie
groups), against the sum written out element by element."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from rankviz.measures._segments import segment_prefix_sum


@given(
    st.lists(
        st.tuples(st.integers(1, 4), st.sampled_from([0.0, 0.0, 0.1, 0.7, -0.3, 1e16])), max_size=40
    ),
    st.booleans(),
    st.data(),
)
@settings(max_examples=300, deadline=None)
def test_each_element_sums_the_earlier_ones_of_its_segment(steps, distinct, data) -> None:
    """Segments of one element each (a chance table's groups: every answer 0) or of several, mostly
    zero values, at every position or at some sorted ones; the sum of the earlier elements taken
    in their order from 0.0."""
    segment = np.cumsum([1 if distinct else step // 2 for step, _ in steps]).astype(np.int64)
    values = np.array([v for _, v in steps], dtype=np.float64)
    expected = np.zeros(len(values))
    for i in range(len(values)):
        total = 0.0
        for j in range(i):
            if segment[j] == segment[i]:
                total += values[j]
        expected[i] = total
    assert segment_prefix_sum(segment, values).tolist() == expected.tolist()
    at = np.array(
        sorted(data.draw(st.sets(st.integers(0, max(len(values) - 1, 0)))) if len(values) else []),
        dtype=np.int64,
    )
    assert segment_prefix_sum(segment, values, at).tolist() == expected[at].tolist()
