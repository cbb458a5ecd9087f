"""Guidance on the task: a few questions about it lead to measures, each with the reason and what it
would hide on this collection (:func:`recommend`); what the qrels and runs themselves warn about
(:func:`collection_warnings`); answers guessed from the qrels when none are given
(:func:`infer_task`). The evidence for each recommendation is in
:mod:`rankviz.analyses.metric_choice`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from itertools import product

import numpy as np
import pandas as pd

from rankviz.analyses.unjudged import JUDGED_WARNING, judged_share
from rankviz.ranking.ranking_table import RankingTable


def judged_at_k(tables: Mapping[str, RankingTable], k: int) -> pd.Series:
    """Per run, the share of its top-K documents (over queries it answers) that the qrels judge."""
    return pd.Series({name: judged_share(t, k) for name, t in tables.items()}, name=f"judged@{k}")


@dataclass(frozen=True)
class CollectionWarnings:
    """What the collection itself says about the measures."""

    queries: int
    no_relevant_in_qrels: list[str]  # queries with no judgment >= rel: every measure gives 0
    none_found: list[str]  # queries where no run retrieves a relevant document: RR compresses to 0
    # queries with at least ``many`` relevant judgments: RR sees only one of them
    many_relevant: list[str]
    many: int
    judged: pd.Series  # judged@K per run
    k: int

    def messages(self) -> list[str]:
        share = lambda items: (  # noqa: E731
            f"{len(items)} of {self.queries} queries ({len(items) / max(self.queries, 1):.0%})"
        )
        lines = []
        if self.no_relevant_in_qrels:
            lines.append(
                f"{share(self.no_relevant_in_qrels)} have no relevant document in the qrels; every "
                "measure scores them 0."
            )
        if self.none_found:
            lines.append(
                f"In {share(self.none_found)} no run finds a relevant document: RR and "
                "Hits are 0 there for all runs."
            )
        if self.many_relevant:
            lines.append(
                f"{share(self.many_relevant)} have {self.many} or more relevant documents: RR and "
                "Hits see only the first, and may mislead; AP, nDCG or R cover the rest."
            )
        low = self.judged[self.judged < JUDGED_WARNING]
        if len(low) == 1:
            lines.append(
                f"Only {low.iloc[0]:.0%} of {low.index[0]}'s top-{self.k} documents are judged: "
                "unjudged ones count as non-relevant."
            )
        elif len(low):  # one line for the runs alike, each run's share beside its name
            shares = ", ".join(f"{run} {value:.0%}" for run, value in low.items())
            lines.append(
                f"Only part of the top-{self.k} documents of {len(low)} runs is judged "
                f"({shares}): unjudged ones count as non-relevant."
            )
        return lines


def collection_warnings(
    tables: Mapping[str, RankingTable], *, rel: int, k: int, many: int = 10
) -> CollectionWarnings:
    """Warnings from the qrels and the runs (all tables share the qrels)."""
    first = next(iter(tables.values()))
    relevant = np.bincount(
        first.ideal_query,
        weights=(first.ideal_grades >= rel).astype(float),
        minlength=first.n_queries,
    )
    found: set[str] = set()
    for table in tables.values():
        found.update(table.qids[np.unique(table.row_query[table.grade >= rel])])
    return CollectionWarnings(
        queries=first.n_queries,
        no_relevant_in_qrels=sorted(q for q, r in zip(first.qids, relevant) if r == 0),
        none_found=sorted(q for q, r in zip(first.qids, relevant) if r > 0 and q not in found),
        many_relevant=sorted(q for q, r in zip(first.qids, relevant) if r >= many),
        many=many,
        judged=judged_at_k(tables, k),
        k=k,
    )


@dataclass(frozen=True)
class Task:
    """Answers about the task: one correct answer or many; do users look only at the top K (None:
    all); is relevance graded; do users stop at the first satisfying result."""

    single_answer: bool
    top_k: int | None
    graded: bool
    stops_when_satisfied: bool
    source: str = ""  # where the answers come from (given, or guessed from the qrels and how)

    def answered(
        self,
        *,
        single_answer: bool | None = None,
        graded: bool | None = None,
        stops_when_satisfied: bool | None = None,
    ) -> Task:
        """This (guessed) task with the answers given replaced; the source says "answers given" once
        the number of answers is given."""
        given = {
            "single_answer": single_answer,
            "graded": graded,
            "stops_when_satisfied": stops_when_satisfied,
        }
        changes: dict[str, object] = {
            name: value for name, value in given.items() if value is not None
        }
        if single_answer is not None:
            changes["source"] = "answers given"
        return replace(self, **changes)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Recommendation:
    measure: str
    reason: str
    hides: str


@dataclass(frozen=True)
class Candidate:
    """A measure the guidance may name and the user it models: graded relevance or binary; a user
    who stops (at the first satisfying result, or at each rank with a chance: ERR, RR, RBP); one
    correct answer or many relevant items; whether it needs the top K."""

    kind: str
    graded: bool
    stops: bool
    one: bool
    many: bool
    needs_k: bool = False

    def ignores(self, task: Task) -> list[str]:
        """The answers about ``task`` this measure does not honour, in words (none: it fits)."""
        said = []
        if task.graded and not self.graded:
            said.append("the grades")
        if not task.graded and self.graded:
            said.append("that relevance is binary")
        if task.stops_when_satisfied and not self.stops:
            said.append("that users stop at the first satisfying result")
        if task.single_answer and not self.one:
            said.append("that each query has one correct answer")
        if not task.single_answer and not self.many and not task.stops_when_satisfied:
            said.append("the relevant items after the first")
        return said


#: every measure the guidance names, in the order it lists those that fit a task
CANDIDATES = (
    Candidate("RR", graded=False, stops=True, one=True, many=False),
    Candidate("Hits", graded=False, stops=False, one=True, many=False, needs_k=True),
    Candidate("AP", graded=False, stops=False, one=False, many=True),
    Candidate("P", graded=False, stops=False, one=False, many=True, needs_k=True),
    Candidate("nDCG", graded=True, stops=False, one=False, many=True),
    Candidate("ERR", graded=True, stops=True, one=True, many=True),
    Candidate("gRBP", graded=True, stops=True, one=False, many=True),
    Candidate("RBP", graded=False, stops=True, one=False, many=True),
)


def recommend(
    task: Task, warnings: CollectionWarnings, *, graded_share: float, rel: int
) -> list[Recommendation]:
    """The measures that honour every answer about the task (graded: a graded measure; users who
    stop: ERR, RR or RBP; one answer: RR, Hits@K or ERR), each with its reason and what it would
    hide on this collection; :func:`named` names any candidate, fitting or not.

    ``graded_share``: share of the relevant judgments above the lowest relevant grade (what binary
    measures flatten).
    """
    return [
        pick
        for pick, ignored in weighed(task, warnings, graded_share=graded_share, rel=rel)
        if not ignored
    ]


def named(
    candidate: Candidate,
    task: Task,
    warnings: CollectionWarnings,
    *,
    graded_share: float,
    rel: int,
) -> Recommendation:
    """``candidate`` at the task's top K, with its reason and what it hides on this collection."""
    k = task.top_k
    at = f"@{k}" if k else ""
    rel_text = "" if rel == 1 else f"(rel={rel})"
    many = len(warnings.many_relevant) / max(warnings.queries, 1)
    none = len(warnings.none_found) / max(warnings.queries, 1)
    flattened = (
        f"grades: {graded_share:.0%} of relevant judgments are above the lowest relevant grade "
        "and count the same"
    )
    said = {
        "RR": (
            f"RR{rel_text}{at}",
            "one correct item, or a user who stops at the first relevant one: the rank of the "
            "first relevant document is what the user feels",
            f"every relevant document after the first ({many:.0%} of queries have "
            f"{warnings.many}+ relevant); compresses to 0 where nothing is found ({none:.0%} of "
            "queries)",
        ),
        "Hits": (
            f"Hits{rel_text}@{k}",
            f"only the top {k} is inspected and success is binary",
            f"where in the top {k} the first relevant document is, and everything after it",
        ),
        "AP": (
            f"AP{rel_text}{at}",
            "many relevant items: rewards finding all of them, early",
            flattened,
        ),
        "P": (
            f"P{rel_text}@{k}",
            f"many relevant items, only the top {k} inspected",
            f"the order inside the top {k}",
        ),
        "nDCG": (
            f"nDCG{at}",
            "graded relevance: a highly relevant document is worth more than a marginal one",
            "that a user may stop early: gains keep adding up below a perfect answer",
        ),
        "ERR": (
            f"ERR@{k or 20}",
            "graded relevance and sequential browsing that stops when satisfied: later documents "
            "count only if earlier ones did not satisfy",
            "documents ranked after a highly relevant one, which users rarely reach",
        ),
        "gRBP": (
            f"RBP(rel={rel},graded=True)",
            "graded relevance and a user who reads on to each next rank with probability 0.8 "
            "(rank-biased precision)",
            "a user who stops because a document satisfied: RBP's user stops by chance alone",
        ),
        "RBP": (
            f"RBP(rel={rel})",
            "many relevant items and a user who reads on to each next rank with probability 0.8 "
            "(rank-biased precision)",
            f"a user who stops because a document satisfied; {flattened}",
        ),
    }[candidate.kind]
    return Recommendation(*said)


def graded_share(table: RankingTable, rel: int) -> float:
    """Share of the relevant judgments (grade >= rel) whose grade is above rel."""
    relevant = table.ideal_grades[table.ideal_grades >= rel]
    return float((relevant > rel).mean()) if len(relevant) else 0.0


def infer_task(tables: Mapping[str, RankingTable], *, rel: int, top_k: int) -> Task:
    """Answers read from the qrels when the user gives none: one answer if most queries have at most
    one relevant document; graded if relevant grades differ; users stop when satisfied if graded."""
    first = next(iter(tables.values()))
    relevant = np.bincount(
        first.ideal_query,
        weights=(first.ideal_grades >= rel).astype(float),
        minlength=first.n_queries,
    )
    grades = np.unique(first.ideal_grades[first.ideal_grades >= 1])
    median = float(np.median(relevant))
    source = (
        f"guessed from the qrels: a median of {median:g} relevant documents per query (grade >= "
        f"{rel}), {len(grades)} positive grade{'s' if len(grades) != 1 else ''}"
    )
    graded = len(grades) > 1
    return Task(
        single_answer=median <= 1,
        top_k=top_k,
        graded=graded,
        stops_when_satisfied=graded,
        source=source,
    )


def weighed(
    task: Task, warnings: CollectionWarnings, *, graded_share: float, rel: int
) -> list[tuple[Recommendation, list[str]]]:
    """Every candidate at the task's top K and the answers about the task it ignores (none: it
    fits): what the advice weighs, and the measures it says separate more when they do not fit."""
    return [
        (named(c, task, warnings, graded_share=graded_share, rel=rel), c.ignores(task))
        for c in CANDIDATES
        if task.top_k or not c.needs_k
    ]


def candidate_measures(
    warnings: CollectionWarnings, *, graded_share: float, rel: int, top_k: int
) -> list[str]:
    """Every measure the guidance names for some answer about the task (K fixed), fitting or
    not: the evidence of each is what the advice weighs and compares with."""
    names: list[str] = []
    for single, top, graded, stops in product(
        (True, False), (top_k, None), (True, False), (True, False)
    ):
        task = Task(single_answer=single, top_k=top, graded=graded, stops_when_satisfied=stops)
        names += [
            named(c, task, warnings, graded_share=graded_share, rel=rel).measure
            for c in CANDIDATES
            if top or not c.needs_k
        ]
    return list(dict.fromkeys(names))
