"""Unjudged documents: how much every number rests on documents nobody judged.

Dense and LLM-based retrievers bring back documents the pool never saw; their scores then fall for
lack of judgments, not of relevance. For each run and measure the report gives two ends: the value
with unjudged documents counted as not relevant (trec_eval's, the usual number) and the value with
every unjudged document of that run's top K judged at a grade G (the ideal ranking recomputed), the
pairs of runs whose order can flip between those ends, the significance verdicts that change, and
the documents that would settle it, most-shared first. The second sensitivity beside the tie order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from rankviz.analyses.sensitivity import Section, Variants, long_means, section
from rankviz.evaluation.assembly import combine
from rankviz.evaluation.evaluate import evaluate_tables
from rankviz.evaluation.result import Evaluation
from rankviz.io.groups import QueryGroups
from rankviz.io.model import Qrels, Run
from rankviz.measures import Measure, make
from rankviz.ranking.ordering import rank
from rankviz.ranking.ranking_table import RankingTable
from rankviz.settings.eval_settings import EvalSettings
from rankviz.settings.report_settings import UnjudgedSettings
from rankviz.settings.significance_settings import TestSettings

#: The share of a run's top K below which the app and the CLI warn that its numbers rest on guesses.
JUDGED_WARNING = 0.9
ENDS = ("nonrelevant", "filled")
#: The two ends: filling can lower a value too (AP and nDCG gain relevant documents in their
#: denominators), so each run's interval runs from its lower end to its higher (``low``, ``high``).
END_VARIANTS = Variants(ENDS, "nonrelevant", "ends")


def judged_share(table: RankingTable, k: int) -> float:
    """The share of the run's top-K documents (over the queries it answers) that the qrels judge."""
    top = table.top(k)
    return float(top.judged.mean()) if top.n_rows else 0.0


def judged_share_of(judged: np.ndarray, retrieved: np.ndarray) -> float:
    """:func:`judged_share` from per-query values: ``judged`` is Judged@K and ``retrieved`` NumRet@K
    of each query (NaN for a query the run does not answer): the judged documents of the top K over
    all documents of the top K, each query weighed by what it retrieved."""
    answered = ~np.isnan(judged) & ~np.isnan(retrieved)
    total = float(retrieved[answered].sum())
    return float((judged[answered] * retrieved[answered]).sum()) / total if total else 0.0


def unjudged_holes(name: str, table: RankingTable, k: int) -> pd.DataFrame:
    """One run's unjudged documents in its top K: qid, docid, rank, run."""
    top = table.top(k)
    holes = np.flatnonzero(~top.judged)
    return pd.DataFrame(
        {
            "qid": top.qids[top.row_query[holes]],
            "docid": top.docids(holes),
            "rank": top.pos[holes] + 1,
            "run": name,
        }
    )


def unjudged_documents(holes: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """Per (query, docid): how many runs rank it unjudged in their top K, its best rank and those
    runs; most-shared first, then by best rank (the order in which judging them settles the
    most)."""
    frames = [f for f in holes if len(f)]
    if not frames:
        return pd.DataFrame(columns=["qid", "docid", "runs", "best rank", "ranked by"])
    every = pa.Table.from_pandas(
        pd.concat(frames, ignore_index=True).sort_values("run", kind="stable"), preserve_index=False
    )
    grouped = every.group_by(["qid", "docid"], use_threads=False).aggregate(
        [("run", "count"), ("rank", "min"), ("run", "list")]
    )
    documents = pd.DataFrame(
        {
            "qid": grouped["qid"].to_numpy(zero_copy_only=False),
            "docid": grouped["docid"].to_numpy(zero_copy_only=False),
            "runs": grouped["run_count"].to_numpy(),
            "best rank": grouped["rank_min"].to_numpy(),
            "ranked by": pc.binary_join(
                grouped["run_list"].cast(pa.list_(pa.string())), ", "
            ).to_numpy(zero_copy_only=False),
        }
    )
    return documents.sort_values(
        ["runs", "best rank", "qid", "docid"], ascending=[False, True, True, True], kind="stable"
    )


def queries_most_unjudged(documents: pd.DataFrame) -> pd.DataFrame:
    """Per query: the distinct unjudged documents in the runs' top K, and those more than one run
    shares."""
    if documents.empty:
        return pd.DataFrame(columns=["unjudged", "shared"]).rename_axis("qid")
    by_query = documents.assign(shared=documents["runs"] > 1).groupby("qid")
    frame = pd.DataFrame(
        {"unjudged": by_query.size(), "shared": by_query["shared"].sum().astype(int)}
    )
    return frame.sort_values(["unjudged", "shared"], ascending=False, kind="stable")


@dataclass(frozen=True, eq=False)
class UnjudgedReport:
    """Judged@K per run, a section per measure, and the documents and queries to judge first."""

    judged: pd.DataFrame  # per run: Judged@K (mean over queries) and the share of its top K judged
    sections: dict[str, Section]
    documents: pd.DataFrame
    queries: pd.DataFrame
    evaluations: dict[str, Evaluation]  # "nonrelevant" and "filled"
    settings: EvalSettings
    grade: int
    k: int
    options: UnjudgedSettings = field(default_factory=UnjudgedSettings)

    def __repr__(self) -> str:
        measures = ", ".join(self.sections)
        return (
            f"UnjudgedReport({len(self.judged)} runs, top {self.k}, filled with grade "
            f"{self.grade}; measures: {measures})"
        )

    def to_frames(self) -> dict[str, pd.DataFrame]:
        """``judged`` (per run: Judged@K and the share of its top K judged), ``means`` (run,
        measure, end, value; the ends, ``low``, ``high`` and ``width``), ``queries`` and
        ``documents`` to
        judge."""
        return {
            "judged": self.judged,
            "means": long_means(self.sections, "end"),
            "queries": self.queries,
            "documents": self.documents,
        }

    def to_dict(self) -> dict:
        """K, the grade, Judged@K, per measure its means, pairs and verdicts; the queries with the
        most unjudged documents and the documents to judge first (``queries`` and ten times as
        many)."""
        limit = self.options.queries
        return {
            "k": self.k,
            "grade": self.grade,
            "judged": self.judged.to_dict(orient="index"),
            "measures": [section.to_dict() for section in self.sections.values()],
            "queries": self.queries.head(limit).reset_index().to_dict(orient="records"),
            "documents": self.documents.head(limit * 10).to_dict(orient="records"),
        }

    def warnings(self) -> list[str]:
        """The runs whose top K is thinly judged: one line, each run's share beside its name."""
        low = self.judged[self.judged["share judged"] < JUDGED_WARNING]["share judged"]
        if len(low) == 1:
            return [
                f"only {low.iloc[0]:.0%} of {low.index[0]}'s top {self.k} is judged: its numbers "
                "rest on unjudged documents"
            ]
        if len(low) > 1:
            shares = ", ".join(f"{run} {share:.0%}" for run, share in low.items())
            return [
                f"only part of the top {self.k} of {len(low)} runs is judged ({shares}): their "
                "numbers rest on unjudged documents"
            ]
        return []


def unjudged_report(
    qrels: Qrels,
    runs: Sequence[Run],
    measures: Sequence[Measure],
    settings: EvalSettings | None = None,
    test: TestSettings | None = None,
    options: UnjudgedSettings | None = None,
    *,
    groups: QueryGroups | None = None,
    weights: Mapping[str, float] | None = None,
) -> UnjudgedReport:
    """The report over runs ranked one at a time (each table is dropped before the next is
    built)."""
    settings = settings or EvalSettings()
    tables = (
        (run.name, rank(run, qrels, ties=settings.ties.ranked_as, cut=settings.cut)) for run in runs
    )
    return report_from_tables(
        tables, measures, settings, test, options, groups=groups, weights=weights
    )


def report_from_tables(
    tables,
    measures: Sequence[Measure],
    settings: EvalSettings | None = None,
    test: TestSettings | None = None,
    options: UnjudgedSettings | None = None,
    *,
    groups: QueryGroups | None = None,
    weights: Mapping[str, float] | None = None,
) -> UnjudgedReport:
    """The report from (name, ranking table) pairs under the settings' tie policy; the fill grade
    defaults to the relevance threshold."""
    settings = (settings or EvalSettings()).replace(unjudged="nonrelevant")
    options = options or UnjudgedSettings()
    k = options.k
    grade = settings.rel if options.grade is None else options.grade
    filled_settings = settings.replace(unjudged=f"relevant:{grade}")
    parts: dict[str, list[Evaluation]] = {end: [] for end in ENDS}
    judged_rows, holes = [], []
    pairs = tables.items() if isinstance(tables, Mapping) else tables
    for name, table in pairs:
        one = {name: table}
        parts["nonrelevant"].append(
            evaluate_tables(one, [*measures, _judged(k)], settings, groups=groups, weights=weights)
        )
        parts["filled"].append(
            evaluate_tables(one, measures, filled_settings, groups=groups, weights=weights)
        )
        judged_rows.append((name, judged_share(table, k)))
        holes.append(unjudged_holes(name, table, k))
        del table, one
    evaluations = {end: combine(found) for end, found in parts.items()}
    judged_means = evaluations["nonrelevant"].means()[str(_judged(k))]
    judged = pd.DataFrame(
        {f"Judged@{k}": judged_means, "share judged": dict(judged_rows)}
    ).rename_axis("run")
    documents = unjudged_documents(holes)
    sections = {}
    for measure in map(str, measures):
        sections[measure] = section(evaluations, measure, END_VARIANTS, test)
    return UnjudgedReport(
        judged,
        sections,
        documents,
        queries_most_unjudged(documents),
        evaluations,
        settings,
        grade,
        k,
        options,
    )


def _judged(k: int) -> Measure:
    return make("Judged", k)
