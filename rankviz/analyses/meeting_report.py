"""What an error-analysis meeting decided, to take away: the means under the qrels file and under
the meeting's judgments with their verdicts, and every query the meeting touched (judged, tagged or
noted) with both runs' top K side by side, the grades from the file and from the meeting (who,
when), the texts, tags, note and history. :func:`rankviz.plots.export.meeting_html` writes it as one
page.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from rankviz.analyses.comparisons import Comparison
from rankviz.analyses.query_view import aligned
from rankviz.evaluation.result import Evaluation
from rankviz.io.entries import SIGNED_IN, UNSAID, VIA
from rankviz.io.meeting import Entry, Judgment, Lock
from rankviz.ranking.ranking_table import RankingTable


@dataclass(frozen=True)
class DiscussedQuery:
    """One query the meeting touched. ``documents``: both runs' top K, one row per document (docid,
    ranks, move, the file's grade, the meeting's grade with who and when, title)."""

    qid: str
    text: str
    documents: pd.DataFrame
    tags: tuple[str, ...]
    note: str
    history: tuple[Entry, ...]


@dataclass(frozen=True, eq=False)
class MeetingReport:
    """The meeting's decisions and their effect on the numbers (see the module)."""

    collection: str
    conventions: tuple[str, ...]
    baseline: str
    run: str
    # run, measure, qrels file, with the meeting's, change, verdict file, verdict meeting
    means: pd.DataFrame
    queries: tuple[DiscussedQuery, ...]
    judgments: int  # pairs the meeting judged (its latest grades in force)
    # how many entries were made by each way of knowing their author (io.entries.VIA; "": older)
    provenance: Mapping[str, int]
    lock: Lock

    @property
    def authorship(self) -> str:
        """How the record's entries' authors are known, in words: all signed in, or the counts."""
        total = sum(self.provenance.values())
        if not total:
            return "The record holds no entry yet."
        if self.provenance.get(SIGNED_IN, 0) == total:
            return (
                f"All {total:,} entries were made by people signed in: each name is the identity "
                "the server's sign-in provider vouched for."
            )
        parts = [
            f"{self.provenance[v]:,} {v or UNSAID}" for v in (*VIA, "") if self.provenance.get(v)
        ]
        return f"The {total:,} entries by how their author is known: {', '.join(parts)}."

    def to_frames(self) -> dict[str, pd.DataFrame]:
        """``means`` (see the field) and ``documents`` (qid plus each discussed query's rows)."""
        rows = [q.documents.assign(qid=q.qid) for q in self.queries]
        return {
            "means": self.means,
            "documents": pd.concat(rows, ignore_index=True) if rows else pd.DataFrame(),
        }

    def to_dict(self) -> dict:
        return {
            "collection": self.collection,
            "conventions": list(self.conventions),
            "baseline": self.baseline,
            "run": self.run,
            "entries_by_how_known": {v or UNSAID: n for v, n in self.provenance.items()},
            "lock": self.lock._asdict(),
            "means": self.means.to_dict(orient="records"),
            "queries": [
                {
                    "qid": q.qid,
                    "text": q.text,
                    "documents": q.documents.to_dict(orient="records"),
                    "tags": list(q.tags),
                    "note": q.note,
                    "history": [vars(e) for e in q.history],
                }
                for q in self.queries
            ],
        }


def means_with_verdicts(
    before: Evaluation, after: Evaluation, tested_before: Comparison, tested_after: Comparison
) -> pd.DataFrame:
    """Per run and measure: the mean under the file's qrels and under the meeting's, the change, and
    the verdict against the baseline under each (empty for the baseline)."""
    file_means, meeting_means = before.means().stack(), after.means().stack()
    frame = pd.DataFrame({"qrels file": file_means, "with the meeting's": meeting_means})
    frame["change"] = frame["with the meeting's"] - frame["qrels file"]
    frame.index.names = ["run", "measure"]
    for label, tested in (("verdict file", tested_before), ("verdict meeting", tested_after)):
        table = tested.table
        verdicts = pd.Series(
            tested.verdicts(), index=pd.MultiIndex.from_arrays([table["run"], table["measure"]])
        )
        frame[label] = [verdicts.get(key, "") for key in frame.index]
    return frame.reset_index()


def discussed_query(
    qid: str,
    text: str,
    tables: Mapping[str, RankingTable],
    baseline: str,
    run: str,
    *,
    k: int,
    file_grades: Mapping[tuple[str, str], int],
    judged: Mapping[tuple[str, str], Judgment],
    titles: Callable[[list[str]], Mapping[str, str]],
    tags: list[str],
    note: str,
    history: list[Entry],
) -> DiscussedQuery:
    """One discussed query's rows: both runs' top ``k`` aligned (the meeting's qrels in force)."""
    if qid in tables[baseline].qids:
        view = aligned(tables[baseline], tables[run], qid, k)
    else:  # a query the runs do not answer (or the qrels do not hold)
        view = pd.DataFrame(columns=["docid", "baseline rank", "run rank", "move"])
    docids = view["docid"].astype(str).tolist()
    # judged documents neither top K holds
    shown = set(docids)
    extra = [d for (q, d) in judged if q == qid and d not in shown]
    every = docids + extra
    found = [judged.get((qid, d)) for d in every]
    known = titles(every)
    rows = pd.DataFrame(  # built at once: one frame, not a column at a time
        {
            "docid": every,
            f"{baseline} rank": [*view["baseline rank"], *[np.nan] * len(extra)],
            f"{run} rank": [*view["run rank"], *[np.nan] * len(extra)],
            "move": [*view["move"], *[""] * len(extra)],
            "qrels file": [file_grades.get((qid, d)) for d in every],
            "meeting": [None if j is None else j.grade for j in found],
            "by": ["" if j is None else j.by for j in found],
            "at": ["" if j is None else j.at for j in found],
            "title": [known.get(d, "") for d in every],
        }
    )
    return DiscussedQuery(qid, text, rows, tuple(tags), note, tuple(history))
