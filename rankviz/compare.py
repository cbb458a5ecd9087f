"""Comparisons built on ranking tables: per-query matrices, deltas, rank distributions, tie counts.

Everything the dashboard shows comes from here (or from :mod:`rankviz.evaluate`), so the numbers
in the browser are the command line's numbers.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
from scipy import stats

from rankviz.evaluate import per_query
from rankviz.groups import aggregate
from rankviz.measures import Measure
from rankviz.measures._segments import first_hit_rank, rows_with_grade_at_least
from rankviz.ranking import RankingTable


def per_query_matrix(tables: Mapping[str, RankingTable], measure: Measure, *, missing: str = "zero") -> pd.DataFrame:
    """Queries x runs values of one measure (qid strcmp order; with ``skip``, queries all runs answer)."""
    columns = {name: per_query(table, measure, missing=missing) for name, table in tables.items()}
    return pd.DataFrame(columns).dropna()


def summary(matrix: pd.DataFrame, *, confidence_level: float = 0.95) -> pd.DataFrame:
    """Mean per run with a t-based confidence interval of the mean over queries."""
    n = len(matrix)
    mean = matrix.mean()
    sem = matrix.std(ddof=1) / np.sqrt(n) if n > 1 else pd.Series(np.nan, index=matrix.columns)
    half = sem * stats.t.ppf(0.5 + confidence_level / 2, max(n - 1, 1))
    return pd.DataFrame({"mean": mean, "ci_low": mean - half, "ci_high": mean + half, "queries": n})


def best_per_measure(means: pd.DataFrame) -> dict[str, list[str]]:
    """The run(s) with the highest mean of each measure (all tied best runs)."""
    return {col: means.index[np.isclose(means[col], means[col].max(), rtol=0, atol=1e-12)].tolist() for col in means}


def deltas(matrix: pd.DataFrame, baseline: str, run: str) -> pd.DataFrame:
    """Per-query baseline value, run value and delta (run - baseline), sorted by delta descending."""
    frame = pd.DataFrame({"baseline": matrix[baseline], "run": matrix[run]})
    frame["delta"] = frame["run"] - frame["baseline"]
    return frame.sort_values("delta", ascending=False, kind="stable")


def wins_ties_losses(delta: pd.Series, *, tolerance: float = 1e-12) -> tuple[int, int, int]:
    """Queries where the run is better, equal (within tolerance), worse than the baseline."""
    return int((delta > tolerance).sum()), int((delta.abs() <= tolerance).sum()), int((delta < -tolerance).sum())


def first_relevant_rank(table: RankingTable, rel: int) -> pd.Series:
    """1-based rank of the first relevant document per query; NaN where the run finds none."""
    ranks = first_hit_rank(table, rows_with_grade_at_least(table, rel))
    return pd.Series(np.where(ranks > 0, ranks, np.nan), index=pd.Index(table.qids, name="qid")).sort_index()


def relevant_ranks(table: RankingTable, rel: int) -> pd.DataFrame:
    """Every retrieved relevant document: its query, rank and grade."""
    rows = rows_with_grade_at_least(table, rel)
    return pd.DataFrame({"qid": table.qids[table.row_query[rows]], "rank": table.pos[rows] + 1, "grade": table.grade[rows]})


def hits_curve(table: RankingTable, rel: int, depth: int) -> pd.Series:
    """Hits@K for K = 1..depth: share of queries with a relevant document in the top K."""
    first = first_relevant_rank(table, rel)
    counts = np.bincount(first.dropna().astype(int).clip(upper=depth + 1), minlength=depth + 2)[1 : depth + 1]
    return pd.Series(np.cumsum(counts) / len(first), index=pd.RangeIndex(1, depth + 1, name="K"))


def tie_statistics(table: RankingTable, cutoff: int) -> dict[str, float]:
    """How much of a run sits in groups of equal scores, overall and in the top ``cutoff``."""
    sizes = np.bincount(table.tie_group) if table.n_rows else np.zeros(0, int)
    tied = sizes[table.tie_group] > 1 if table.n_rows else np.zeros(0, bool)
    top = table.pos < cutoff
    answered = int(table.in_run.sum())
    queries_with_ties = len(np.unique(table.row_query[tied]))
    return {
        "queries answered": answered,
        "queries with ties": queries_with_ties,
        "share of queries with ties": queries_with_ties / answered if answered else 0.0,
        "share of documents tied": float(tied.mean()) if table.n_rows else 0.0,
        f"share of top-{cutoff} documents tied": float(tied[top].mean()) if top.any() else 0.0,
        "largest tie group": int(sizes.max()) if len(sizes) else 0,
    }


def ranking_of(table: RankingTable, qid: str, depth: int) -> pd.DataFrame:
    """One query's top ``depth`` documents: rank, docid, score, grade (NaN = unjudged)."""
    rows = table.query_rows(qid)
    stop = min(rows.stop, rows.start + depth)
    picked = np.arange(rows.start, stop)
    return pd.DataFrame(
        {
            "rank": table.pos[picked] + 1,
            "docid": table.docids(picked),
            "score": table.score[picked],
            "grade": np.where(table.judged[picked], table.grade[picked], np.nan),
        }
    )


def side_by_side(baseline: RankingTable, run: RankingTable, qid: str, depth: int) -> pd.DataFrame:
    """Both rankings of one query, row by row, with how far each document of the run moved."""
    left, right = ranking_of(baseline, qid, depth), ranking_of(run, qid, depth)
    rank_in_baseline = dict(zip(left.docid, left["rank"]))
    moved = [
        "new" if d not in rank_in_baseline else ("=" if rank_in_baseline[d] == r else f"{int(rank_in_baseline[d] - r):+d}")
        for d, r in zip(right.docid, right["rank"])
    ]
    right = right.assign(moved=moved)
    return pd.concat([left.add_prefix("baseline "), right.add_prefix("run ")], axis=1)


def latex(means: pd.DataFrame, *, best: Mapping[str, list[str]] | None = None, digits: int = 4) -> str:
    """A LaTeX tabular of runs x measures, the best value per measure in bold."""

    def escape(text: str) -> str:
        for char, repl in (("\\", r"\textbackslash{}"), ("&", r"\&"), ("%", r"\%"), ("_", r"\_"), ("#", r"\#"), ("$", r"\$")):
            text = text.replace(char, repl)
        return text

    lines = [r"\begin{tabular}{l" + "r" * len(means.columns) + "}", r"\toprule"]
    lines.append("Run & " + " & ".join(escape(c) for c in means.columns) + r" \\")
    lines.append(r"\midrule")
    for run, row in means.iterrows():
        cells = []
        for col, value in row.items():
            text = f"{value:.{digits}f}"
            cells.append(rf"\textbf{{{text}}}" if best and run in best.get(col, []) else text)
        lines.append(escape(str(run)) + " & " + " & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(lines) + "\n"


def summarize(
    matrix: pd.DataFrame,
    *,
    how: str = "query",
    groups: pd.Series | None = None,
    weights: pd.Series | None = None,
    confidence_level: float = 0.95,
) -> pd.DataFrame:
    """:func:`summary` under an aggregate: the t interval applies to the mean over queries only, so
    with ``macro`` or ``weights`` the mean is the aggregate and the interval is left empty (NaN)."""
    if how == "query":
        return summary(matrix, confidence_level=confidence_level)
    mean = aggregate(matrix, how=how, groups=groups, weights=weights)
    return pd.DataFrame({"mean": mean, "ci_low": np.nan, "ci_high": np.nan, "queries": len(matrix)})


def wins_ties_losses_by_group(delta: pd.Series, groups: pd.Series, *, tolerance: float = 1e-12) -> pd.DataFrame:
    """Per group: number of queries, wins, ties and losses of the run against the baseline, mean delta."""
    rows = {
        group: dict(
            zip(("wins", "ties", "losses"), wins_ties_losses(part, tolerance=tolerance)),
            queries=len(part),
            mean_delta=part.mean(),
        )
        for group, part in delta.groupby(groups.reindex(delta.index), sort=True)
    }
    return pd.DataFrame.from_dict(rows, orient="index")[["queries", "wins", "ties", "losses", "mean_delta"]].rename_axis("group")
