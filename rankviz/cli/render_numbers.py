"""Evaluations and comparisons as text: ``table`` (aligned, for people, with the conventions in
force below it), ``tsv`` (every value at full double precision) and ``json`` (a list or object of
records; NaN as null); and the measure catalogue. An empty cell in a table is never unexplained:
``n/a`` marks it and a footnote says why (the reports: :mod:`rankviz.cli.render_reports`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rankviz.cli.tables import aligned, footer, frame_table, frame_tsv, full, na_notes, number
from rankviz.settings.eval_settings import ALL
from rankviz.settings.numbers import to_json

if TYPE_CHECKING:
    import pandas as pd

    from rankviz.study import Comparison, Evaluation, Standings


# --- evaluate ------------------------------------------------------------------------------------


def evaluation(result: Evaluation, fmt: str, *, per_query: bool = False) -> str:
    """The tidy records (tsv / json) or the runs x measures table (per query too, when asked)."""
    records = result.to_dict(per_query=per_query)
    if fmt == "json":
        return to_json(records)
    if fmt == "tsv":
        keys = list(records[-1]) if records else ["run", "measure", "qid", "value"]
        return (
            "\n".join(
                ["\t".join(keys), *("\t".join(full(r.get(k)) for k in keys) for r in records)]
            )
            + "\n"
        )
    measures = [str(m) for m in result.measures]
    grouped = "group" in (records[-1] if records else {})
    # ties=random: each value's std over the trials
    spread = "std" in (records[-1] if records else {})
    columns = [(m, key) for m in measures for key in (("value", "std") if spread else ("value",))]
    heads = [m if key == "value" else f"{m} std" for m, key in columns]
    means = {(r["run"], r.get("group", ALL), r["measure"]): r for r in records if r["qid"] == ALL}
    shown: list[tuple[str, str]] = list(
        dict.fromkeys((r["run"], r.get("group", ALL)) for r in records if r["qid"] == ALL)
    )
    header = ["run", *(["group"] if grouped else []), *heads]
    rows = [
        [
            run,
            *([group] if grouped else []),
            *(number(means.get((run, group, m), {}).get(key)) for m, key in columns),
        ]
        for run, group in shown
    ]
    text = aligned(header, rows, labels=2 if grouped else 1)
    if per_query:
        values = {(r["run"], r["qid"], r["measure"]): r for r in records if r["qid"] != ALL}
        pairs = list(dict.fromkeys((r["run"], r["qid"]) for r in records if r["qid"] != ALL))
        per_query_rows = [
            [run, qid, *(number(values.get((run, qid, m), {}).get(key)) for m, key in columns)]
            for run, qid in pairs
        ]
        text = aligned(["run", "qid", *heads], per_query_rows, labels=2) + "\n" + text
    return text + footer(result.conventions())


def protocol(values: pd.DataFrame, fmt: str) -> str:
    if fmt == "json":
        return to_json(values.to_dict(orient="index"))
    if fmt == "tsv":
        return frame_tsv(values.rename_axis("run"))
    return frame_table(values.rename_axis("run"))


# --- compare -------------------------------------------------------------------------------------

COMPARE_NOTES = {
    "statistic": "the test has no statistic here (Wilcoxon: every difference is zero)",
    "effect_size": "every per-query difference is the same: no spread to standardise by",
    "queries_needed": "every per-query difference is the same: any number of queries detects it",
    "ci_low": "fewer than two queries",
    "p_value": "fewer than two queries (both runs answer): no paired test",
}


def comparison(result: Comparison, fmt: str, *, conventions: list[str]) -> str:
    table = result.table
    if fmt == "json":
        return to_json(result.to_dict())
    if fmt == "tsv":
        return frame_tsv(table, index=False)
    shown = table.assign(verdict=result.verdicts()).drop(columns=["test"])
    notes = [
        result.describe(),
        "delta, statistic and interval are run - baseline",
        *na_notes(shown, COMPARE_NOTES),
        *conventions,
    ]
    return frame_table(shown, index=False) + footer(notes)


def with_standings(text: str, records: object, key: str, standings: Standings, fmt: str) -> str:
    """The output ``text`` (of ``records``) followed by the standings: table and tsv after a blank
    line; json one object ``{key: records, "standings": {...}}``."""
    if fmt == "json":
        return to_json({key: records, "standings": standings.to_dict()})
    frame = standings.to_frames()["standings"]
    if fmt == "tsv":
        return text + "\n" + frame_tsv(frame, index=False)
    shown = frame.assign(
        interval=[
            f"{low}-{high}" for low, high in zip(frame["rank_low"], frame["rank_high"], strict=True)
        ]
    )
    shown = shown[["measure", "run", "mean", "rank", "interval", "group", "queries"]]
    return text + "\n" + frame_table(shown, index=False) + footer([standings.describe()])


# --- measures -------------------------------------------------------------------------------------


def measures_table() -> str:
    from rankviz.measures import describe_families

    rows = describe_families()
    return aligned(
        ["measure", "definition", "convention", "parameters"], [list(r) for r in rows], labels=4
    )
