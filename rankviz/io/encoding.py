"""How ids are encoded: dictionaries, docid keys, the checks on ids and duplicate rows."""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from rankviz._arrow import booleans, from_numpy, string_keys, take, take_sorted, to_numpy
from rankviz.io.id_keys import distinct_and_indexed


def dictionary(values) -> pa.DictionaryArray:
    encoded = pc.dictionary_encode(values)
    return encoded.combine_chunks() if isinstance(encoded, pa.ChunkedArray) else encoded


def grouped_dictionary(values) -> pa.DictionaryArray:
    """:func:`dictionary` of values whose equal ones mostly come together (a topic's judgments):
    coded from where the value changes, as dictionary encoding codes them (first-seen order),
    without hashing every value; dictionary-encoded where a value comes back."""
    if len(values):
        opens = _opens(values)
        heads = take_sorted(values, np.flatnonzero(opens))
        if pc.count_distinct(heads).as_py() == len(heads):
            codes = np.cumsum(opens, dtype=np.int32)
            codes -= 1
            return pa.DictionaryArray.from_arrays(from_numpy(codes), heads)
    return dictionary(values)


def _opens(values) -> np.ndarray:
    """Per row: its value is not the row before's (the first row opens)."""
    opens = np.empty(len(values), dtype=bool)
    opens[0] = True
    opens[1:] = booleans(pc.not_equal(values.slice(1), values.slice(0, len(values) - 1)))
    return opens


def encode_queries(qid) -> dict:
    """Query ids as int32 codes in first-appearance order: ``query_ids`` (an object array),
    ``qid_codes`` (int32 per row), ``query_id_strings`` (the ids as Arrow strings) and
    ``query_id_index`` (their :class:`~rankviz.io.id_keys.IdIndex`, or None: made when asked).

    Runs list each query's lines together, so the codes come from where the qid changes, without
    hashing millions of strings; a file whose queries come back later is dictionary-encoded.
    """
    if len(qid):
        opens = _opens(qid)  # a line whose qid is not the line before's
        starts = np.flatnonzero(opens)
        strings = take_sorted(qid, starts)
        query_ids = np.asarray(strings.to_pylist(), dtype=object)  # to_numpy would import pandas
        distinct, index = distinct_and_indexed(query_ids, strings)
        if distinct:
            codes = np.cumsum(opens, dtype=np.int32)
            codes -= 1
            return {
                "query_ids": query_ids,
                "qid_codes": codes,
                "query_id_strings": strings,
                "query_id_index": index,
            }
    q = dictionary(qid)
    return {
        "query_ids": np.asarray(q.dictionary.to_pylist(), dtype=object),
        "qid_codes": to_numpy(q.indices).astype(np.int32, copy=False),
        "query_id_strings": q.dictionary,
        "query_id_index": None,
    }


def encode(qid, docid, *, queries: dict | None = None) -> dict:
    """The fields of :class:`~rankviz.io.model.Qrels` from their query and docid columns: query ids
    as :func:`encode_queries` codes them (``queries``: already coded), docids as one piece."""
    queries = encode_queries(qid) if queries is None else queries
    return {
        "query_ids": queries["query_ids"],
        "qid_codes": queries["qid_codes"],
        "docids": docid.combine_chunks() if isinstance(docid, pa.ChunkedArray) else docid,
        "query_id_strings": queries["query_id_strings"],
        "query_id_index": queries["query_id_index"],
    }


def docid_numbers(docid) -> np.ndarray | None:
    """Every docid as an integer (int32 where they fit), or None when one is not a number.

    A stand-in for the strings where a false match costs only a look at the strings ("01" and
    "1" share a number): sorting or probing integers is several times faster than strings. A
    sample decides first: a failed cast of millions of strings costs seconds.
    """
    sample = docid.slice(0, 1000) if len(docid) > 1000 else docid
    for integer in (pa.int32(), pa.int64()):
        try:
            pc.cast(sample, integer)
            return to_numpy(pc.cast(docid, integer))
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            continue
    return None


@dataclass(frozen=True, eq=False)
class DocidKeys:
    """One integer per docid, equal for equal docids: the numbers where every docid is one (int32
    where they fit), else the string's key (:func:`rankviz._arrow.string_keys`) folded to 32 bits,
    which sort twice as fast as 64. Different docids may share a key ("01" and "1", or a collision,
    about one query in ten thousand for 1,000 documents a query): callers compare the strings of
    equal keys. Sorting and probing these is several times faster than strings."""

    values: np.ndarray
    numeric: bool

    @classmethod
    def of(cls, docid) -> DocidKeys:
        numbers = docid_numbers(docid)
        if numbers is not None:
            return cls(numbers, True)
        return cls(string_keys(docid, bits=32).view(np.int32), False)

    def aligned(self, docids: pa.Array) -> tuple[np.ndarray, np.ndarray]:
        """The keys of other docids (a qrels' docids) in this space, one per docid (int64), and
        which of them can equal one of ours: with numbers, those that are numbers of this width."""
        if not self.numeric:
            keys = string_keys(docids, bits=32).view(np.int32).astype(np.int64)
            return keys, np.ones(len(docids), dtype=bool)
        numbers = docid_numbers(docids)
        if numbers is None:  # some are not numbers: the others one by one (qrels, not a run)
            texts = docids.to_pylist()
            numeric = np.fromiter(
                (INTEGER.fullmatch(d) is not None for d in texts), dtype=bool, count=len(texts)
            )
            numbers = np.asarray([int(d) if n else 0 for d, n in zip(texts, numeric)], object)
        else:
            numeric = np.ones(len(numbers), dtype=bool)
        limits = np.iinfo(self.values.dtype)
        fits = numeric & (numbers >= limits.min) & (numbers <= limits.max)
        return np.where(fits, numbers, 0).astype(np.int64), fits.astype(bool)

    def rows_among(
        self,
        keys: np.ndarray,
        key_queries: np.ndarray,
        row_queries: np.ndarray,
        rows: np.ndarray | None = None,
    ) -> np.ndarray:
        """Positions (in ``rows``, default every row) whose pair of query (``row_queries``, one per
        row) and key may be one of the pairs (``key_queries``, ``keys``): all of those whose pair
        is, and a few percent of the others.

        A bitmap of the pairs' hashes, 32 bits a pair up to 2 MB, probed a block of rows at a
        time: a larger table misses the cache at every probe (a table of 16M bytes cost 1.5-2x
        this one of 16M bits on 10M rows), and the pair, not the docid alone, leaves out the rows
        whose docid is judged for another query (a million judgments: 1.5M candidates of 10M
        rows against 2.4M)."""
        values = self.values if rows is None else self.values[rows]
        queries = row_queries if rows is None else row_queries[rows]
        bits = int(np.clip(np.ceil(np.log2(max(len(keys), 1) * 32)), 16, 24))
        table = np.zeros(1 << (bits - 3), dtype=np.uint8)
        hashed = _pair_hashes(key_queries, keys, bits)
        np.bitwise_or.at(table, hashed >> 3, np.left_shift(1, hashed & 7, dtype=np.uint8))
        found = []
        for start in range(0, len(values), _BLOCK):
            hashed = _pair_hashes(
                queries[start : start + _BLOCK], values[start : start + _BLOCK], bits
            )
            hit = table[hashed >> 3]
            hit >>= (hashed & 7).astype(np.uint8)
            hit &= 1
            found.append(np.flatnonzero(hit) + start)
        return np.concatenate(found) if found else np.zeros(0, np.int64)


# rows a block when probing: each temporary stays in the cache
_BLOCK = 1 << 16


def _pair_hashes(queries: np.ndarray, keys: np.ndarray, bits: int) -> np.ndarray:
    """A ``bits``-bit hash of each (query, key) pair (multiply-shift over 32 bits)."""
    if keys.dtype.itemsize <= 4:
        folded = keys.astype(np.uint32)
    else:
        wide = keys.astype(np.uint64)
        folded = (wide ^ (wide >> np.uint64(32))).astype(np.uint32)
    hashed = queries.astype(np.uint32) * np.uint32(0x9E3779B1)
    hashed ^= folded
    hashed *= np.uint32(0x85EBCA6B)
    hashed >>= np.uint32(32 - bits)
    return hashed


#: A character no id may hold: TREC files split fields on whitespace and end lines at line breaks,
#: so an id holding one would come back as other ids (or another line) once written out.
UNWRITABLE_IN_ID = re.compile(r"[\s\x00-\x1f\x7f]")


def id_problem(value: str, kind: str) -> str | None:
    """Why ``value`` cannot be a ``kind`` (``qid`` or ``docid``) that a TREC file carries, or None:
    empty, holding whitespace or a control character, or (a query id) starting with ``#``, which
    makes its line a comment to every TREC reader."""
    if not value:
        return f"an empty {kind}"
    if UNWRITABLE_IN_ID.search(value):
        return (
            f"a {kind} cannot contain spaces or control characters, which a TREC file cannot "
            f"carry in an id: {value[:60]!r}"
        )
    if kind == "qid" and value.startswith("#"):
        return f"qid {value[:60]!r} starts with '#', which makes its line a comment in a TREC file"
    return None


INTEGER = re.compile(r"[+-]?[0-9]+")


def duplicate_rows(qid_codes: np.ndarray, docid, keys: np.ndarray) -> np.ndarray:
    """The rows whose (query, docid) pair an earlier row already has (exact), in row order.

    Equal keys only make candidates: runs grouped by query are checked one query per row of a
    padded matrix of keys (many short sorts beat one long one); the strings of the few candidate
    rows then decide.
    """
    candidates = _candidate_rows(qid_codes, keys)
    if len(candidates) == 0:
        return candidates
    strings = take(docid, candidates).to_pylist()
    seen, duplicates = set(), []
    for row, query, text in zip(candidates, qid_codes[candidates], strings):
        if (query, text) in seen:
            duplicates.append(row)
        seen.add((query, text))
    return np.asarray(duplicates, dtype=np.int64)


def _candidate_rows(qid_codes: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Rows (ascending) of every (query, key) that occurs more than once, and maybe a few more."""
    n = len(qid_codes)
    if n < 2:
        return np.zeros(0, np.int64)
    if bool(np.all(qid_codes[1:] >= qid_codes[:-1])):  # grouped by query: one sort per query
        if int(qid_codes[-1]) - int(qid_codes[0]) == n - 1:  # a line a query (qrels of one each)
            return np.zeros(0, np.int64)
        starts = np.flatnonzero(np.r_[True, qid_codes[1:] != qid_codes[:-1]])
        lengths = np.diff(np.r_[starts, n])
        width = int(lengths.max())
        if len(starts) * width <= 2 * n:
            if len(starts) * width == n:  # every query equally deep: a reshape
                matrix = np.sort(keys.reshape(len(starts), width), axis=1)
            else:
                lowest = int(keys.min())
                dtype = keys.dtype if lowest - width > np.iinfo(keys.dtype).min else np.int64
                # distinct pads below every key
                matrix = np.tile(lowest - 1 - np.arange(width, dtype=dtype), (len(starts), 1))
                row = np.repeat(np.arange(len(starts), dtype=np.int32), lengths)
                matrix[
                    row, np.arange(n, dtype=np.int32) - np.repeat(starts.astype(np.int32), lengths)
                ] = keys
                matrix.sort(axis=1)
            queries = np.flatnonzero(np.any(matrix[:, 1:] == matrix[:, :-1], axis=1))
            if len(queries) == 0:
                return np.zeros(0, np.int64)
            return np.concatenate([np.arange(starts[q], starts[q] + lengths[q]) for q in queries])
    pairs = (qid_codes.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)) ^ keys.astype(
        np.int64
    ).view(np.uint64)
    order = np.argsort(pairs, kind="stable")
    ordered = pairs[order]
    equal = ordered[1:] == ordered[:-1]
    rows = np.sort(np.r_[order[1:][equal], order[:-1][equal]])
    # each row once (np.unique would import numpy.ma: 0.01 s a drop-in call pays for nothing)
    return rows[np.r_[True, rows[1:] != rows[:-1]]] if len(rows) else rows
