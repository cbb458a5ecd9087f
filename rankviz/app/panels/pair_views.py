"""The Deltas page's tables and charts of a pair of runs: the discussion queue's table (a row
click opens its query) and every query's delta, as bars (a click opens it too) and as a scatter."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from rankviz import plots
from rankviz.app.frame import answers
from rankviz.app.frame.context import Context
from rankviz.app.widgets.text import md, message
from rankviz.plots import export
from rankviz.study import Measure, PairDeltas


def pair_summary(ctx: Context, pair: PairDeltas, measure: Measure) -> None:
    """Wins, ties and losses of the run against the baseline, the mean delta, both means and (with
    rankings) their chance levels."""
    baseline, run, label, frame = pair.baseline, pair.run, str(measure), pair.frame
    evaluation = ctx.evaluation([baseline, run])
    chance = ctx.chance([baseline, run]).means().get(label) if ctx.ranked else None
    wins, ties, losses = pair.wins_ties_losses()
    m1, m2, m3, m4 = st.columns(4)
    m1.metric("Wins", wins)
    m2.metric("Ties", ties)
    m3.metric("Losses", losses)
    m4.metric(
        f"Mean delta {md(label)}",
        f"{evaluation.aggregation.mean(frame['delta'].to_numpy(), frame.index):+.4f}",
    )
    means = {
        name: f"{evaluation.mean(measure, name):.4f}"
        + ("" if chance is None else f" (chance level {chance[name]:.4f})")
        for name in (baseline, run)
    }
    st.caption(
        message("Mean {}: {} {}, {} {}. ", label, baseline, means[baseline], run, means[run])
        + ("" if chance is None else "The chance level is what a random order of the run's own ")
        + ("" if chance is None else "retrieved documents would get, exactly.")
    )


def queue_selection(queue_table: pd.DataFrame, baseline: str, run: str, label: str) -> list[int]:
    """The queue as a table, one row selectable; the rows selected."""
    selection = st.dataframe(
        queue_table[["why", "query", "baseline", "run", "delta", "rbo", "check"]].style.format(
            {"baseline": "{:.4f}", "run": "{:.4f}", "delta": "{:+.4f}", "rbo": "{:.3f}"},
            na_rep="n/a",
        ),
        width="stretch",
        on_select="rerun",
        selection_mode="single-row",
        key=f"queue:{baseline}:{run}:{label}",
        column_config={
            "baseline": st.column_config.NumberColumn(baseline),
            "run": st.column_config.NumberColumn(run),
            "rbo": st.column_config.NumberColumn(
                "RBO", help="rank-biased overlap of the two top 100s (1: the same ranking)"
            ),
            "check": st.column_config.TextColumn(
                "check", help="what the checks found about this query (the Overview lists them)"
            ),
        },
    )
    st.caption(
        "The largest losses and gains of the run against the baseline, then the queries whose two "
        "rankings share least "
        "(rank-biased overlap, p = 0.9, Webber et al. 2010), even where the measure did not move. "
        "Click a row, or step through the queue with Previous and Next. The order is fixed when "
        "the queue opens, so judging never moves your place; its values follow the judgments."
    )
    return list(selection.selection.rows) if selection else []


def every_query(ctx: Context, pair: PairDeltas, overlap: pd.Series, label: str) -> None:
    """Every query's delta: bars (a click opens the query above), per group, and a scatter."""
    frame, baseline, run = pair.frame, pair.baseline, pair.run
    st.subheader("Every query")
    groups = ctx.study().group_of(frame.index)
    bars = answers.figure(
        ctx,
        [baseline, run],
        ("delta bars", label, baseline, run),
        lambda: plots.delta_bars(frame, ctx.queries, label, baseline, run, groups=groups),
    )
    st.plotly_chart(bars, key="delta_bars", on_select="rerun", selection_mode="points")
    st.caption("Click a bar to open that query in the query view above.")
    if groups is not None:
        st.markdown(f"**Wins, ties and losses per {md(ctx.settings.group_by)}**")
        st.dataframe(
            pair.by_group(groups).style.format({"mean_delta": "{:+.4f}"}),
            width="stretch",
        )
    scatter = answers.figure(
        ctx,
        [baseline, run],
        ("baseline scatter", label, baseline, run),
        lambda: plots.baseline_scatter(frame, ctx.queries, label, baseline, run),
    )
    st.plotly_chart(scatter, key="delta_scatter")
    st.download_button(
        "Download per-query values (CSV)",
        lambda: export.csv(frame.join(overlap)),
        file_name=ctx.export_name(f"rankviz_deltas_{label}", "csv"),
        mime="text/csv",
    )
