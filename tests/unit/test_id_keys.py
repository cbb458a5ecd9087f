"""Ids sorted and looked up as NumPy keys (:mod:`rankviz.io.id_keys`) agree with Python's own
sort and lookups: ``sorted`` orders str by code point, which is UTF-8 byte order, trec_eval's
``strcmp``."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankviz.io.id_keys import IdIndex, distinct, id_order, id_positions, sorted_unique_ids

# short ASCII (the word keys), longer ASCII (bytes), anything but NUL (code points)
IDS = st.one_of(
    st.text("0123456789ab#", max_size=8),
    st.text("0123456789abcdefXYZ_-", min_size=6, max_size=14),
    st.text(st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)), max_size=6),
)


def objects(values) -> np.ndarray:
    return np.asarray(list(values), dtype=object)


@given(st.lists(IDS, max_size=40))
@settings(max_examples=300, deadline=None)
def test_sorted_unique_ids_and_order_are_pythons_sort(ids: list[str]) -> None:
    assert sorted_unique_ids(objects(ids)).tolist() == sorted(set(ids))
    unique = list(dict.fromkeys(ids))
    assert objects(unique)[id_order(objects(unique))].tolist() == sorted(unique)
    assert distinct(objects(ids)) == (len(set(ids)) == len(ids))


@given(st.lists(IDS, max_size=40), st.lists(IDS, max_size=40))
@settings(max_examples=300, deadline=None)
def test_positions_are_a_dicts_lookups(values: list[str], vocabulary: list[str]) -> None:
    vocabulary = list(dict.fromkeys(vocabulary))
    where = {v: i for i, v in enumerate(vocabulary)}
    expected = [where.get(v, -1) for v in values]
    assert id_positions(objects(values), objects(vocabulary)).tolist() == expected
    index = IdIndex.of(objects(vocabulary))
    assert index.positions(objects(values)).tolist() == expected  # once built, many lookups
    assert index.positions(objects(values[:3])).tolist() == expected[:3]


@pytest.mark.parametrize(
    ("values", "vocabulary"),
    [
        (["1", "10", "9", "é", "12345678", "123456789"], ["9", "12345678", "1"]),  # words index
        (["é", "x", "éé"], ["x", "é"]),  # code points
        (["abcdefghij", "abcdefghi", "a"], ["abcdefghij", "abcdefghijk"]),  # bytes, other widths
        (["a", "ab"], []),
        ([], ["a"]),
    ],
)
def test_lookups_across_kinds_and_widths(values: list[str], vocabulary: list[str]) -> None:
    where = {v: i for i, v in enumerate(vocabulary)}
    expected = [where.get(v, -1) for v in values]
    assert id_positions(objects(values), objects(vocabulary)).tolist() == expected


def test_an_id_holding_nul_is_refused() -> None:
    """NumPy's fixed-width strings drop trailing NULs: "a" and "a\\0" would be one key. No reader
    lets a NUL through; an id from elsewhere holding one is refused, never merged."""
    with pytest.raises(ValueError, match="NUL"):
        sorted_unique_ids(objects(["a", "a\x00"]))
