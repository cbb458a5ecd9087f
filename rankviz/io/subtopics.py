"""Qrels whose second column means something: diversity qrels as ndeval reads them (``topic
subtopic docno judgment``: a document judged for each subtopic, or intent, of its topic), and
trec_eval's judgment groups (``qid group docno rel``: each group a user's own set of judgments).

A TREC qrels file has four columns too (its second is the unused iteration, 0): read as TREC qrels,
such a file is refused as duplicate lines; read here, each line is one subtopic's or one group's
judgment.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from rankviz.errors import FormatError, quoted
from rankviz.io.model import Qrels


@dataclass(frozen=True)
class SubtopicQrels:
    """Judgments of documents per subtopic: four parallel lists, in file order."""

    source: str
    qids: tuple[str, ...]
    subtopics: tuple[int, ...]
    docids: tuple[str, ...]
    judgments: tuple[int, ...]

    def __len__(self) -> int:
        return len(self.qids)


def _text(path: str | Path) -> str:
    """The file as UTF-8 text, or one line saying why it cannot be read."""
    try:
        return Path(path).read_bytes().decode("utf-8", errors="strict")
    except OSError as error:
        raise FormatError(str(path), 0, None, f"cannot read the file: {error.strerror}") from None
    except UnicodeDecodeError:
        raise FormatError(str(path), 0, None, "not UTF-8 text") from None


def read_subtopic_qrels(path: str | Path) -> SubtopicQrels:
    """The file's judgments; one line naming the file, the line and the field when a line is not
    four fields, a subtopic or judgment not a natural number, or a (topic, subtopic, docno) judged
    twice (ndeval would add the two judgments up)."""
    source, text = str(path), _text(path)
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
            if not value.isdigit():
                raise FormatError(
                    source, number, line, f"the {name} {quoted(value)} is not a natural number"
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
    return SubtopicQrels(source, tuple(qids), tuple(subtopics), tuple(docids), tuple(judgments))


def read_grouped_qrels(path: str | Path) -> dict[str, Qrels]:
    """trec_eval's ``-R qrels_jg`` file: one :class:`~rankviz.io.model.Qrels` per judgment group
    (the second column), in the groups' byte order; lines starting with ``#`` are comments, as
    trec_eval reads them. One line naming the file and the line when a line is not four fields, a
    grade not a whole number, or a document judged twice in one group."""
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
