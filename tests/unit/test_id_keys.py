"""Ids sorted and looked up as NumPy keys (:mod:`rankviz.io.id_keys`) agree with Python's own
sort and lookups: ``sorted`` orders str by code point, which is UTF-8 byte order, trec_eval's
``strcmp``."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankviz.io.id_keys import (
    IdIndex,
    ascending,
    distinct,
    distinct_and_indexed,
    distinct_strings,
    id_order,
    id_positions,
    ranks,
    sorted_unique_ids,
)

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


@given(
    st.lists(
        st.tuples(st.sampled_from(["q1", "q2", "10", "9", "é"]), st.integers(0, 5)), max_size=30
    ),
    st.lists(st.sampled_from(["q1", "q2", "10", "9", "é", "absent"]), max_size=8),
)
@settings(max_examples=200, deadline=None)
# over a second: test_an_index_of_some_ids_is_the_index_of_those_ids and test_grade_lookup's
# restricted block are its quicker siblings
@pytest.mark.slow
def test_qrels_restricted_to_some_queries_are_pandas_filter(pairs, wanted) -> None:
    """The judgments of the wanted queries, in file order, whatever the wanted list repeats or
    lacks: what a filter of the qrels' frame keeps."""
    import pandas as pd

    import rankviz as rv

    judged = list(dict.fromkeys((q, f"d{d}") for q, d in pairs))
    if not judged:
        return
    frame = pd.DataFrame(judged, columns=["qid", "docid"]).assign(rel=range(len(judged)))
    qrels = rv.qrels_from_frame(frame)
    kept = qrels.restricted(wanted).to_frame()
    expected = frame[frame["qid"].isin(wanted)].reset_index(drop=True)
    assert kept.to_dict("list") == expected.to_dict("list")
    # a set of queries (what a meeting's re-judged queries are) is taken as its queries
    assert qrels.restricted(set(wanted)).to_frame().to_dict("list") == expected.to_dict("list")
    # its index, taken from the whole qrels' keys: strcmp order and a dict's lookups
    restricted = qrels.restricted(wanted)
    index, ids = restricted.query_index, restricted.query_ids.tolist()
    assert np.asarray(ids, dtype=object)[index.order].tolist() == sorted(ids)
    where = {q: i for i, q in enumerate(ids)}
    probes = ["q1", "q2", "10", "9", "é", "absent", "1"]
    assert index.positions(objects(probes)).tolist() == [where.get(q, -1) for q in probes]


@given(st.lists(IDS, max_size=40, unique=True), st.data())
@settings(max_examples=200, deadline=None)
def test_an_index_of_some_ids_is_the_index_of_those_ids(ids: list[str], data) -> None:
    """``subset`` (no key computed again) sorts and finds what an index made of those ids does,
    whatever kinds of key the whole index and the subset would take."""
    kept = data.draw(st.lists(st.integers(0, max(len(ids) - 1, 0)), unique=True)) if ids else []
    chosen = np.asarray(kept, dtype=np.int64)
    subset = IdIndex.of(objects(ids)).subset(chosen)
    some = [ids[k] for k in kept]
    assert objects(some)[subset.order].tolist() == sorted(some)
    probes = objects([*ids, "absent", "0"])
    assert subset.positions(probes).tolist() == IdIndex.of(objects(some)).positions(probes).tolist()


@given(
    st.lists(st.sampled_from(["a", "b", "c", "D1", "d1", "01"]), max_size=6),
    st.lists(st.sampled_from(["a", "b", "c", "D1", "d1", "1", "x", "y"]), min_size=1, max_size=40),
)
@settings(max_examples=200, deadline=None)
def test_the_first_place_of_each_id_is_arrows_index_in(values, targets) -> None:
    """Near misses hash the smaller side (a sample of a run's ids against a million judged ones):
    each value's first place among the targets is still what Arrow's ``index_in`` gives."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from rankviz.io.id_forms import _first_in

    found = _first_in(pa.array(values, pa.string()), pa.array(targets, pa.string()))
    expected = pc.index_in(pa.array(values, pa.string()), value_set=pa.array(targets, pa.string()))
    assert found.tolist() == [-1 if v is None else v for v in expected.to_pylist()]


@given(st.lists(IDS, max_size=40), st.lists(IDS, max_size=40), st.integers(0, 40), st.booleans())
@settings(max_examples=200, deadline=None)
def test_arrow_strings_are_found_where_their_objects_are(
    values: list[str], vocabulary: list[str], cut: int, large: bool
) -> None:
    """Arrow strings (one chunk or two, a slice, string or large_string) keyed from their buffers
    find what the same ids as objects find, whatever the index's kind of key; the vocabulary
    itself, in its order, finds every id at its place."""
    import pyarrow as pa

    vocabulary = list(dict.fromkeys(vocabulary))
    index = IdIndex.of(objects(vocabulary))
    kind = pa.large_string() if large else pa.string()
    cut = min(cut, len(values))
    chunked = pa.chunked_array([values[:cut], values[cut:]], type=kind)
    expected = index.positions(objects(values)).tolist()
    assert index.positions(chunked).tolist() == expected
    assert index.positions(pa.array(values, kind)).tolist() == expected
    # a slice shares the whole array's buffer (a streamed block's ids)
    every = pa.array(["x", *values, "y"], kind)
    assert index.positions(every.slice(1, len(values))).tolist() == expected
    assert index.positions(pa.array(vocabulary, kind)).tolist() == list(range(len(vocabulary)))


def test_the_same_arrow_ids_again_are_not_sorted_again(monkeypatch) -> None:
    """A second run listing the same queries in the same order gets the first one's positions
    without a sort; ids that differ in one byte are looked up; no caller shares another's array,
    and a pickled index carries no lookup."""
    import pickle

    import pyarrow as pa

    ids = [f"q{i}" for i in range(50)]
    index = IdIndex.of(objects(ids))
    sorts = []
    looked_up = IdIndex._found
    monkeypatch.setattr(
        IdIndex, "_found", lambda self, *args: sorts.append(1) or looked_up(self, *args)
    )
    first = index.positions(pa.array([*ids[::-1], "absent"]))
    expected = [*range(49, -1, -1), -1]
    assert first.tolist() == expected and len(sorts) == 1
    first[:] = -7  # the caller's own array
    assert index.positions(pa.array([*ids[::-1], "absent"])).tolist() == expected
    assert len(sorts) == 1
    assert index.positions(pa.array([*ids[::-1], "q0"])).tolist()[-1] == 0
    assert len(sorts) == 2
    assert pickle.loads(pickle.dumps(index))._last == []


def test_an_arrow_id_holding_nul_is_refused() -> None:
    import pyarrow as pa

    with pytest.raises(ValueError, match="NUL"):
        IdIndex.of(objects(["a", "b"])).positions(pa.array(["a", "a\x00"]))


@given(st.lists(IDS, max_size=40, unique=True), st.booleans())
@settings(max_examples=200, deadline=None)
def test_an_index_keyed_from_arrow_strings_is_the_index_of_the_objects(
    ids: list[str], chunked: bool
) -> None:
    """A reader's Arrow strings key the index from their buffers (ASCII of up to 8 bytes) or leave
    it to the objects: the same kind, keys and order either way, and it finds the same ids."""
    import pyarrow as pa

    strings = pa.chunked_array([ids[:3], ids[3:]], pa.string()) if chunked else pa.array(ids)
    from_strings, from_objects = IdIndex.of(objects(ids), strings=strings), IdIndex.of(objects(ids))
    assert (from_strings.kind, from_strings.width) == (from_objects.kind, from_objects.width)
    assert from_strings.sorted_keys.tolist() == from_objects.sorted_keys.tolist()
    assert from_strings.order.tolist() == from_objects.order.tolist()
    probes = objects([*ids, "absent", "0", "é"])
    assert from_strings.positions(probes).tolist() == from_objects.positions(probes).tolist()


def test_qrels_index_their_queries_from_the_readers_strings(tmp_path) -> None:
    """The qrels a reader makes carry its Arrow strings of the query ids, and their index is keyed
    from them: the ids in strcmp order, found where they are."""
    from rankviz.io.id_keys import _ascii_words
    from rankviz.io.readers import read_qrels

    path = tmp_path / "qrels.txt"
    path.write_text("q10 0 d1 1\nq2 0 d1 0\nq1 0 d2 2\nq10 0 d3 1\n")
    qrels = read_qrels(str(path))
    assert qrels.query_id_strings is not None
    assert qrels.query_id_strings.to_pylist() == qrels.query_ids.tolist() == ["q10", "q2", "q1"]
    assert _ascii_words(qrels.query_id_strings) is not None  # the buffers' road, not the objects'
    index = qrels.query_index
    assert qrels.query_ids[index.order].tolist() == ["q1", "q10", "q2"]
    assert index.positions(objects(["q2", "q3", "q1"])).tolist() == [1, -1, 2]


@given(
    st.lists(st.text("ab#:1", max_size=5), max_size=30),
    st.integers(0, 30),
    st.integers(0, 30),
    st.booleans(),
)
@settings(max_examples=200, deadline=None)
def test_which_ids_hold_a_character_is_arrows_match(ids, start, cut, chunked) -> None:
    """The buffers' scan that spares a pass over the ids answers as Arrow's substring match does:
    a slice (whose buffer holds the whole array's bytes), one chunk or two, with and without the
    character."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from rankviz.io.id_forms import _holding

    whole = pa.array(ids, pa.string())
    some = whole.slice(min(start, len(ids)))
    cut = min(cut, len(some))
    keys = pa.chunked_array([some.slice(0, cut), some.slice(cut)]) if chunked else some
    for character in "#:":
        expected = pc.match_substring(keys, character).to_pylist()
        assert _holding(keys, character).tolist() == expected


# long ids that differ only in their middle bytes share a 64-bit key (length, first 8, last 16)
SHARED_KEY = st.sampled_from(["msmarco_" + middle + "_0000000000000001" for middle in "ABC"])


@given(st.lists(st.one_of(IDS, SHARED_KEY), max_size=30), st.integers(0, 30))
@settings(max_examples=100, deadline=None)
def test_arrow_strings_are_distinct_as_a_set_of_them_is(ids: list[str], cut: int) -> None:
    """Keys from the buffers decide, and where two keys are equal (ids that share one) the ids do:
    the answer of a Python set, for one chunk or two."""
    import pyarrow as pa

    expected = len(set(ids)) == len(ids)
    assert distinct_strings(pa.array(ids, pa.string())) == expected
    cut = min(cut, len(ids))
    assert distinct_strings(pa.chunked_array([ids[:cut], ids[cut:]], pa.string())) == expected


@given(st.lists(st.one_of(IDS, SHARED_KEY), max_size=30), st.lists(IDS, max_size=30))
@settings(max_examples=200, deadline=None)
def test_ids_sorted_to_check_they_are_distinct_are_an_index(ids: list[str], others) -> None:
    """A reader's one sort of its query ids: whether no id comes twice (a Python set's answer)
    and, where they are ASCII words and distinct, their index, which finds other ids and is found
    by another such index (their sorted keys merged) where a dict of the ids finds them."""
    import pyarrow as pa

    distinct_ids, index = distinct_and_indexed(objects(ids), pa.array(ids, pa.string()))
    assert distinct_ids == (len(set(ids)) == len(ids))
    words = all(i.isascii() and len(i.encode()) <= 8 for i in ids)
    assert (index is not None) == (distinct_ids and words) or not ids
    if index is None:
        return
    made = IdIndex.of(objects(ids))
    assert index.sorted_keys.tolist() == made.sorted_keys.tolist()
    assert index.order.tolist() == made.order.tolist()
    at = {i: n for n, i in enumerate(ids)}
    others = list(dict.fromkeys(others))
    assert index.positions(objects(others)).tolist() == [at.get(o, -1) for o in others]
    _, theirs = distinct_and_indexed(objects(others), pa.array(others, pa.string()))
    if theirs is not None:
        assert index.positions(theirs).tolist() == [at.get(o, -1) for o in others]
        assert index.positions(theirs) is not index.positions(theirs)  # the caller's own array


def test_a_run_read_with_its_queries_sorted_finds_them_among_the_qrels_by_a_merge(
    tmp_path, monkeypatch
) -> None:
    """The readers keep the index they sorted: the run's queries are found among the qrels' by
    merging the two (no sort of the run's keys at the lookup), the places a dict of the qrels'
    ids gives; a run whose queries come back is dictionary-encoded and keeps none."""
    from rankviz.io.readers import read_qrels, read_run
    from rankviz.ranking.ordering import judged_order, judged_positions

    (tmp_path / "qrels").write_text("q10 0 d1 1\nq2 0 d1 0\nq1 0 d2 2\nq7 0 d3 1\n")
    (tmp_path / "run").write_text("q2 Q0 d1 1 2 r\nq3 Q0 d1 1 2 r\nq10 Q0 d9 1 2 r\n")
    (tmp_path / "back").write_text("q2 Q0 d1 1 2 r\nq3 Q0 d1 1 2 r\nq2 Q0 d9 2 1 r\n")
    qrels, run = read_qrels(str(tmp_path / "qrels")), read_run(str(tmp_path / "run"))
    assert qrels.query_id_index is not None and qrels.query_index is qrels.query_id_index
    assert run.query_ids_to_look_up() is run.query_id_index is not None
    assert read_run(str(tmp_path / "back")).query_id_index is None
    monkeypatch.setattr(IdIndex, "_found", lambda *args: pytest.fail("the run's keys sorted"))
    order, place = judged_order(qrels)
    found = judged_positions(run, qrels, place)
    judged_in_order = qrels.query_ids[order].tolist()
    expected = [judged_in_order.index(q) if q in judged_in_order else -1 for q in run.query_ids]
    assert found.tolist() == expected == [2, -1, 1]


@given(st.integers(1, 400), st.data())
@settings(max_examples=150, deadline=None)
def test_positions_ordered_by_marks_or_by_a_sort_are_numpys_unique(size: int, data) -> None:
    """Positions among ``size`` (few: sorted; many: marked in a table and read back) in ascending
    order each once, and each distinct one's place among them: NumPy's unique and its inverse."""
    positions = np.array(
        data.draw(st.lists(st.integers(0, size - 1), max_size=size)), dtype=np.int64
    )
    assert ascending(positions, size).tolist() == np.unique(positions).tolist()
    distinct_ones = np.array(list(dict.fromkeys(positions.tolist())), dtype=np.int64)
    expected = np.unique(distinct_ones, return_inverse=True)[1]
    assert ranks(distinct_ones, size).tolist() == expected.tolist()


@pytest.mark.parametrize("wanted", [3, 20, 290])
def test_a_few_or_many_queries_kept_are_a_filter_and_their_index_the_wholes(wanted: int) -> None:
    """Qrels of 300 queries restricted to a few of them (each query's rows taken) or to many (one
    pass over the judgments): a filter of their frame, and an index, taken from the whole's, that
    orders and finds the kept ids as a sort and a dict do."""
    import pandas as pd

    import rankviz as rv

    rng = np.random.default_rng(wanted)
    qids = [f"q{q}" for q in rng.permutation(300)]
    frame = pd.DataFrame(
        [(q, f"d{d}") for q in qids for d in range(int(rng.integers(1, 4)))],
        columns=["qid", "docid"],
    ).assign(rel=lambda f: np.arange(len(f)) % 3)
    qrels = rv.qrels_from_frame(frame)
    kept_ids = list(rng.choice(qids, size=wanted, replace=False))
    restricted = qrels.restricted(kept_ids + kept_ids[:2])  # two of them asked twice
    expected = frame[frame["qid"].isin(kept_ids)].reset_index(drop=True)
    assert restricted.to_frame().to_dict("list") == expected.to_dict("list")
    index, ids = restricted.query_index, restricted.query_ids.tolist()
    assert np.asarray(ids, dtype=object)[index.order].tolist() == sorted(ids)
    where = {q: i for i, q in enumerate(ids)}
    probes = [*qids[:10], "absent"]
    assert index.positions(objects(probes)).tolist() == [where.get(q, -1) for q in probes]
