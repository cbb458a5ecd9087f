"""The corrected numbers as text (``--correct-with``): each run's means with their intervals, what
the LLM gets wrong per run, and the corrected paired deltas; ``tsv`` and ``json`` at full
precision, the table with the correction said below it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rankviz.cli.tables import aligned, footer, frame_table, frame_tsv, number
from rankviz.settings.eval_settings import ALL
from rankviz.settings.numbers import to_json

if TYPE_CHECKING:
    import pandas as pd

    from rankviz.study import CorrectedDeltas, CorrectedMeans


def _interval(value: float, low: float, high: float) -> str:
    return f"{number(value)} [{number(low, 2)}, {number(high, 2)}]"


def means(
    report: CorrectedMeans, fmt: str, *, conventions: list[str], margin: float | None = None
) -> str:
    """``table``: each run's corrected mean of each measure with its interval, then the mean
    correction (people minus the LLM) with its interval, and with ``margin`` the human-judged
    queries each interval would need to come down to it; ``tsv``/``json``: one record per run and
    measure (``qid`` = all, as evaluate's means)."""
    frame = report.to_frame(margin=margin)
    frame.insert(2, "qid", ALL)
    if fmt == "json":
        return to_json(frame.to_dict("records"))
    if fmt == "tsv":
        return frame_tsv(frame, index=False)
    corrected = _grid(frame, "run", ("value", "ci_low", "ci_high"))
    wrong = _grid(frame, "people - LLM", ("correction", "correction_low", "correction_high"))
    if margin is not None:
        needed = frame.pivot(index="run", columns="measure", values="queries_for_moe").reindex(
            index=list(dict.fromkeys(frame["run"])), columns=list(dict.fromkeys(frame["measure"]))
        )
        wrong += "\n" + aligned(
            [f"queries for +-{margin:g}", *map(str, needed.columns)],
            [[run, *(_count(v) for v in row)] for run, row in needed.iterrows()],
            labels=1,
        )
    notes = [
        "value [interval]: the LLM's mean corrected by the human-judged queries (PPI++)",
        "people - LLM: the mean difference on the human-judged queries; above 0, the LLM is "
        "stricter than people on that run, below 0 more lenient",
        *report.correction.sentences(report.confidence),
        *conventions,
    ]
    return corrected + "\n" + wrong + footer(notes)


def _count(value: float) -> str:
    """A number of queries, or why there is none."""
    if value == float("inf"):
        return "never (the LLM's part alone is wider)"
    return "n/a" if value != value else f"{int(value):,}"


def _grid(frame: pd.DataFrame, title: str, columns: tuple[str, str, str]) -> str:
    """Runs down, measures across, each cell ``value [low, high]`` of ``columns``."""
    measures = list(dict.fromkeys(frame["measure"]))
    cells = {
        (run, measure): _interval(*(float(v) for v in values))
        for run, measure, *values in frame[["run", "measure", *columns]].itertuples(index=False)
    }
    runs = list(dict.fromkeys(frame["run"]))
    return aligned(
        [title, *measures], [[run, *(cells[run, m] for m in measures)] for run in runs], labels=1
    )


def deltas(report: CorrectedDeltas, fmt: str, *, conventions: list[str]) -> str:
    """Each run's corrected paired delta against the baseline, per measure: delta, interval,
    p-value and the adjusted p-value."""
    frame = report.to_frame()
    if fmt == "json":
        return to_json(report.to_dict())
    if fmt == "tsv":
        return frame_tsv(frame, index=False)
    notes = [
        f"delta: run - {report.baseline}, the mean per-query difference people would give, "
        f"estimated from the LLM's corrected by the human-judged queries (PPI++, two-sided "
        f"p-values, {report.method} correction over the runs of one measure; the verdicts at "
        f"alpha = {report.alpha:g} from the adjusted, corrected p-values)",
        *report.correction.sentences(report.confidence),
        *conventions,
    ]
    return frame_table(frame.drop(columns=["baseline"]), index=False) + footer(notes)
