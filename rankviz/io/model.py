"""The tables every reader produces: a :class:`Run` and :class:`Qrels`, ids encoded as integers.

Query ids become int32 codes (first-appearance order); docids stay one string per row, in a run and
in qrels alike (they are mostly distinct), with integer keys (:class:`DocidKeys`) that sorting and
probing use (strings still decide: "01" and "1" are two documents).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from rankviz._arrow import booleans, from_numpy, strings, take, to_numpy
from rankviz.io.encoding import DocidKeys
from rankviz.io.id_forms import IdForms
from rankviz.io.id_keys import IdIndex, SortedKeys, ascending, many, marks


@dataclass(frozen=True, eq=False)
class Run:
    """A ranking run: one scored list of documents per query, in file order.

    Docids stay one string per row (a run's docids are mostly distinct, so a dictionary would
    cost a hash table of millions of entries for nothing).

    Parameters
    ----------
    name
        The run's name.
    source
        Where it was read from.
    query_ids
        Unique qids, object array of str.
    qid_codes
        int32 per row: its query.
    docids
        A string per row (as read: not copied into one piece).
    score
        float64 per row.
    rank_column
        float64 per row: the file's rank column, as read.
    docid_keys
        The docids' integer keys; computed from the docids unless the reader has them.
    query_id_strings
        The query ids as Arrow strings, when the reader has them (made when asked otherwise).
    query_id_index
        The query ids' :class:`IdIndex`, when the reader made one (sorting them to check that no
        query comes back): the run's queries are then found among the qrels' by a merge.
    """

    name: str
    source: str
    query_ids: np.ndarray  # unique qids, object array of str
    qid_codes: np.ndarray  # int32 per row
    docids: pa.Array | pa.ChunkedArray  # string per row (as read: not copied into one piece)
    score: np.ndarray  # float64 per row
    # float64 per row: the file's rank column, as read
    rank_column: np.ndarray | pa.Array | pa.ChunkedArray
    docid_keys: DocidKeys | None = None  # computed from the docids unless the reader has them
    query_id_strings: pa.Array | None = None  # the query ids as Arrow strings, if read so
    query_id_index: IdIndex | None = field(default=None, repr=False)  # if the reader made one

    def __post_init__(self) -> None:
        if self.docid_keys is None:
            object.__setattr__(self, "docid_keys", DocidKeys.of(self.docids))

    def __repr__(self) -> str:
        return (
            f"Run({self.name!r}, {len(self.query_ids)} queries, {len(self)} lines, from "
            f"{self.source!r})"
        )

    @property
    def keys(self) -> DocidKeys:
        """The docids' integer keys (set when the run is made)."""
        assert self.docid_keys is not None, "set in __post_init__"
        return self.docid_keys

    def __len__(self) -> int:
        return len(self.qid_codes)

    @functools.cached_property
    def rank(self) -> np.ndarray:
        """The rank column as NumPy (float64), converted when first asked (only ``ties="run"``
        orders by it)."""
        column = self.rank_column
        return column if isinstance(column, np.ndarray) else to_numpy(column)

    def query_ids_to_look_up(self) -> np.ndarray | pa.Array | IdIndex:
        """The query ids in the form cheapest to look up (:meth:`IdIndex.positions`): the
        reader's index where it made one (sorted already), else its Arrow strings where it kept
        them (keyed from their buffers), else the objects."""
        if self.query_id_index is not None:
            return self.query_id_index
        return self.query_ids if self.query_id_strings is None else self.query_id_strings

    def query_strings(self) -> pa.Array:
        """The query ids as Arrow strings (as the reader had them, else made now)."""
        given = self.query_id_strings
        return strings(self.query_ids) if given is None else given.cast(pa.string())

    def identical_ids(self) -> np.ndarray:
        """Per line: its document id is its query's (what BEIR's rule drops). The docids' integer
        keys find the few candidates; their strings decide."""
        keys = self.keys
        query_texts = self.query_strings()
        if keys.numeric:
            query_keys = _numbers_like(query_texts, keys.values.dtype)
        else:
            query_keys = keys.aligned(query_texts)[0].astype(keys.values.dtype)
        candidates = np.flatnonzero(keys.values == query_keys[self.qid_codes])
        same = np.zeros(len(self), dtype=bool)
        if len(candidates):
            docids = take(self.docids, candidates).cast(pa.string())
            same[candidates] = booleans(
                pc.equal(docids, query_texts.take(from_numpy(self.qid_codes[candidates])))
            )
        return same

    def query_block(self, start: int, stop: int) -> Run:
        """The lines of queries ``start`` to ``stop`` (codes; the run's queries grouped, as a stream
        engine reads them), sharing this run's memory."""
        lo, hi = np.searchsorted(self.qid_codes, [start, stop])
        if lo == 0 and hi == len(self):
            return self
        rank = (
            self.rank_column[lo:hi]
            if isinstance(self.rank_column, np.ndarray)
            else self.rank_column.slice(lo, hi - lo)
        )
        keys = DocidKeys(self.keys.values[lo:hi], self.keys.numeric)
        return Run(
            name=self.name,
            source=self.source,
            query_ids=self.query_ids[start:stop],
            qid_codes=self.qid_codes[lo:hi] - np.int32(start),
            docids=self.docids.slice(lo, hi - lo),
            score=self.score[lo:hi],
            rank_column=rank,
            docid_keys=keys,
            query_id_strings=None
            if self.query_id_strings is None
            else self.query_id_strings.slice(start, stop - start),
        )

    @classmethod
    def concatenate(cls, parts: list[Run]) -> Run:
        """One run of several over disjoint queries, in order (the pieces of one file)."""
        first = parts[0]
        if len(parts) == 1:
            return first
        counts = np.cumsum([0] + [len(p.query_ids) for p in parts])
        docids = pa.chunked_array(
            [
                c
                for p in parts
                for c in (p.docids.chunks if isinstance(p.docids, pa.ChunkedArray) else [p.docids])
            ],
            type=first.docids.type,
        )
        kinds = {p.keys.numeric for p in parts}  # a string's key depends on the string alone
        keys = (
            DocidKeys(np.concatenate([p.keys.values for p in parts]), kinds.pop())
            if len(kinds) == 1
            else None
        )
        return cls(
            name=first.name,
            source=first.source,
            query_ids=np.concatenate([p.query_ids for p in parts]),
            qid_codes=np.concatenate([p.qid_codes + np.int32(c) for p, c in zip(parts, counts)]),
            docids=docids,
            score=np.concatenate([p.score for p in parts]),
            rank_column=np.concatenate([p.rank for p in parts]),
            docid_keys=keys,
        )

    @classmethod
    def empty(cls, name: str, source: str = "") -> Run:
        """A run with no lines: every judged query is missing from it."""
        return cls(
            name=name,
            source=source,
            query_ids=np.zeros(0, object),
            qid_codes=np.zeros(0, np.int32),
            docids=pa.array([], pa.string()),
            score=np.zeros(0),
            rank_column=np.zeros(0),
        )

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
class Qrels:
    """Relevance judgments: one integer grade per judged (query, document) pair.

    Parameters
    ----------
    query_ids
        Unique qids (object array of str).
    qid_codes
        Each judgment's query, an index into ``query_ids`` (int32).
    docids
        Each judgment's document (Arrow strings, one piece): as read, not dictionary-encoded (a
        large qrels' million distinct docids would cost a hash table that the grade lookup,
        keying the docids themselves, does not read).
    source
        Where they were read from.
    grade
        Each judgment's grade (int64; below 0: in the pool, unjudged).
    beside
        Judgments of other kinds beside the grades, by kind (``subtopics``, ``groups``).
    query_id_strings
        The query ids as Arrow strings, when the reader has them (their index is then keyed from
        Arrow's buffers).
    query_id_index
        The query ids' :class:`IdIndex`, when the reader made one (:attr:`query_index` then).
    """

    query_ids: np.ndarray  # unique qids, object array of str
    qid_codes: np.ndarray  # int32 per row
    docids: pa.Array  # per row
    source: str = ""
    grade: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int64))
    #: judgments of other kinds beside the grades, by kind (``subtopics``: diversity qrels,
    #: ``groups``: trec_eval's judgment groups), which the families that read them find on the
    #: ranking table (:attr:`rankviz.ranking.ranking_table.RankingTable.beside`)
    beside: Mapping[str, Any] = field(default_factory=dict, compare=False)
    query_id_strings: pa.Array | None = field(default=None, repr=False)
    query_id_index: IdIndex | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return len(self.qid_codes)

    def __getstate__(self) -> dict:
        """Pickled (a Dask job's qrels, sent to every worker) with the query ids as the reader's
        Arrow strings where it kept them, not as str objects: a million of those, with the index
        holding them, cost 0.22 CPU-s to pickle and 0.12 to load, against 0.08 to make them again
        from the strings. The index goes as its sorted keys."""
        state = dict(self.__dict__)
        if self.query_id_strings is None:
            return state
        state["query_ids"] = None
        if state.get("query_index") is self.query_id_index:
            del state["query_index"]  # the cached property gives the reader's index again
        for name in ("query_id_index", "query_index"):
            index = state.get(name)
            if isinstance(index, IdIndex) and index.ids is self.query_ids:
                state[name] = index.without_ids()
        return state

    def __setstate__(self, state: dict) -> None:
        if state["query_ids"] is None:  # sent as strings (above)
            ids = np.asarray(state["query_id_strings"].to_pylist(), dtype=object)
            state = {**state, "query_ids": ids}
            for name in ("query_id_index", "query_index"):
                if isinstance(state.get(name), SortedKeys):
                    state[name] = state[name].with_ids(ids)
        self.__dict__.update(state)

    def with_beside(self, **judgments: Any) -> Qrels:
        """The same grades with these judgments beside them (None: not given)."""
        found = {**self.beside, **{k: v for k, v in judgments.items() if v is not None}}
        return replace(self, beside=found)

    def __repr__(self) -> str:
        return (
            f"Qrels({len(self.query_ids)} queries, {len(self.grade)} judgments, from "
            f"{self.source!r})"
        )

    @functools.cached_property
    def query_index(self) -> IdIndex:
        """The query ids ready to be looked up (once per qrels, however many blocks ask): the
        reader's where it made one."""
        if self.query_id_index is not None:
            return self.query_id_index
        return IdIndex.of(self.query_ids, strings=self.query_id_strings)

    @functools.cached_property
    def docid_forms(self) -> IdForms:
        """The docids as near misses are matched against them (normalised once per qrels, however
        many runs are checked)."""
        return IdForms(self.docids)

    @functools.cached_property
    def _by_query(self) -> tuple[np.ndarray, np.ndarray]:
        """(judgment rows grouped by query, in file order inside one; each query's first)."""
        rows = np.argsort(self.qid_codes, kind="stable")
        counts = np.bincount(self.qid_codes, minlength=len(self.query_ids))
        return rows, np.r_[0, np.cumsum(counts)].astype(np.int64)

    def restricted(self, query_ids) -> Qrels:
        """The judgments of these queries only: the cost of those queries' judgments, not of the
        whole qrels (a streamed run asks once a block)."""
        found = self.query_index.positions(query_ids)
        return self.at_positions(found[found >= 0])

    def at_positions(self, positions: np.ndarray) -> Qrels:
        """The judgments of the queries at these positions of :attr:`query_ids` (in any order,
        repeated or not), as :meth:`restricted` gives them: many queries by one pass over the
        judgments, a few by the rows of each."""
        # kept ascending: the qrels' own order of queries, each once
        if many(len(positions), len(self.query_ids)):
            marked = marks(positions, len(self.query_ids))
            kept = np.flatnonzero(marked)
            rows = np.flatnonzero(marked[self.qid_codes])
            codes = (np.cumsum(marked, dtype=np.int32) - 1)[self.qid_codes[rows]]
        else:
            kept = ascending(positions, len(self.query_ids))
            grouped, starts = self._by_query
            counts = starts[kept + 1] - starts[kept]
            first = np.repeat(starts[kept] - np.r_[0, np.cumsum(counts)[:-1]], counts)
            rows = np.sort(grouped[np.arange(int(counts.sum()), dtype=np.int64) + first])
            codes = np.searchsorted(kept, self.qid_codes[rows]).astype(np.int32)
        judged = Qrels(
            query_ids=self.query_ids[kept],
            qid_codes=codes,
            docids=self.docids.take(from_numpy(rows)),
            source=self.source,
            grade=self.grade[rows],
            beside=self.beside,
        )
        # its index taken from this one's (what functools.cached_property would store)
        judged.__dict__["query_index"] = self.query_index.subset(kept)
        return judged

    def to_frame(self):
        """The judgments as a pandas DataFrame (``qid, docid, rel``)."""
        import pandas as pd

        return pd.DataFrame(
            {
                "qid": self.query_ids[self.qid_codes],
                "docid": self.docids.to_numpy(zero_copy_only=False),
                "rel": self.grade,
            }
        )


def _numbers_like(texts: pa.Array, dtype: np.dtype) -> np.ndarray:
    """Each id as the number a numeric docid key holds (Arrow's cast, as
    :func:`~rankviz.io.encoding.docid_numbers` reads docids), the type's minimum where it is none
    of that width: an id equal to a docid gets the docid's key."""
    limits = np.iinfo(dtype)
    out = np.full(len(texts), limits.min, dtype=dtype)
    if not len(texts):
        return out
    integer = booleans(pc.match_substring_regex(texts, "^-?[0-9]+$"))
    short = integer & (to_numpy(pc.binary_length(texts)) <= 18)  # within int64 whatever it is
    rows = np.flatnonzero(short)
    values = to_numpy(pc.cast(texts.take(from_numpy(rows)), pa.int64()))
    fits = (values > limits.min) & (values <= limits.max)
    out[rows[fits]] = values[fits]
    for row in np.flatnonzero(integer & ~short):  # 19 digits or more: a few, if any
        value = int(texts[int(row)].as_py())
        if limits.min < value <= limits.max:
            out[row] = value
    return out
