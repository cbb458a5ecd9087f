"""The reports as text (ties, unjudged documents, metric choice, checks, summaries, agreement),
in the three formats of :mod:`rankviz.cli.render_numbers`: ``table``, ``tsv`` and ``json``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rankviz.cli.tables import footer, frame_table, frame_tsv, full, na_notes, number
from rankviz.settings.numbers import to_json

if TYPE_CHECKING:
    from rankviz.study import (
        AgreementReport,
        CheckReport,
        MetricReport,
        Summary,
        TieReport,
        UnjudgedReport,
        ValuesEvidence,
    )


# --- ties ----------------------------------------------------------------------------------------


def ties(report: TieReport, fmt: str) -> str:
    """Tie statistics per run, then per measure the policy interval, pair flips, verdicts and moving
    queries."""
    if fmt == "json":
        return to_json(report.to_dict())
    if fmt == "tsv":
        return frame_tsv(report.to_frames()["means"], index=False)
    limit = report.options.queries
    parts = ["Ties per run\n" + frame_table(report.statistics.rename_axis("run"), digits=3)]
    for measure, section in report.sections.items():
        parts.append(
            f"{measure}: mean under each tie policy\n"
            + frame_table(section.means.rename_axis("run"))
        )
        if len(section.flips):
            parts.append(
                f"{measure}: pairs of runs (delta = run - baseline, as compare)\n"
                + frame_table(section.flips, index=False)
            )
        if len(section.verdicts):
            parts.append(
                f"{measure}: verdict against the baseline under each tie policy\n"
                + frame_table(section.verdicts.rename_axis("run"))
            )
        for run in section.means.index:
            moving = section.queries(run, limit)
            if len(moving):
                parts.append(
                    f"{measure}: {run}: queries that move most with the tie order\n"
                    + frame_table(moving)
                )
            else:
                parts.append(
                    f"{measure}: {run}: no query moves with the tie order (no tied "
                    "documents where they count)"
                )
    return "\n\n".join(p.rstrip("\n") for p in parts) + "\n" + footer(report.settings.conventions())


# --- unjudged ------------------------------------------------------------------------------------


def unjudged(report: UnjudgedReport, fmt: str) -> str:
    """Judged@K per run; per measure the two ends, the pairs that can flip and the verdicts; the
    documents to judge."""
    if fmt == "json":
        return to_json(report.to_dict())
    if fmt == "tsv":
        return frame_tsv(report.to_frames()["means"], index=False)
    limit = report.options.queries
    documents = report.documents.head(limit * 10)
    parts = [
        f"Judged documents in each run's top {report.k}\n" + frame_table(report.judged, digits=3)
    ]
    ends = (
        "nonrelevant: unjudged documents not relevant (trec_eval); filled: the run's top K "
        f"ones judged {report.grade}"
    )
    for measure, section in report.sections.items():
        parts.append(
            f"{measure}: the two ends ({ends})\n" + frame_table(section.means.rename_axis("run"))
        )
        if len(section.flips):
            parts.append(
                f"{measure}: pairs of runs (delta = run - baseline)\n"
                + frame_table(section.flips, index=False)
            )
        if len(section.verdicts):
            parts.append(
                f"{measure}: verdict against the baseline at each end\n"
                + frame_table(section.verdicts.rename_axis("run"))
            )
    if len(report.queries):
        parts.append(
            f"Queries with the most unjudged documents in the top {report.k}\n"
            + frame_table(report.queries.head(limit))
        )
        parts.append(
            "Documents to judge first (most-shared first)\n"
            + frame_table(documents.head(limit * 4), index=False)
        )
    else:
        parts.append(f"Every document of every run's top {report.k} is judged.")
    return "\n\n".join(p.rstrip("\n") for p in parts) + "\n" + footer(report.settings.conventions())


# --- metrics-report ------------------------------------------------------------------------------

STABILITY_NOTES = {
    "threshold tau": "the measure has no relevance threshold, or the qrels have no grade above it",
    "gmax tau": "only ERR has gmax",
}


REPORT_TITLES = {
    "means": "Means",
    "kendall": "Kendall's tau between the measures' orderings of the runs",
    "tau_ap": "tau-AP between the measures' orderings of the runs",
    "discriminative_power": "Discriminative power",
    "stability": "Stability",
}


def metric_report(report: MetricReport | ValuesEvidence, fmt: str) -> str:
    """The metric-choice report as JSON, long TSV (section, row, column, value) or readable text
    (of per-query scores alone: the evidence their values give, said so)."""
    from rankviz.study import ValuesEvidence

    tables = report.to_frames()
    del tables["asl"]
    if fmt == "json":
        return to_json(report.to_dict())
    if fmt == "tsv":
        lines = ["section\trow\tcolumn\tvalue"]
        for name, frame in tables.items():
            for row, values in frame.iterrows():
                lines += [
                    f"{name}\t{row}\t{column}\t{full(value)}" for column, value in values.items()
                ]
        return "\n".join(lines) + "\n"
    if isinstance(report, ValuesEvidence):
        parts = [report.describe() + ".", *_evidence(tables)]
        return "\n\n".join(parts) + "\n" + footer([report.options.describe()])
    task = report.task
    parts = [
        "Task: "
        + ("one correct answer" if task.single_answer else "many relevant items")
        + (
            f"; users inspect the top {task.top_k}"
            if task.top_k
            else "; users read the whole ranking"
        )
        + "; relevance "
        + ("graded" if task.graded else "binary")
        + ("; users stop when satisfied" if task.stops_when_satisfied else "")
        + (f" ({task.source})" if getattr(task, "source", "") else ""),
    ]
    choice = report.choice(task)
    if choice is not None:  # one recommendation first, then every measure that fits
        parts.append(f"Recommended\n{choice.sentence()} Hides: {choice.recommendation.hides}.")
    parts.append(
        "Measures that fit\n"
        + "\n".join(f"- {r.measure}: {r.reason}. Hides: {r.hides}." for r in report.recommendations)
    )
    parts += _evidence(tables)
    if report.warnings.messages():
        parts.append(
            "Warnings from the collection\n"
            + "\n".join(f"- {m}" for m in report.warnings.messages())
        )
    return "\n\n".join(parts) + "\n" + footer([report.options.describe()])


def _evidence(tables: dict) -> list[str]:
    """Each table of the evidence on measures, titled, with what its n/a cells mean."""
    parts = []
    for name, frame in tables.items():
        text = f"{REPORT_TITLES[name]}\n" + frame_table(frame, digits=3).rstrip("\n")
        reasons = STABILITY_NOTES if name == "stability" else {}
        lines = na_notes(frame, reasons)
        if name in ("kendall", "tau_ap") and frame.isna().to_numpy().any():
            lines.append("n/a: a measure gives every run the same mean")
        parts.append(text + ("\n" + footer(lines).rstrip("\n") if lines else ""))
    return parts


# --- checks, summaries, agreement --------------------------------------------------------------


def checks(report: CheckReport, fmt: str, *, conventions: Sequence[str]) -> str:
    """The findings, worst first: one line each (table), the frame (tsv), or their list (json)."""
    if fmt == "json":
        return to_json(report.to_dict())
    if fmt == "tsv":
        return frame_tsv(report.to_frames()["findings"], index=False)
    lines = [finding.line() for finding in report.findings] or [
        "nothing found: no error, warning or note"
    ]
    return "\n".join(lines) + "\n" + footer([report.summary(), *conventions])


def summary(result: Summary, fmt: str) -> str:
    """Per collection, then pooled: tables with the method below them; tsv: both frames, a blank
    line between; json: ``{"collections": [...], "pooled": [...]}``."""
    frames = result.to_frames()
    if fmt == "json":
        return to_json(result.to_dict())
    if fmt == "tsv":
        return (
            frame_tsv(frames["collections"], index=False)
            + "\n"
            + frame_tsv(frames["pooled"], index=False)
        )
    shown = frames["collections"].drop(columns=["variance"])
    return (
        frame_table(shown, index=False)
        + "\n"
        + frame_table(frames["pooled"], index=False)
        + footer(result.describe())
    )


def agreement(report: AgreementReport, fmt: str, *, conventions: Sequence[str]) -> str:
    """What the two sources say in words, then the numbers: agreement, confusion, the queries that
    disagree most, the holes B fills, the orderings, the means and the verdicts that flip; tsv: each
    frame after a ``# name`` line; json: :meth:`AgreementReport.to_dict`."""
    if fmt == "json":
        return to_json(report.to_dict())
    frames = report.to_frames()
    shown = {
        name: frames[name]
        for name in (
            "summary",
            "confusion",
            "leniency",
            "queries",
            "holes",
            "rankings",
            "means",
            "flips",
        )
    }
    shown["queries"] = shown["queries"].head(10)
    indexed = ("confusion", "leniency")
    if fmt == "tsv":
        return "\n".join(
            f"# {name}\n" + frame_tsv(frame, index=name in indexed) for name, frame in shown.items()
        )
    import pandas as pd

    values = {
        key: value if isinstance(value, int) else number(value)
        for key, value in report.summary().items()
    }
    shown["summary"] = pd.DataFrame({"value": pd.Series(values, dtype=object)}).rename_axis(
        "on the pairs both judge"
    )
    a, b = report.name_a, report.name_b
    titles = {
        "summary": f"A = {a} ({report.kind_a or 'kind not said'}), B = {b} "
        f"({report.kind_b or 'kind not said'})",
        "confusion": "grades: A down, B across",
        "leniency": "for each grade of A, the share of each grade B gives",
        "queries": "the queries that disagree most",
        "holes": f"A's unjudged documents in each run's top {report.k}, and how many B judges",
        "rankings": "the runs ordered under A and under B",
        "means": "means under A, B, and A with its holes filled by B",
        "flips": "pairs of runs whose verdict changes",
    }
    parts = ["\n".join(f"- {line}" for line in report.verdicts())]
    for name, frame in shown.items():
        if len(frame):
            parts.append(
                f"{titles[name]}\n"
                + frame_table(frame, index=name in indexed or name == "summary").rstrip("\n")
            )
    notes = [
        f"relevant from grade {report.rel} (binary kappa, precision and recall of B against A)",
        *conventions,
    ]
    return "\n\n".join(parts) + "\n" + footer(notes)
