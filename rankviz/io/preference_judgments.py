"""Preference judgments, as trec_eval 10 reads them for its ``prefs_*`` measures.

``-R prefs`` files hold ``qid group subgroup docno level`` lines; ``-R qrels_prefs`` files are
qrels (``qid group docno level``: the second column names the group, every group one subgroup).
Within a subgroup a document is preferred to every document at a lower level; a group (one user's
judgments, trec_eval's JG) holds its subgroups' preferences and those they imply (A > B in one, B >
C in another: A > C), and must not contradict itself; groups may contradict one another. Level 0
means not relevant.

What trec_eval would print a wrong number for, or abort on, is refused here in one line naming the
file and the line: a field that is not a number, a level below 0 in a preferences file
(``qrels_prefs``: a grade below 0 is a level below not relevant, as trec_eval reads it: TREC Web's
-2 for spam), a document listed twice in a subgroup, a document at level 0 in one subgroup and
above it in another of the same group, and a group whose preferences go round in a circle.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rankviz.errors import FormatError, quoted
from rankviz.io.model import Qrels
from rankviz.io.sources import lines as read_lines

#: the most documents one query's preferences judge: their pairs are counted (trec_eval keeps a
#: table of the documents' number squared, twice for the implied preferences of several
#: subgroups); 10,000 takes about 1 GB at most, in seconds
MOST_JUDGED = 10_000

#: a decimal number as C's ``atof`` reads one whole (no ``nan``, ``inf`` or Python's ``1_0``)
_NUMBER = re.compile(rb"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


@dataclass(frozen=True, eq=False)
class GroupPreferences:
    """One judgment group's preferences on one query, over the query's documents (indices into
    :attr:`QueryPreferences.docs`).

    A group of one subgroup is its equivalence classes (``classes``: its documents at each level,
    levels descending; each document preferred to those of every later class), as trec_eval keeps
    it; a group of several subgroups is its pairs (``preferred[i]`` is preferred to ``other[i]``,
    every pair once, those the subgroups imply included) and has no classes. ``level``: each query
    document's level in the group, NaN where the group does not judge it (above 0: relevant; 0:
    not relevant)."""

    name: str
    preferred: np.ndarray
    other: np.ndarray
    classes: tuple[np.ndarray, ...] | None
    level: np.ndarray

    def pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """Every (preferred, other) pair of the group, a group of classes' spelled out."""
        if self.classes is None:
            return self.preferred, self.other
        spelled = [
            (np.repeat(high, len(low)), np.tile(low, len(high)))
            for i, high in enumerate(self.classes)
            for low in self.classes[i + 1 :]
        ]
        if not spelled:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        return np.concatenate([p for p, _ in spelled]), np.concatenate([o for _, o in spelled])


@dataclass(frozen=True, eq=False)
class QueryPreferences:
    """A query's judged documents (in trec_eval's order: their bytes) and its groups (in the order
    of their names' bytes, the order trec_eval sums them in)."""

    docs: tuple[str, ...]
    groups: tuple[GroupPreferences, ...]


@dataclass(frozen=True, eq=False)
class Preferences:
    """Preference judgments of every query, read from :attr:`source`."""

    source: str
    queries: dict[str, QueryPreferences]

    def qrels(self) -> Qrels:
        """Every (query, document) a group judges, graded 1 where some group puts it above level
        0: the queries and documents a ranking table of the preferences holds."""
        import pandas as pd

        from rankviz.io.frames import qrels_from_frame

        rows = [
            (qid, doc, int(any(g.level[i] > 0 for g in query.groups)))
            for qid, query in self.queries.items()
            for i, doc in enumerate(query.docs)
        ]
        frame = pd.DataFrame(rows, columns=["qid", "docid", "rel"])
        return qrels_from_frame(frame, source=self.source).with_beside(prefs=self)


def read_preferences(path: str | Path, *, subgroups: bool = True) -> Preferences:
    """A preferences file: ``qid group subgroup docno level`` lines (trec_eval's ``-R prefs``), or
    with ``subgroups=False`` qrels read as preferences (``qid group docno level``, its ``-R
    qrels_prefs``). Lines starting with ``#`` are comments, blank lines are skipped.

    Parameters
    ----------
    path
        The file.
    subgroups
        Whether lines name a subgroup (five fields) or not (four).

    Returns
    -------
    Preferences
        Each query's groups, their implied preferences added; one line naming the file and the
        line for what trec_eval would misread (see the module's doc)."""
    source = str(path)
    width = 5 if subgroups else 4
    lines: dict[str, dict[str, dict[str, dict[str, tuple[float, int]]]]] = {}
    documents: dict[str, set[str]] = {}  # each query's documents judged so far
    # the line rule and the longest line of every reader (a file of no line ends is refused, never
    # read whole), gzip read as such
    for number, line in read_lines(path, source):
        fields = line.split()  # bytes split where C's isspace does
        if not fields or line.startswith(b"#"):
            continue
        text = line.decode("utf-8", errors="replace")
        if len(fields) != width:
            shape = "qid group subgroup docno level" if subgroups else "qid group docno level"
            reason = f"a line is '{shape}', not {len(fields)} fields"
            raise FormatError(source, number, text, reason)
        if not _NUMBER.fullmatch(fields[-1]):
            raise FormatError(
                source, number, text, f"the level {quoted(_str(fields[-1]))} is not a number"
            )
        level = float(fields[-1])
        if level < 0 and subgroups:  # qrels' grades below 0 are levels below 0, as trec_eval's
            raise FormatError(source, number, text, "a level below 0 (0 is not relevant)")
        qid, group, *subgroup, docno = (_str(f, source, number) for f in fields[:-1])
        judged = (
            lines.setdefault(qid, {})
            .setdefault(group, {})
            .setdefault(subgroup[0] if subgroup else "0", {})
        )
        if docno in judged:
            raise FormatError(
                source,
                number,
                text,
                f"document {quoted(docno)} is listed again in the same group and subgroup of "
                f"query {quoted(qid)} (first on line {judged[docno][1]})",
            )
        judged[docno] = (level, number)
        query_docs = documents.setdefault(qid, set())
        query_docs.add(docno)
        if len(query_docs) > MOST_JUDGED:  # refused where it happens, before anything is built
            raise FormatError(
                source,
                number,
                text,
                f"query {quoted(qid)}: its preferences judge more than {MOST_JUDGED:,} documents, "
                "the most rankviz counts preferences among (every pair of them is counted, as "
                "trec_eval counts them: a table of their number squared)",
            )
    if not lines:
        raise FormatError(source, 0, None, "no preferences")
    return Preferences(
        source, {qid: _query(source, qid, groups) for qid, groups in sorted(lines.items())}
    )


def _str(field: bytes, source: str = "", number: int = 0) -> str:
    try:
        return field.decode("utf-8")
    except UnicodeDecodeError:
        raise FormatError(source, number, None, "not UTF-8 text") from None


def _key(text: str) -> bytes:
    return text.encode()


def _query(source: str, qid: str, groups: dict) -> QueryPreferences:
    """A query's documents and each group's preferences."""
    docs = tuple(
        sorted({d for subs in groups.values() for each in subs.values() for d in each}, key=_key)
    )
    index = {d: i for i, d in enumerate(docs)}
    return QueryPreferences(
        docs,
        tuple(_group(source, qid, name, groups[name], index) for name in sorted(groups, key=_key)),
    )


def _group(source: str, qid: str, name: str, subgroups: dict, index: dict) -> GroupPreferences:
    """One group's preferences: a single subgroup's classes, or several subgroups' preferences and
    those they imply (a transitive closure), checked for circles."""
    level = np.full(len(index), np.nan)
    for judged in subgroups.values():
        for docno, (value, number) in judged.items():
            before = level[index[docno]]
            if (before > 0 and value == 0) or (before == 0 and value > 0):
                raise FormatError(
                    source,
                    number,
                    None,
                    f"document {quoted(docno)} is at level 0 and above it in group "
                    f"{quoted(name)} of query {quoted(qid)}",
                )
            level[index[docno]] = value
    if len(subgroups) == 1:
        (judged,) = subgroups.values()
        classes = tuple(_classes(judged, index))
        none = np.zeros(0, dtype=np.int64)
        return GroupPreferences(name, none, none, classes, level)
    members = np.flatnonzero(~np.isnan(level))
    local = {doc: i for i, doc in enumerate(members.tolist())}
    chains = [
        [np.array([local[d] for d in c.tolist()], dtype=np.int64) for c in _classes(judged, index)]
        for judged in subgroups.values()
    ]
    above = implied(chains, len(members))
    mutual = above & above.T
    np.fill_diagonal(mutual, False)  # in a circle a document is above itself: named by two
    circle = np.argwhere(mutual)
    if len(circle):
        docs = list(index)
        first, second = docs[members[circle[0][0]]], docs[members[circle[0][1]]]
        raise FormatError(
            source,
            0,
            None,
            f"group {quoted(name)} of query {quoted(qid)} prefers {quoted(first)} to "
            f"{quoted(second)} and {quoted(second)} to {quoted(first)} (its subgroups go round "
            "in a circle)",
        )
    del mutual
    high, low = _pairs(above, members)
    return GroupPreferences(name, high, low, None, level)


def _pairs(above: np.ndarray, members: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The (preferred, other) documents of ``above``'s set cells, a block of rows at a time (the
    pairs of 10,000 documents are up to 50 million: kept as int32, never as a whole int64 copy)."""
    highs, lows = [], []
    for start in range(0, len(above), 1024):
        rows, columns = np.nonzero(above[start : start + 1024])
        highs.append(members[rows + start].astype(np.int32))
        lows.append(members[columns].astype(np.int32))
    if not highs:
        return np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.int32)
    return np.concatenate(highs), np.concatenate(lows)


def _classes(judged: dict[str, tuple[float, int]], index: dict[str, int]) -> list[np.ndarray]:
    """A subgroup's documents (indices in ``index``) at each of its levels, levels descending,
    each class's indices ascending."""
    docs = np.array([index[d] for d in judged], dtype=np.int64)
    levels = np.array([value for value, _ in judged.values()])
    order = np.lexsort((docs, -levels))
    return np.split(docs[order], np.flatnonzero(np.diff(levels[order])) + 1)


def implied(chains: list[list[np.ndarray]], size: int) -> np.ndarray:
    """Every preference the subgroups state or imply among ``size`` documents: ``[a, b]`` where a
    is above b, directly or through other documents (a circle puts a document above itself).

    Each subgroup is a chain of classes (its documents at each level, levels descending); a node
    per class stands for it and every class below. A document reaches the node of the class below
    its own, in each of its subgroups; a class's node reaches its documents (and what they reach)
    and the node below. Walked in the
    order of those dependencies, as bit sets, each reach is computed once: linear in the lines
    read, where the closure of the whole table (Warshall's, trec_eval's repeated products) grows
    with the documents' number cubed. A circle leaves some reaches undecided: they are the
    circle's, and each is set to every document it reaches so far, itself among them."""
    width = (size + 7) // 8
    offsets = np.cumsum([0, *(len(chain) for chain in chains)])
    nodes = size + int(offsets[-1])  # the documents, then each chain's classes
    after: list[list[int]] = [[] for _ in range(nodes)]  # node -> the nodes it reaches directly
    for chain, start in zip(chains, offsets[:-1], strict=True):
        # class node i: the documents of class i and every class below it, and what they reach
        for i, members in enumerate(chain):
            node = size + int(start) + i
            below = [node + 1] if i + 1 < len(chain) else []
            after[node] += [*members.tolist(), *below]
            for doc in members.tolist():
                after[doc] += below
    waiting = np.array([len(out) for out in after])
    before: list[list[int]] = [[] for _ in range(nodes)]
    for node, out in enumerate(after):
        for target in out:
            before[target].append(node)
    reach = np.zeros((nodes, width), dtype=np.uint8)
    own = np.packbits(np.eye(size, dtype=bool), axis=1) if size <= 4096 else None
    ready = [node for node in range(nodes) if waiting[node] == 0]
    done = 0
    while ready:
        node = ready.pop()
        done += 1
        for target in after[node]:
            reach[node] |= reach[target]
            if target < size:
                reach[node] |= own[target] if own is not None else _bit(target, width)
        for source in before[node]:
            waiting[source] -= 1
            if waiting[source] == 0:
                ready.append(source)
    if done < nodes:  # a circle: what is left reaches round it; itself among what it reaches
        for _ in range(nodes):
            changed = False
            for node in np.flatnonzero(waiting > 0).tolist():
                grown = reach[node].copy()
                for target in after[node]:
                    grown |= reach[target]
                    if target < size:
                        grown |= _bit(target, width)
                if not np.array_equal(grown, reach[node]):
                    reach[node], changed = grown, True
            if not changed:
                break
    return np.unpackbits(reach[:size], axis=1, count=size).astype(bool)


def _bit(position: int, width: int) -> np.ndarray:
    """A bit set of ``width`` bytes with ``position`` set (numpy's packbits order)."""
    bits = np.zeros(width, dtype=np.uint8)
    bits[position // 8] = 0x80 >> (position % 8)
    return bits
