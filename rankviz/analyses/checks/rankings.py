"""Checks of the rankings: depths that differ or stop above a cutoff, top K that hardly touch the
judgments, relevant documents no run retrieves, rank columns that contradict the scores, queries
whose scores are all tied."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from rankviz.analyses.checks.findings import Finding
from rankviz.io.model import Run
from rankviz.measures import Measure
from rankviz.ranking import RankingTable

LOW_JUDGED = 0.05  # a top K with less than this share of judged documents hardly touches the judgments
FAR_BELOW = 0.25  # ... when it is also below this fraction of the best other run's share
MANY_QUERIES = 0.10  # a share of the judged queries past which a per-query finding is a warning, not a note


def depth(run: Run) -> int:
    """The run's depth: its longest ranking."""
    return int(np.bincount(run.qid_codes).max()) if len(run) else 0


def depth_findings(runs: Mapping[str, Run], measures: Sequence[Measure], cap: int | None = None) -> list[Finding]:
    """``depth-differs`` and ``depth-below-cutoff`` (``cap``: the depth in force, ``--depth``)."""
    depths = {name: depth(run) if cap is None else min(depth(run), cap) for name, run in runs.items()}
    found = []
    if len(set(depths.values())) > 1:
        shallow = min(depths.values())
        sensitive = [str(m) for m in measures if m.cutoff is None or m.cutoff > shallow]
        what = (f"{', '.join(sensitive)} read past depth {shallow}: the deeper run gains where the other has no rank"
                if sensitive else "every measure's cutoff is within the shallowest depth, so no number is affected")  # fmt: skip
        found.append(Finding(
            "depth-differs", "warning" if sensitive else "note",
            f"the runs have different depths ({what}). Cut them to one depth (--depth N, trec_eval -M).",
            count=len(depths), examples=[f"{name}: {d}" for name, d in depths.items()],
        ))  # fmt: skip
    for name, d in depths.items():
        above = [str(m) for m in measures if m.cutoff is not None and m.cutoff > d]
        if above:
            found.append(Finding(
                "depth-below-cutoff", "warning",
                f"cutoffs above the run's depth of {d}: {', '.join(above)} count ranks the run never fills, so its "
                "values are not comparable with a run as deep as the cutoff.",
                run=name, count=len(above), examples=above,
            ))  # fmt: skip
    return found


def judged_share(table: RankingTable, k: int) -> float:
    """The judged documents of every top ``k`` over those the top ``k`` could hold (a query with 1
    judgment can hold 1): sparse judgments (MS MARCO's one a query) do not read as a misaligned run."""
    top = table.top(k)
    answered = table.in_run
    could = np.minimum(np.diff(table.ideal_offsets), np.minimum(np.diff(top.offsets), k))[answered].sum()
    return float(top.judged.sum() / could) if could else 1.0


def table_findings(tables: Iterable[tuple[str, RankingTable]], k: int, rel: int) -> list[Finding]:
    """``low-judged-overlap`` and ``unretrieved-relevant``, from the runs' tables taken one at a time."""
    shares: dict[str, float] = {}
    found_any: dict[str, bool] = {}
    relevant: dict[str, int] = {}
    retrieved: dict[str, int] = {}
    for name, table in tables:
        if len(table.judged):
            shares[name] = judged_share(table, k)
        if not relevant:
            per_query = np.bincount(table.ideal_query[table.ideal_grades >= rel], minlength=len(table.qids))
            relevant = {str(q): int(n) for q, n in zip(table.qids, per_query, strict=True)}
        hits = np.bincount(table.row_query[table.grade >= rel], minlength=len(table.qids))
        for qid, n in zip(table.qids, hits, strict=True):
            found_any[str(qid)] = found_any.get(str(qid), False) or bool(n)
        retrieved[name] = int(hits.sum())
    return [*_overlap(shares, k), *_unretrieved(relevant, found_any, retrieved)]


def _overlap(shares: Mapping[str, float], k: int) -> list[Finding]:
    """``low-judged-overlap``: a run whose top K hardly touches the judged documents."""
    found = []
    for name, share in shares.items():
        others = {n: s for n, s in shares.items() if n != name}
        best = max(others.values(), default=None)
        if share >= LOW_JUDGED or (best is not None and share >= FAR_BELOW * best):
            continue
        compared = f"; the other runs': {', '.join(f'{n} {s:.1%}' for n, s in others.items())}" if others else ""
        found.append(Finding(
            "low-judged-overlap", "error" if share == 0 else "warning",
            f"its top {k} holds {share:.1%} of the judged documents it could hold{compared}. Its numbers say little "
            "about its ranking "
            "(ids written differently, another collection, or a pool it was not part of).",
            run=name, count=round(share * 10_000), examples=[f"{share:.2%} of the judged documents its top {k} could hold"],
        ))  # fmt: skip
    return found


def _unretrieved(relevant: Mapping[str, int], found_any: Mapping[str, bool], retrieved: Mapping[str, int]) -> list[Finding]:
    """``unretrieved-relevant``: queries whose relevant documents no run retrieves, at any depth."""
    with_relevant = [q for q, n in relevant.items() if n]
    lost = [q for q in with_relevant if not found_any.get(q, False)]
    if not lost:
        return []
    share = len(lost) / len(with_relevant)
    total = max(sum(relevant.values()), 1)
    ceilings = ", ".join(f"{name} {n / total:.1%}" for name, n in retrieved.items())
    return [Finding(
        "unretrieved-relevant", "warning" if share >= MANY_QUERIES else "note",
        f"{len(lost)} queries ({share:.0%} of those with a relevant document) have relevant documents that no run "
        "retrieves at any depth: every run scores 0 there because of its candidates, not its ranking. Recall "
        f"ceilings (relevant documents retrieved at any depth): {ceilings}.",
        count=len(lost), examples=lost, queries=frozenset(lost),
    )]  # fmt: skip


def _by_query(run: Run) -> np.ndarray:
    """The run's rows grouped by query (file order inside a query); no sort when the file is grouped already."""
    codes = run.qid_codes
    if len(codes) < 2 or bool(np.all(codes[1:] >= codes[:-1])):
        return np.arange(len(codes))
    return np.argsort(codes, kind="stable")


def score_findings(runs: Mapping[str, Run], *, judged: set[str]) -> list[Finding]:
    """``rank-score-disagree`` and ``all-tied`` on the judged queries of each run."""
    found = []
    for name, run in runs.items():
        if not len(run):
            continue
        rows = _by_query(run)
        codes, score = run.qid_codes[rows], run.score[rows]
        starts = np.flatnonzero(np.r_[True, codes[1:] != codes[:-1]])
        sizes = np.diff(np.r_[starts, len(codes)])
        kept = np.array([str(run.query_ids[codes[s]]) in judged for s in starts])
        tied = kept & (sizes > 1) & (np.maximum.reduceat(score, starts) == np.minimum.reduceat(score, starts))
        if tied.any():
            qids = [str(run.query_ids[codes[s]]) for s in starts[tied]]
            found.append(Finding(
                "all-tied", "warning",
                f"{len(qids)} queries have one score for every retrieved document: their order is the tie policy's, "
                "not the run's (see the ties report).",
                run=name, count=len(qids), examples=qids, queries=frozenset(qids),
            ))  # fmt: skip
        ranks = np.asarray(run.rank, dtype=np.float64)[rows]
        in_rank_order = bool(np.all((codes[1:] != codes[:-1]) | (ranks[1:] >= ranks[:-1])))  # as files usually are
        by_rank = slice(None) if in_rank_order else np.lexsort((ranks, codes))  # inside each query, by the rank column
        s, c = score[by_rank], codes[by_rank]
        rising = (c[1:] == c[:-1]) & (s[1:] > s[:-1])  # a later rank with a higher score
        if rising.any():
            bad = np.unique(c[1:][rising])
            qids = [str(run.query_ids[q]) for q in bad if str(run.query_ids[q]) in judged]
            if qids:
                found.append(Finding(
                    "rank-score-disagree", "warning",
                    f"in {len(qids)} queries the rank column contradicts the scores (a lower rank with a higher "
                    "score): trec_eval ignores the rank column and orders by score (ties=run orders by rank).",
                    run=name, count=len(qids), examples=qids, queries=frozenset(qids),
                ))  # fmt: skip
    return found
