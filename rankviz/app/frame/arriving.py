"""The selected runs' passes, which every page starts from, taken with the runs shown as they
arrive: a progress bar counts them, and each run's means appear in a table as soon as its pass is
done, so the first numbers are on screen while the other runs are still read."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from rankviz.app.frame import pass_cache
from rankviz.app.frame.context import Context
from rankviz.study import FROM_PASSES
from rankviz.study.run_pass import RunPass


def take_passes(ctx: Context) -> None:
    """Every selected run's pass (a few at a time), shown as it finishes; the bar and the table of
    the runs so far are gone when the page draws its own."""
    if not pass_cache.passing(ctx):
        return
    bar = None
    table = None
    means: dict[str, pd.Series] = {}

    def advance(done: int, total: int) -> None:
        nonlocal bar
        bar = bar or st.progress(0.0)
        bar.progress(done / total, text=f"Reading and evaluating the runs: {done} of {total} done…")

    def arrived(name: str, found: RunPass) -> None:
        nonlocal table
        means[name] = ctx.study([name]).ask(FROM_PASSES, [(name, found)]).means().iloc[0]
        table = table or st.empty()
        show(table, pd.DataFrame(means).T.rename_axis("run"))

    try:
        pass_cache.passes(ctx, progress=advance, arrived=arrived)
    finally:
        for shown in (bar, table):
            if shown is not None:
                shown.empty()


def show(slot, means: pd.DataFrame) -> None:
    """The table of the runs whose means have arrived so far."""
    slot.dataframe(means.style.format("{:.4f}"), width="stretch")
