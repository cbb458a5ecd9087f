"""Ids sorted and looked up as NumPy keys, never one Python call per id.

A run can list a million queries. Sorting their ids (trec_eval prints queries in ``strcmp``
order), finding them among the judged ones, or checking that none comes twice, one Python call per
id, costs seconds; as NumPy keys it costs a few array passes. ASCII ids of up to 8 bytes (most
query ids) become big-endian words, zero-padded (no id holds a NUL, so a prefix sorts first);
longer ASCII ids fixed-width bytes; others code points (UTF-8 byte order is code point order).

Reading a million str objects costs several times more in an order other than the one they were
made in (each is a cache miss): keys are taken of arrays as read (a reader's ``query_ids``), and
permuted as keys, where there is the choice.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from rankviz._arrow import leading_words, string_keys

_WORDS, _BYTES, _TEXT = "words", "bytes", "text"


def _objects(ids) -> np.ndarray:
    """The ids as a 1-d object array (a set or any iterable of ids is taken as its ids)."""
    values = np.asarray(ids if isinstance(ids, np.ndarray) else list(ids), dtype=object)
    if "\x00" in "".join(values.tolist()):
        raise ValueError("an id holds a NUL character")
    return values


def _same(values: np.ndarray, ids: np.ndarray) -> bool:
    """The same ids in the same order (common: a run and qrels written from one topic list); the
    first few compared before all of them."""
    return (
        len(values) == len(ids)
        and bool(np.all(values[:16] == ids[:16]))
        and bool(np.all(values == ids))
    )


def _words(encoded: np.ndarray) -> np.ndarray:
    return encoded.astype("S8").view(">u8").astype(np.uint64)


@dataclass(frozen=True, eq=False)
class SortedKeys:
    """An :class:`IdIndex` without its ids (:meth:`IdIndex.without_ids`)."""

    kind: str
    width: int
    sorted_keys: np.ndarray
    order: np.ndarray

    def with_ids(self, ids: np.ndarray) -> IdIndex:
        """The index of ``ids``, the ids these keys were taken of, in the same order."""
        return IdIndex(ids, self.kind, self.width, self.sorted_keys, self.order)


def _keys(values: np.ndarray) -> tuple[np.ndarray, str, int]:
    """(keys, their kind, the byte width of the ASCII kinds) of ids."""
    try:
        encoded = values.astype("S") if len(values) else values.astype("S1")
    except UnicodeEncodeError:
        return values.astype("U") if len(values) else values.astype("U1"), _TEXT, 0
    width = encoded.dtype.itemsize
    return (_words(encoded), _WORDS, 8) if width <= 8 else (encoded, _BYTES, width)


def _ascii_words(strings: pa.Array | pa.ChunkedArray) -> np.ndarray | None:
    """The word keys :func:`_keys` makes of ASCII ids of up to 8 bytes, read from Arrow strings;
    None when one is longer, not ASCII or holds a NUL (the objects' road then decides)."""
    keyed = leading_words(strings)
    if (
        keyed is None
        or bool((keyed[1] > 8).any())
        or not pc.all(pc.string_is_ascii(strings)).as_py()
    ):
        return None
    return keyed[0]


@dataclass(frozen=True, eq=False)
class IdIndex:
    """Distinct ids with their keys sorted once, looked up many times (each block of a streamed
    run among a million judged queries costs the block, not the million).

    Parameters
    ----------
    ids
        The distinct ids (object array of str), in their own order.
    """

    ids: np.ndarray
    kind: str
    width: int
    sorted_keys: np.ndarray
    order: np.ndarray  # ids[order] are in strcmp order
    #: the last Arrow ids looked up and where they are (see :meth:`positions`)
    _last: list = field(default_factory=list, repr=False)

    @classmethod
    def of(cls, ids, *, strings: pa.Array | pa.ChunkedArray | None = None) -> IdIndex:
        """The index of distinct ``ids``; ``strings``: the same ids as Arrow strings (a reader's),
        keyed from their buffers when all are ASCII of up to 8 bytes (no Python object read)."""
        keyed = _ascii_words(strings) if strings is not None else None
        if keyed is not None:
            values, keys, kind, width = np.asarray(ids, dtype=object), keyed, _WORDS, 8
        else:
            values = _objects(ids)
            keys, kind, width = _keys(values)
        return cls.sorting(values, keys, kind, width)

    @classmethod
    def sorting(cls, values: np.ndarray, keys: np.ndarray, kind: str, width: int) -> IdIndex:
        """The index of ids (``values``) whose keys are given, sorted here: for distinct ids no
        two keys tie, so any sort is the one order (a caller that is not sure checks the sorted
        keys)."""
        order = np.argsort(keys)
        return cls(values, kind, width, keys[order], order)

    def __getstate__(self) -> dict:
        """Pickled (a Dask job's qrels) without the last lookup: a run's ids are not the job's."""
        return {**self.__dict__, "_last": []}

    def without_ids(self) -> SortedKeys:
        """What this index holds besides its ids, to be sent where the ids are made again."""
        return SortedKeys(self.kind, self.width, self.sorted_keys, self.order)

    @functools.cached_property
    def place(self) -> np.ndarray:
        """Each id's place in ``strcmp`` order (the inverse of :attr:`order`), made once."""
        places = np.empty(len(self.order), dtype=np.int64)
        places[self.order] = np.arange(len(self.order))
        return places

    def places(self, positions: np.ndarray) -> np.ndarray:
        """The place in ``strcmp`` order of the ids at these positions of :attr:`ids`."""
        return self.place[positions]

    def subset(self, kept: np.ndarray) -> IdIndex:
        """The index of ``ids[kept]`` (distinct positions) from this one's sorted keys: only the
        kept ids' places are ordered, no key is computed again (a streamed run's block of judged
        queries costs the block, not its ids' keys)."""
        places = self.places(kept)
        if many(len(kept), len(self.order)):  # the places marked and read back in order
            which = np.full(len(self.order), -1, dtype=np.int64)
            which[places] = np.arange(len(kept))
            ordered = np.flatnonzero(which >= 0)
            order = which[ordered]
        else:
            order = np.argsort(places)
            ordered = places[order]
        return IdIndex(self.ids[kept], self.kind, self.width, self.sorted_keys[ordered], order)

    def _keys_of(self, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(keys of other ids in this index's kind, which of them could be among its ids)."""
        every = np.ones(len(values), dtype=bool)
        if self.kind == _TEXT:
            return values.astype("U"), every
        ascii_only = every
        try:
            encoded = values.astype("S")
        except UnicodeEncodeError:  # those beyond ASCII are none of these ASCII ids
            ascii_only = np.fromiter((v.isascii() for v in values), dtype=bool, count=len(values))
            encoded = np.where(ascii_only, values, "").astype("S")
        fits = ascii_only & (np.char.str_len(encoded) <= self.width)
        encoded = encoded.astype(f"S{self.width}")
        return (_words(encoded) if self.kind == _WORDS else encoded), fits

    def positions(self, values) -> np.ndarray:
        """Each value's position in :attr:`ids`, -1 where it is not there (int64). ``values``: ids
        as an object array or any iterable of str, Arrow strings, keyed from their buffers where
        this index's keys are words (no Python object per id), or another index of distinct ids,
        whose sorted keys are merged with these where both are words (no sort at all).

        Arrow ids equal, string for string, to the last Arrow ids looked up (the same index) get
        the positions found then: runs of one topic set list the same queries in the same order,
        and the second of two runs of a million queries costs a comparison of their bytes, not a
        sort of its keys."""
        if isinstance(values, (pa.Array, pa.ChunkedArray, IdIndex)):
            for seen, found in self._last:
                if seen is values or _same_strings(seen, values):
                    return found.copy()
            if isinstance(values, IdIndex):
                found = self._index_positions(values)
            else:
                found = self._arrow_positions(values)
            self.remember(values, found)
            return found
        return self._object_positions(values)

    def remember(self, values: pa.Array | pa.ChunkedArray | IdIndex, positions: np.ndarray) -> None:
        """Take ``positions`` as what :meth:`positions` answers for these Arrow ids (this index)
        next: what the maker of this index found already (a block's ids looked up among all the
        qrels' queries, then among the block's judged ones, which :meth:`subset` indexes)."""
        self._last[:] = [(values, np.asarray(positions, dtype=np.int64).copy())]

    def _index_positions(self, other: IdIndex) -> np.ndarray:
        if other.kind != _WORDS or self.kind != _WORDS or not len(self.ids):
            return self.positions(other.ids)
        found = np.full(len(other.ids), -1, dtype=np.int64)
        at = np.searchsorted(self.sorted_keys, other.sorted_keys)  # sorted needles: one sweep
        np.minimum(at, len(self.sorted_keys) - 1, out=at)
        hit = self.sorted_keys[at] == other.sorted_keys
        found[other.order[hit]] = self.order[at[hit]]
        return found

    def _arrow_positions(self, values: pa.Array | pa.ChunkedArray) -> np.ndarray:
        keyed = leading_words(values) if self.kind == _WORDS and len(self.ids) else None
        if keyed is None:
            return self._object_positions(values.to_pylist())
        keys, fits = keyed[0], keyed[1] <= self.width
        if len(keys) == len(self.ids) and bool(fits.all()):
            if np.array_equal(self.sorted_keys[self.place], keys):  # the ids, in order
                return np.arange(len(keys), dtype=np.int64)
        return self._found(keys, fits)

    def _object_positions(self, values) -> np.ndarray:
        values = _objects(values)
        if not len(values) or not len(self.ids):
            return np.full(len(values), -1, dtype=np.int64)
        if _same(values, self.ids):
            return np.arange(len(values), dtype=np.int64)
        return self._found(*self._keys_of(values))

    def _found(self, keys: np.ndarray, fits: np.ndarray) -> np.ndarray:
        """Where each key is among the sorted ones (-1: not there, or ``fits`` False)."""
        found = np.full(len(keys), -1, dtype=np.int64)
        if not len(keys):
            return found
        # sorted needles find their places in one sweep (random ones miss the cache every probe)
        needles = np.argsort(keys)  # equal needles find the same place in any order
        at = np.empty(len(keys), dtype=np.int64)
        at[needles] = np.searchsorted(self.sorted_keys, keys[needles])
        np.minimum(at, len(self.sorted_keys) - 1, out=at)
        hit = fits & (self.sorted_keys[at] == keys)
        found[hit] = self.order[at[hit]]
        return found


def _same_strings(seen, values) -> bool:
    """Both Arrow strings of one type, equal string for string."""
    return (
        isinstance(values, (pa.Array, pa.ChunkedArray))
        and type(seen) is type(values)
        and seen.type == values.type
        and seen.equals(values)
    )


def many(count: int, size: int) -> bool:
    """Whether ``count`` positions among ``size`` are ordered faster by marking them in a table
    of ``size`` and reading it back than by a sort: 30,000 of a million took 0.6 ms so against a
    sort's 1.1 ms, 10,000 as long as a sort (a streamed run's block holds a sixth of a million
    judged queries)."""
    return count * 32 >= size


def marks(positions: np.ndarray, size: int) -> np.ndarray:
    """A table of ``size`` booleans, True at ``positions``."""
    marked = np.zeros(size, dtype=bool)
    marked[positions] = True
    return marked


def ascending(positions: np.ndarray, size: int) -> np.ndarray:
    """The distinct ``positions`` (integers in ``[0, size)``, any order, repeated or not) in
    ascending order (int64): marked and read back where they are :func:`many`, else sorted."""
    if many(len(positions), size):
        return np.flatnonzero(marks(positions, size))
    ordered = np.sort(np.asarray(positions, dtype=np.int64))
    return ordered[np.r_[True, ordered[1:] != ordered[:-1]]] if len(ordered) else ordered


def ranks(positions: np.ndarray, size: int) -> np.ndarray:
    """Each of distinct ``positions``' (integers in ``[0, size)``) place among them in ascending
    order (int64): the count of those marked before it where they are :func:`many`, else where
    a sort puts it."""
    if many(len(positions), size):
        return (np.cumsum(marks(positions, size), dtype=np.int64) - 1)[positions]
    return np.searchsorted(np.sort(positions), positions).astype(np.int64)


def id_positions(values, vocabulary) -> np.ndarray:
    """Each value's position in ``vocabulary`` (distinct ids), -1 where it is not there (int64);
    for many lookups in one vocabulary, :class:`IdIndex`."""
    values, vocabulary = _objects(values), _objects(vocabulary)
    if not len(values) or not len(vocabulary):
        return np.full(len(values), -1, dtype=np.int64)
    if _same(values, vocabulary):
        return np.arange(len(values), dtype=np.int64)
    return IdIndex.of(vocabulary).positions(values)


def id_order(ids) -> np.ndarray:
    """The permutation that puts distinct ids in trec_eval's output order (``strcmp``)."""
    values = _objects(ids)
    if not len(values):
        return np.zeros(0, dtype=np.int64)
    return np.argsort(_keys(values)[0], kind="stable")


def sorted_unique_ids(ids) -> np.ndarray:
    """The distinct ids in trec_eval's output order (``strcmp``), an object array of str."""
    values = _objects(ids)
    if not len(values):
        return np.zeros(0, dtype=object)
    _, first = np.unique(_keys(values)[0], return_index=True)
    return values[first]


def distinct(ids) -> bool:
    """Whether no id appears twice."""
    values = _objects(ids)
    if len(values) < 2:
        return True
    keys = np.sort(_keys(values)[0])
    return not bool(np.any(keys[1:] == keys[:-1]))


def distinct_and_indexed(ids: np.ndarray, strings: pa.Array) -> tuple[bool, IdIndex | None]:
    """(whether no id appears twice, their :class:`IdIndex` where it came on the way): ASCII ids
    of up to 8 bytes (most query ids) are sorted as words once, which answers both (a reader
    checks a run's queries come back nowhere, its lookups need them sorted); others are checked
    by :func:`distinct_strings`. ``ids``: the same ids as ``strings``, as objects."""
    keys = _ascii_words(strings)
    if keys is None:
        return distinct_strings(strings), None
    index = IdIndex.sorting(np.asarray(ids, dtype=object), keys, _WORDS, 8)
    ordered = index.sorted_keys
    if bool(np.any(ordered[1:] == ordered[:-1])):  # equal words are equal ids
        return False, None
    return True, index


def distinct_strings(ids: pa.Array | pa.ChunkedArray) -> bool:
    """Whether no id appears twice, of Arrow strings: their 64-bit keys, read from the buffers, all
    differ (no Python object per id); equal keys may still be different long ids, which
    :func:`distinct` then decides."""
    keys = np.sort(string_keys(ids))
    return not bool(np.any(keys[1:] == keys[:-1])) or distinct(ids.to_pylist())
