"""Ids packed into one text (:mod:`rankviz.io.packed_ids`) come back as they were, or are not
packed."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from rankviz.io.packed_ids import PackedIds, ids_as_arrays, ids_from_arrays


@given(st.lists(st.text(st.characters(blacklist_categories=("Cs",)), max_size=5), max_size=30))
def test_packed_ids_unpack_as_the_ids_or_are_refused(ids: list[str]) -> None:
    """Any ids (empty ones, one empty id, none at all, any character) come back as they were;
    where one holds a NUL (the separator) they are not packed."""
    packed = PackedIds.of(np.asarray(ids, dtype=object).reshape(len(ids)))
    if any("\x00" in i for i in ids):
        assert packed is None
    else:
        assert packed is not None and packed.ids().tolist() == ids
        assert packed.ids().dtype == object and packed.ids().shape == (len(ids),)


def test_ids_that_are_not_text_are_not_packed() -> None:
    assert PackedIds.of(np.asarray([1, 2], dtype=object)) is None


@pytest.mark.parametrize("ids", [["q1", "é", ""], [], ["a\x00b", "c"]])
def test_ids_kept_as_plain_arrays_come_back(ids) -> None:
    """Packed where they can be (one byte array and a count), else fixed-width text: no object
    array either way (an .npz loads them without pickle), and the same ids back."""
    arrays = ids_as_arrays("qids", np.asarray(ids, dtype=object).reshape(len(ids)))
    assert all(v.dtype != object for v in arrays.values())
    assert ("qids.packed" in arrays) == (not any("\x00" in i for i in ids))
    assert ids_from_arrays("qids", arrays).tolist() == ids
