"""Checks of the rankings: depths that differ or stop above a cutoff, top K that hardly touch the
judgments, relevant documents no run retrieves, rank columns that contradict the scores, queries
whose scores are all tied."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from rankviz.analyses.checks.findings import Finding
from rankviz.evaluation.run_facts import RunFacts
from rankviz.io.model import Qrels
from rankviz.measures import Measure

# a top K with less than this share of judged documents hardly touches the judgments
LOW_JUDGED = 0.05
FAR_BELOW = 0.25  # ... when it is also below this fraction of the best other run's share
# a share of the judged queries past which a per-query finding is a warning, not a note
MANY_QUERIES = 0.10


def depth_findings(
    facts: Mapping[str, RunFacts], measures: Sequence[Measure], cap: int | None = None
) -> list[Finding]:
    """``depth-differs`` and ``depth-below-cutoff`` (``cap``: the depth in force, ``--depth``)."""
    depths = {
        name: run.depth if cap is None else min(run.depth, cap) for name, run in facts.items()
    }
    found = []
    if len(set(depths.values())) > 1:
        shallow = min(depths.values())
        sensitive = [str(m) for m in measures if m.cutoff is None or m.cutoff > shallow]
        what = (
            f"{', '.join(sensitive)} read past depth {shallow}: the deeper run gains where the "
            "other has no rank"
            if sensitive
            else "every measure's cutoff is within the shallowest depth, so no number is affected"
        )
        found.append(
            Finding(
                "depth-differs",
                "warning" if sensitive else "note",
                f"the runs have different depths ({what}). Cut them to one depth (--depth N, "
                "trec_eval -M).",
                count=len(depths),
                examples=[f"{name}: {d}" for name, d in depths.items()],
            )
        )
    for name, d in depths.items():
        above = [str(m) for m in measures if m.cutoff is not None and m.cutoff > d]
        if above:
            found.append(
                Finding(
                    "depth-below-cutoff",
                    "warning",
                    f"cutoffs above the run's depth of {d}: {', '.join(above)} count ranks the run "
                    "never fills, so its "
                    "values are not comparable with a run as deep as the cutoff.",
                    run=name,
                    count=len(above),
                    examples=above,
                )
            )
    return found


def table_findings(facts: Mapping[str, RunFacts], qrels: Qrels, k: int, rel: int) -> list[Finding]:
    """``low-judged-overlap`` and ``unretrieved-relevant``."""
    shares = {
        name: run.judged_top / run.could_top if run.could_top else 1.0
        for name, run in facts.items()
        if run.lines
    }
    relevant = np.bincount(qrels.qid_codes[qrels.grade >= rel], minlength=len(qrels.query_ids))
    retrieved = {name: run.relevant_retrieved for name, run in facts.items()}
    if facts:  # those no run retrieves a relevant document of: in every run's unfound
        unfound = sorted((run.unfound for run in facts.values()), key=len)
        candidates = unfound[0]
        for other in map(set, unfound[1:]):
            keep = np.fromiter((q in other for q in candidates), dtype=bool, count=len(candidates))
            candidates = candidates[keep]
        at = np.sort(qrels.query_index.positions(candidates))  # in the qrels' order
        at = at[at >= 0]
        lost = qrels.query_ids[at[relevant[at] > 0]].tolist()
    else:
        lost = qrels.query_ids[relevant > 0].tolist()
    with_relevant = int(np.count_nonzero(relevant))
    return [
        *_overlap(shares, k),
        *_unretrieved(lost, with_relevant, int(relevant.sum()), retrieved),
    ]


def _overlap(shares: Mapping[str, float], k: int) -> list[Finding]:
    """``low-judged-overlap``: a run whose top K hardly touches the judged documents."""
    found = []
    for name, share in shares.items():
        others = {n: s for n, s in shares.items() if n != name}
        best = max(others.values(), default=None)
        if share >= LOW_JUDGED or (best is not None and share >= FAR_BELOW * best):
            continue
        compared = (
            f"; the other runs': {', '.join(f'{n} {s:.1%}' for n, s in others.items())}"
            if others
            else ""
        )
        found.append(
            Finding(
                "low-judged-overlap",
                "error" if share == 0 else "warning",
                f"its top {k} holds {share:.1%} of the judged documents it could hold{compared}. "
                "Its numbers say little about its ranking (ids written differently, another "
                "collection, or a pool it was not part of).",
                run=name,
                count=round(share * 10_000),
                examples=[f"{share:.2%} of the judged documents its top {k} could hold"],
            )
        )
    return found


def _unretrieved(
    lost: list[str], with_relevant: int, relevant: int, retrieved: Mapping[str, int]
) -> list[Finding]:
    """``unretrieved-relevant``: queries whose relevant documents no run retrieves, at any depth
    (``lost``, of the ``with_relevant`` queries that have a relevant document, ``relevant`` in
    all)."""
    if not lost:
        return []
    share = len(lost) / with_relevant
    total = max(relevant, 1)
    ceilings = ", ".join(f"{name} {n / total:.1%}" for name, n in retrieved.items())
    return [
        Finding(
            "unretrieved-relevant",
            "warning" if share >= MANY_QUERIES else "note",
            f"{len(lost)} queries ({share:.0%} of those with a relevant document) have relevant "
            "documents that no run retrieves at any depth: every run scores 0 there because of its "
            "candidates, not its ranking. Recall "
            f"ceilings (relevant documents retrieved at any depth): {ceilings}.",
            count=len(lost),
            examples=lost,
            queries=frozenset(lost),
        )
    ]


def score_findings(facts: Mapping[str, RunFacts]) -> list[Finding]:
    """``rank-score-disagree`` and ``all-tied`` on the judged queries of each run."""
    found = []
    for name, run in facts.items():
        if run.tied:
            found.append(
                Finding(
                    "all-tied",
                    "warning",
                    f"{len(run.tied)} queries have one score for every retrieved document: their "
                    "order is the tie policy's, not the run's (see the ties report).",
                    run=name,
                    count=len(run.tied),
                    examples=run.tied,
                    queries=frozenset(run.tied),
                )
            )
        if run.disagree:
            found.append(
                Finding(
                    "rank-score-disagree",
                    "warning",
                    f"in {len(run.disagree)} queries the rank column contradicts the scores (a "
                    "lower rank with a higher score): trec_eval ignores the rank column and orders "
                    "by score (ties=run orders by rank).",
                    run=name,
                    count=len(run.disagree),
                    examples=run.disagree,
                    queries=frozenset(run.disagree),
                )
            )
    return found
