"""Judgments from several sources: a collection's qrels files, the meeting's record, an LLM's
labels.

A source is named and has a kind (``human``, ``llm:NAME``, ``meeting``), said wherever its numbers
are shown. A collection folder holds its qrels file and may hold more (``qrels.NAME.txt``, or a
``[qrels.NAME]`` table in collection.toml with its ``file`` and ``kind``); the meeting's record is
one more, and within it, the entries imported with a source label (``judgments import --source
llm:NAME``) are one source and the people's entries another. Sources combine: the meeting's grades
over a file (:func:`merged_qrels`, latest wins), or a file with its holes filled by another
(:func:`filled`, the file wins). No qrels file on disk is ever written.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from rankviz.io.model import Qrels

#: A record entry's ``by`` that names a source of judgments rather than a person: ``llm:NAME`` or
#: ``human:NAME``.
SOURCE_LABEL = re.compile(r"^(llm|human):[A-Za-z0-9][A-Za-z0-9._-]*$")


#: The kinds a source may be said to be (``llm:NAME`` names the model or the prompt).
KIND = re.compile(r"^(human|meeting|llm:[A-Za-z0-9][A-Za-z0-9._-]*|)$")
FILE = "file"  # the name of a collection's own qrels file among its sources


@dataclass(frozen=True)
class QrelsSource:
    """One source of a collection's judgments: a qrels file, its name and its kind ("" when not
    said)."""

    name: str
    path: Path
    kind: str = ""

    def describe(self) -> str:
        return f"{self.name} ({self.kind or 'kind not said'})"


def is_source_label(by: str) -> bool:
    return SOURCE_LABEL.match(by) is not None


def filled(qrels: Qrels, other: Qrels) -> Qrels:
    """``qrels`` with the pairs it does not judge taken from ``other`` (UMBRELA's way of filling
    holes)."""
    frame = other.to_frame()
    grades = {
        (str(q), str(d)): int(g)
        for q, d, g in zip(frame["qid"], frame["docid"], frame["rel"], strict=True)
    }
    mine = qrels.to_frame()
    for key in zip(mine["qid"].astype(str), mine["docid"].astype(str), strict=True):
        grades.pop(key, None)
    return merged_qrels(qrels, grades, label=f"holes filled by {other.source}")


def merged_qrels(qrels: Qrels, grades: Mapping[tuple[str, str], int], *, label: str = "") -> Qrels:
    """``qrels`` with the meeting's grades in force: a judged pair takes its latest grade, a new
    pair is added."""
    import pandas as pd

    from rankviz.io.frames import qrels_from_frame

    if not grades:
        return qrels
    frame = qrels.to_frame()
    index = pd.MultiIndex.from_arrays([frame["qid"].astype(str), frame["docid"].astype(str)])
    new = pd.Series(grades, dtype="int64")
    known = new.index.isin(index)
    merged = pd.Series(frame["rel"].to_numpy(), index=index, dtype="int64")
    merged.loc[new.index[known]] = new[known].to_numpy()
    added = new[~known]
    table = pd.DataFrame(
        {
            "qid": [*merged.index.get_level_values(0), *added.index.get_level_values(0)],
            "docid": [*merged.index.get_level_values(1), *added.index.get_level_values(1)],
            "rel": [*merged.to_numpy(), *added.to_numpy()],
        }
    )
    source = f"{qrels.source} + " + (label or f"{len(grades):,} meeting judgments")
    return qrels_from_frame(table, source=source)


def qrels_lines(qrels: Qrels) -> str:
    """TREC qrels text (``qid 0 docid grade``) of ``qrels``, in its order."""
    frame = qrels.to_frame()
    return "".join(
        f"{q} 0 {d} {int(g)}\n"
        for q, d, g in zip(frame["qid"], frame["docid"], frame["rel"], strict=True)
    )


def judgment_lines(grades: Mapping[tuple[str, str], int]) -> str:
    """TREC qrels text of the meeting's grades in force, in the order first judged."""
    return "".join(f"{q} 0 {d} {g}\n" for (q, d), g in grades.items())
