"""Qrels whose second column means something: diversity qrels as ndeval reads them (``topic
subtopic docno judgment``: a document judged for each subtopic, or intent, of its topic), and
trec_eval's judgment groups (``qid group docno rel``: each group a user's own set of judgments).

A TREC qrels file has four columns too (its second is the unused iteration, 0): read as TREC qrels,
such a file is refused as duplicate lines; read here, each line is one subtopic's or one group's
judgment.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from rankviz._arrow import strings, to_numpy
from rankviz.errors import FormatError, quoted
from rankviz.io.encoding import dictionary, grouped_dictionary
from rankviz.io.model import Qrels
from rankviz.io.sources import read_bounded

FIELDS = ("qid", "subtopic", "docid", "judgment")
#: bytes after which the checked reader decides how a line splits (what str.split splits on, or
#: what a field may not hold); without them pyarrow's reader split on one separator says the same
_AWKWARD = (b"\r", b"\v", b"\f", b"\x00", b"\x1c", b"\x1d", b"\x1e", b"\x1f")


@dataclass(frozen=True, eq=False)
class SubtopicQrels:
    """Judgments of documents per subtopic: four parallel columns, in file order (the ids as
    pyarrow strings, the numbers as int64 arrays)."""

    source: str
    qids: pa.Array
    subtopics: np.ndarray
    docids: pa.Array
    judgments: np.ndarray

    def __len__(self) -> int:
        return len(self.qids)

    @functools.cached_property
    def dictionaries(self) -> tuple[pa.DictionaryArray, pa.DictionaryArray]:
        """The query ids and the docids dictionary-encoded, made once for the reader's check and
        the measures."""
        return grouped_dictionary(self.qids), dictionary(self.docids)

    @functools.cached_property
    def ordered(self) -> Ordered:
        """The judgments sorted by topic, then docid byte for byte, then subtopic: made once for
        the reader's check (a judgment given twice) and the measures."""
        qids, docids = self.dictionaries
        by_bytes = pc.sort_indices(docids.dictionary)
        byte_rank = np.empty(len(docids.dictionary), dtype=np.int64)
        byte_rank[to_numpy(by_bytes)] = np.arange(len(docids.dictionary))
        topic = to_numpy(qids.indices).astype(np.int64)
        doc = byte_rank[to_numpy(docids.indices)]
        order = _order(topic, doc, self.subtopics)
        return Ordered(order, topic[order], doc[order], docids.dictionary.take(by_bytes))


def _order(topic: np.ndarray, doc: np.ndarray, subtopic: np.ndarray) -> np.ndarray:
    """The permutation sorting by topic, then doc, then subtopic: one sort of a single int64 key
    where the three fit in one (a lexsort sorts three times, each pass costlier on a file not in
    order: 1.1 against 0.15 CPU-s on 3M random judgments)."""
    if not len(topic):
        return np.zeros(0, dtype=np.int64)
    docs, subtopics = int(doc.max()) + 1, int(subtopic.max()) + 1
    if (int(topic.max()) + 1) * docs * subtopics >= 1 << 62:
        return np.lexsort((subtopic, doc, topic))
    return np.argsort((topic * docs + doc) * subtopics + subtopic, kind="stable")


@dataclass(frozen=True, eq=False)
class Ordered:
    """Judgments sorted by topic, docid (byte order) and subtopic: ``order`` (their lines),
    ``topic`` (each one's topic in first-seen order), ``doc`` (its docid's place in byte order,
    in ``docids``)."""

    order: np.ndarray
    topic: np.ndarray
    doc: np.ndarray
    docids: pa.Array


def _bytes(path: str | Path) -> bytes:
    """The file's bytes, or one line saying why it cannot be read (a line longer than every reader
    takes among them: refused there, the file never read whole first)."""
    return read_bounded(path, str(path))


def _text(path: str | Path, raw: bytes | None = None) -> str:
    """The file as UTF-8 text, or one line saying why it cannot be read."""
    try:
        return (_bytes(path) if raw is None else raw).decode("utf-8", errors="strict")
    except UnicodeDecodeError:
        raise FormatError(str(path), 0, None, "not UTF-8 text") from None


def read_subtopic_qrels(path: str | Path) -> SubtopicQrels:
    """The file's judgments; one line naming the file, the line and the field when a line is not
    four fields, a subtopic or judgment not a natural number, or a (topic, subtopic, docno) judged
    twice (ndeval would add the two judgments up).

    A file of ASCII lines, each four fields between single spaces (or single tabs), is read by
    pyarrow's reader and its columns vouched for; whatever it cannot vouch for is read line by
    line, which says what is wrong: the same bytes give the same columns or the same error."""
    raw = _bytes(path)
    return _read_fast(raw, str(path)) or _read_checked(str(path), _text(path, raw))


def _read_fast(raw: bytes, source: str) -> SubtopicQrels | None:
    """pyarrow's reader split on the file's one separator, vouched for; None wherever the checked
    reader must judge."""
    tabs, spaces = b"\t" in raw, b" " in raw
    if tabs == spaces or not raw.isascii() or any(raw.find(b) >= 0 for b in _AWKWARD):
        return None
    try:
        table = pacsv.read_csv(
            pa.BufferReader(raw),
            read_options=pacsv.ReadOptions(column_names=list(FIELDS), block_size=1 << 24),
            parse_options=pacsv.ParseOptions(
                delimiter="\t" if tabs else " ",
                quote_char=False,
                escape_char=False,
                double_quote=False,
            ),
            convert_options=pacsv.ConvertOptions(
                column_types=dict.fromkeys(FIELDS, pa.string()), strings_can_be_null=False
            ),
        )
    except (pa.ArrowInvalid, OSError):
        return None
    # the columns alone from here: the table's blocks are freed as each is combined, and only the
    # lengths' extremes are kept (a 3M-line file's pages faulted in cost ndeval's CPU)
    columns = {}
    for name in FIELDS:
        columns[name] = table.column(name).combine_chunks()
        table = table.drop_columns([name])
    lengths = {name: pc.min_max(pc.binary_length(c)).as_py() for name, c in columns.items()}
    if len(columns["qid"]) == 0 or any(n["min"] == 0 for n in lengths.values()):
        return None  # a doubled, leading or trailing separator: an empty field
    numbers = [columns["subtopic"], columns["judgment"]]
    if not all(  # natural numbers int64 holds: ASCII digits alone, at most 18 of them
        pc.all(pc.ascii_is_decimal(c)).as_py() and lengths[name]["max"] <= 18
        for name, c in zip(("subtopic", "judgment"), numbers, strict=True)
    ):
        return None
    subtopics, judgments = (to_numpy(c.cast(pa.int64())) for c in numbers)
    found = SubtopicQrels(source, columns["qid"], subtopics, columns["docid"], judgments)
    ordered = found.ordered
    same = np.ones(max(len(found) - 1, 0), dtype=bool)
    for key in (ordered.topic, ordered.doc, found.subtopics[ordered.order]):
        same &= key[1:] == key[:-1]
    if same.any():
        return None  # a document judged twice for a subtopic: the checked reader says where
    return found


def _read_checked(source: str, text: str) -> SubtopicQrels:
    """Line by line: each line four fields, or a FormatError naming the line."""
    qids, subtopics, docids, judgments = [], [], [], []
    seen: dict[tuple[str, int, str], int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != 4:
            raise FormatError(
                source,
                number,
                line,
                f"a diversity qrels line is 'topic subtopic docno judgment', not {len(fields)} "
                "fields",
            )
        qid, subtopic, docid, judgment = fields
        for name, value in (("subtopic", subtopic), ("judgment", judgment)):
            if not (value.isascii() and value.isdigit()):
                raise FormatError(
                    source, number, line, f"the {name} {quoted(value)} is not a natural number"
                )
            if int(value) >= 2**63:
                raise FormatError(
                    source, number, line, f"the {name} {quoted(value)} is over 2^63 - 1"
                )
        key = (qid, int(subtopic), docid)
        if key in seen:
            raise FormatError(
                source,
                number,
                line,
                f"document {quoted(docid)} is judged for subtopic {subtopic} of topic "
                f"{quoted(qid)} again (first on line {seen[key]})",
            )
        seen[key] = number
        qids.append(qid)
        subtopics.append(int(subtopic))
        docids.append(docid)
        judgments.append(int(judgment))
    if not qids:
        raise FormatError(source, 0, None, "no judgments")
    return SubtopicQrels(
        source,
        strings(qids),
        np.asarray(subtopics, dtype=np.int64),
        strings(docids),
        np.asarray(judgments, dtype=np.int64),
    )


def read_grouped_qrels(path: str | Path) -> dict[str, Qrels]:
    """trec_eval's ``-R qrels_jg`` file: one :class:`~rankviz.io.model.Qrels` per judgment group
    (the second column), in the groups' byte order; lines starting with ``#`` are comments, as
    trec_eval reads them. One line naming the file and the line when a line is not four fields, a
    grade not a whole number, or a document judged twice in one group."""
    import pandas as pd

    from rankviz.io.frames import qrels_from_frame

    source, text = str(path), _text(path)
    groups: dict[str, list[tuple[str, str, int]]] = {}
    seen: dict[tuple[str, str, str], int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        if len(fields) != 4:
            reason = (
                f"a judgment-group qrels line is 'qid group docno rel', not {len(fields)} fields"
            )
            raise FormatError(source, number, line, reason)
        qid, group, docid, grade = fields
        if not grade.lstrip("+-").isdigit():
            raise FormatError(source, number, line, f"the grade {quoted(grade)} is not a number")
        if (qid, group, docid) in seen:
            raise FormatError(
                source,
                number,
                line,
                f"document {quoted(docid)} is judged for query {quoted(qid)} by group "
                f"{quoted(group)} again (first on line {seen[qid, group, docid]})",
            )
        seen[qid, group, docid] = number
        groups.setdefault(group, []).append((qid, docid, int(grade)))
    if not groups:
        raise FormatError(source, 0, None, "no judgments")
    return {
        group: qrels_from_frame(
            pd.DataFrame(groups[group], columns=["qid", "docid", "rel"]),
            source=f"{source} (group {group})",
        )
        for group in sorted(groups, key=lambda g: g.encode())
    }
