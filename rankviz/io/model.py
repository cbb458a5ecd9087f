"""The tables every reader produces: a :class:`Run` and :class:`Qrels`, ids encoded as integers.

Query ids become int32 codes (first-appearance order), qrels docids a dictionary; a run's docids stay
one string per row (they are mostly distinct) with, where every docid is a number, an integer copy
that sorting and probing use (strings still decide: "01" and "1" are two documents).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from rankviz._arrow import take_sorted, to_numpy


@dataclass(frozen=True, eq=False)
class _Encoded:
    """Query and document ids dictionary-encoded: ``query_ids[qid_codes]`` gives each row's qid."""

    query_ids: np.ndarray  # unique qids, object array of str
    qid_codes: np.ndarray  # int32 per row
    doc_ids: pa.Array  # unique docids
    doc_codes: np.ndarray  # int32 per row

    def __len__(self) -> int:
        return len(self.qid_codes)


@dataclass(frozen=True, eq=False)
class Run:
    """A ranking run: one scored list of documents per query, in file order.

    Docids stay one string per row (a run's docids are mostly distinct, so a dictionary would
    cost a hash table of millions of entries for nothing).
    """

    name: str
    source: str
    query_ids: np.ndarray  # unique qids, object array of str
    qid_codes: np.ndarray  # int32 per row
    docids: pa.Array  # string per row
    score: np.ndarray  # float64 per row
    rank: np.ndarray  # float64 per row (the file's column)
    docid_numbers: np.ndarray | None = None  # the docids as integers, when all are (see docid_numbers)

    def __len__(self) -> int:
        return len(self.qid_codes)

    def to_frame(self):
        """The run as a pandas DataFrame (``qid, docid, rank, score``) in file order."""
        import pandas as pd

        return pd.DataFrame(
            {
                "qid": self.query_ids[self.qid_codes],
                "docid": self.docids.to_numpy(zero_copy_only=False),
                "rank": self.rank,
                "score": self.score,
            }
        )


@dataclass(frozen=True, eq=False)
class Qrels(_Encoded):
    """Relevance judgments: one integer grade per judged (query, document) pair."""

    source: str = ""
    grade: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int64))

    def to_frame(self):
        """The judgments as a pandas DataFrame (``qid, docid, rel``)."""
        import pandas as pd

        return pd.DataFrame(
            {
                "qid": self.query_ids[self.qid_codes],
                "docid": self.doc_ids.take(pa.array(self.doc_codes)).to_numpy(zero_copy_only=False),
                "rel": self.grade,
            }
        )


def dictionary(values) -> pa.DictionaryArray:
    encoded = pc.dictionary_encode(values)
    return encoded.combine_chunks() if isinstance(encoded, pa.ChunkedArray) else encoded


def encode_queries(qid) -> dict:
    """Query ids as int32 codes in first-appearance order.

    Runs list each query's lines together, so the codes come from where the qid changes, without
    hashing millions of strings; a file whose queries come back later is dictionary-encoded.
    """
    n = len(qid)
    if n:
        changes = to_numpy(pc.indices_nonzero(pc.not_equal(qid.slice(1), qid.slice(0, n - 1)))).astype(np.int64)
        starts = np.r_[0, changes + 1]
        query_ids = take_sorted(qid, starts).to_pylist()
        if len(set(query_ids)) == len(query_ids):
            return {
                "query_ids": np.asarray(query_ids, dtype=object),
                "qid_codes": np.repeat(np.arange(len(starts), dtype=np.int32), np.diff(np.r_[starts, n])),
            }
    q = dictionary(qid)
    return {
        "query_ids": np.asarray(q.dictionary.to_pylist(), dtype=object),
        "qid_codes": to_numpy(q.indices).astype(np.int32, copy=False),
    }


def encode(qid, docid) -> dict:
    """Query ids and docids both dictionary-encoded (for qrels, which are small)."""
    d = dictionary(docid)
    return {
        **encode_queries(qid),
        "doc_ids": d.dictionary,
        "doc_codes": to_numpy(d.indices).astype(np.int32, copy=False),
    }


def docid_numbers(docid) -> np.ndarray | None:
    """Every docid as an integer (int32 where they fit), or None when one is not a number.

    A stand-in for the strings where a false match costs only a look at the strings ("01" and
    "1" share a number): sorting or probing integers is several times faster than strings.
    """
    for integer in (pa.int32(), pa.int64()):
        try:
            return to_numpy(pc.cast(docid, integer))
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            continue
    return None


def pair_keys(qid_codes: np.ndarray, docid, numbers: np.ndarray | None) -> np.ndarray:
    """One int64 per (query, docid) row, equal whenever the pair is equal (and rarely otherwise:
    see :func:`docid_numbers`)."""
    if numbers is not None and len(numbers) and numbers.min() >= 0 and numbers.max() < 2**40 and qid_codes.max() < 2**23:
        keys = np.left_shift(qid_codes, 40, dtype=np.int64)
        keys |= numbers
        return keys
    d = dictionary(docid)
    return qid_codes.astype(np.int64) * max(len(d.dictionary), 1) + to_numpy(d.indices)


def unique_pairs(qid_codes: np.ndarray, docid, numbers: np.ndarray | None) -> bool:
    """No (query, docid) pair twice (False may be a false alarm, which the checked parser settles).

    Runs grouped by query are checked one query per row of a padded matrix of docid keys: many
    short sorts beat one long one, and the docids' integers (int32 where they fit) sort faster
    than pair keys.
    """
    n = len(qid_codes)
    if n > 1 and bool(np.all(qid_codes[1:] >= qid_codes[:-1])):  # codes are first-appearance order
        keys = numbers if numbers is not None else to_numpy(dictionary(docid).indices)
        starts = np.flatnonzero(np.r_[True, qid_codes[1:] != qid_codes[:-1]])
        lengths = np.diff(np.r_[starts, n])
        width = int(lengths.max())
        if len(starts) * width == n:  # every query equally deep: a reshape
            matrix = np.sort(keys.reshape(len(starts), width), axis=1)
            return not bool(np.any(matrix[:, 1:] == matrix[:, :-1]))
        if len(starts) * width <= 2 * n:
            lowest = int(keys.min())
            dtype = keys.dtype if lowest - width > np.iinfo(keys.dtype).min else np.int64
            matrix = np.tile(lowest - 1 - np.arange(width, dtype=dtype), (len(starts), 1))  # distinct pads below every key
            row = np.repeat(np.arange(len(starts), dtype=np.int32), lengths)
            matrix[row, np.arange(n, dtype=np.int32) - np.repeat(starts.astype(np.int32), lengths)] = keys
            matrix.sort(axis=1)
            return not bool(np.any(matrix[:, 1:] == matrix[:, :-1]))
    keys = pair_keys(qid_codes, docid, numbers)
    keys.sort()
    return not bool(np.any(keys[1:] == keys[:-1]))
