"""The means of an LLM's judgments corrected by people's (``correct_with=``): each run's PPI++
mean with its interval, and what the LLM gets wrong on each run, as the command line's
``evaluate --correct-with`` prints them (:mod:`rankviz.study.corrected_questions`)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from rankviz.app.frame.context import Context
from rankviz.app.widgets.text import md
from rankviz.errors import RankvizError
from rankviz.study import CORRECTED_MEANS


def _grid(frame: pd.DataFrame, columns: tuple[str, str, str]) -> pd.DataFrame:
    """Runs down, measures across, each cell ``value [low, high]``."""
    cells = frame.assign(
        cell=[
            f"{v:.4f} [{lo:.2f}, {hi:.2f}]"
            for v, lo, hi in frame[list(columns)].itertuples(index=False)
        ]
    )
    grid = cells.pivot(index="run", columns="measure", values="cell")
    return grid.reindex(
        index=list(dict.fromkeys(frame["run"])), columns=list(dict.fromkeys(frame["measure"]))
    )


def show(ctx: Context) -> None:
    """The corrected means and the correction per run, with what corrects them and how."""
    st.subheader("Corrected by people's judgments")
    try:
        report = ctx.ask(CORRECTED_MEANS)
    except RankvizError as exc:  # grouped means, or too few human-judged queries
        st.warning(md(exc))
        return
    frame = report.to_frame()
    st.dataframe(_grid(frame, ("value", "ci_low", "ci_high")), width="stretch")
    st.caption(
        "Each mean: the judgments in force (an LLM's) corrected by the queries people judged "
        "(PPI++), with its interval. "
        + " ".join(
            md(line[0].upper() + line[1:] + ".")
            for line in report.correction.sentences(report.confidence)
        )
    )
    st.dataframe(
        _grid(frame, ("correction", "correction_low", "correction_high")).rename_axis(
            index="people - LLM"
        ),
        width="stretch",
    )
    st.caption(
        "People's value minus the LLM's on the human-judged queries: below 0, the LLM is more "
        "lenient than people on that run (a run tuned on the same model often gains most)."
    )
