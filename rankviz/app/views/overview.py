"""Overview: every selected run against every chosen measure, with confidence intervals."""

import functools

import pandas as pd
import streamlit as st

from rankviz import plots
from rankviz.app.frame import answers
from rankviz.app.frame.page_frame import open_page
from rankviz.app.meeting import meeting_summary
from rankviz.app.panels import corrected_panel
from rankviz.app.widgets import number_tables
from rankviz.app.widgets import page_options as app_options
from rankviz.app.widgets.option_widgets import url_option, url_selectbox
from rankviz.app.widgets.text import md, message, said
from rankviz.errors import RankvizError
from rankviz.plots import export
from rankviz.study import BEST_PER_MEASURE, PRECISION_RECALL, RUN_HEADERS, STANDINGS

#: The best value of each measure: bold on a translucent blue, over the theme's own text colour
#: (light and dark).
BEST = "font-weight: bold; background-color: rgba(68, 119, 170, 0.35)"
SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")

ctx = open_page("overview")
st.header("Overview")
evaluation = ctx.evaluation()
summaries = {str(m): evaluation.summary(m) for m in ctx.measures}
means = evaluation.means()
best = ctx.study().ask(BEST_PER_MEASURE, evaluation=evaluation)
tests = ctx.test_settings()
beats = answers.beats(ctx, tests) if len(ctx.selected) > 1 else None
styled = means.style.format("{:.4f}").apply(
    lambda col: [BEST if r in best[col.name] else "" for r in col.index]
)
# each run's number; beside a mean, the numbers of the runs it is significantly better than
number = {run: i + 1 for i, run in enumerate(means.index)}
marked = pd.DataFrame() if beats is None else beats
for measure in marked.columns:
    suffixes: dict[str, list[str]] = {}  # one format per suffix (each costs a Styler pass)
    for run in means.index:
        beaten = sorted(marked[measure].get(run) or [], key=number.__getitem__)
        if beaten:
            suffix = " ".join(str(number[r]).translate(SUPERSCRIPT) for r in beaten)
            suffixes.setdefault(suffix, []).append(run)
    for suffix, runs in suffixes.items():
        styled = styled.format("{:.4f} " + suffix, subset=pd.IndexSlice[runs, [measure]])
st.dataframe(styled, width="stretch")
queries = next(iter(summaries.values()))["queries"].iloc[0]
st.caption(
    f"Best value per measure highlighted. {queries} queries in each mean"
    + (
        "."
        if ctx.settings.aggregate == "query"
        else f"; {md(evaluation.aggregation.describe(ctx.settings.group_by))}, no interval."
    )
)
if beats is not None:
    st.caption(
        message(
            "Beside a mean: the runs it is significantly better than on that measure ({}), every "
            "pair of runs tested and corrected together: {} (set on the Significance page).",
            "; ".join(f"{number[run]} {run}" for run in means.index),
            tests.replace(pairs="all").describe(),
        )
    )
if ctx.study().correction is not None:
    corrected_panel.show(ctx)
if len(ctx.selected) > 1 and ctx.settings.aggregate == "query":
    st.subheader("Ranks and tie groups")
    few = queries <= app_options.RANKS_UP_TO
    left, right = st.columns(2)
    rank_measure = url_selectbox(  # by default the measure the other pages are showing
        ctx,
        left,
        "Ranks by",
        ctx.measure_names,
        "rank_measure",
        "overview",
        default=ctx.url.raw("measure"),
    )
    drawn = url_option(ctx.url, right, app_options.RANKS, "overview", default=few, context=(few,))
    ctx.url.write(rank_measure=rank_measure, ranks=None if drawn == few else int(drawn))
    try:
        standings = (
            ctx.counted(tests.n_resamples, "Tukey HSD resamples (at most)").ask(
                STANDINGS, tests, measures=[ctx.measure(rank_measure)]
            )
            if drawn
            else None
        )
    except RankvizError as exc:  # fewer than two queries every run answers
        standings = None
        st.caption(message("No rank intervals: {}.", said(exc)))
    if standings is not None:
        table = standings.to_frames()["standings"].set_index("run")
        table["interval"] = [
            f"{low}–{high}" for low, high in zip(table["rank_low"], table["rank_high"], strict=True)
        ]
        number_tables.numbers(table[["mean", "rank", "interval", "group"]], formats={"rank": "%d"})
        st.caption(
            f"Runs by mean. {md(standings.describe())}. Test settings on the Significance page. "
            "The interval says where a run would rank on other queries like these; the group says "
            "which runs it cannot be told from: a run ranked 1–1 may still share a group with the "
            "next, and 'is it better than that run?' is the group's (or the superscripts') "
            "question, not the interval's."
        )
    elif not drawn:
        why = (
            ""
            if few
            else (
                f": above {app_options.RANKS_UP_TO:,} queries, drawing the resamples "
                "takes seconds on every change"
            )
        )
        st.caption(f"Off{why}. Switch it on to draw the intervals and groups.")
thin = answers.thinly_judged(ctx)
if thin:
    shares = ", ".join(f"{md(name)} {share:.0%}" for name, share in thin.items())
    st.warning(
        f"The qrels judge little of some runs' top {ctx.k} ({shares}): unjudged documents "
        "count as not relevant, so "
        "these means may understate them. The Unjudged documents page shows by how much."
    )


def chance_and_curves() -> None:
    """The chance level under the means and the precision-recall curves: what the runs' rankings
    give."""
    chance = ctx.chance().means()
    st.plotly_chart(plots.means_with_ci(summaries, ctx.colours, chance), key="overview_means")
    st.markdown("**Chance level**")
    number_tables.numbers(chance)
    st.caption(
        "What a random order of each run's own retrieved documents would get (exactly: every order "
        "of each query's documents equally likely). A mean near it says the run ranks no better "
        "than guessing among what it found; the grey marks on the bars show it."
        + "".join(
            f" {md(m)} has none: no closed form over tied orders."
            for m in ctx.measure_names
            if m not in chance.columns
        )
    )
    st.subheader("Precision-recall")
    if url_option(ctx.url, st, app_options.PR_CURVE, "overview"):
        curves = ctx.ask(PRECISION_RECALL)
        st.plotly_chart(plots.precision_recall(curves.precision, ctx.colours), key="overview_pr")
        st.caption(f"Each run's {md(curves.describe())}: trec_eval's iprec_at_recall, averaged.")
    else:
        st.caption("Off: switch it on to draw each run's eleven-point interpolated curve.")


if ctx.ranked:
    chance_and_curves()
else:
    st.plotly_chart(plots.means_with_ci(summaries, ctx.colours), key="overview_means")
    st.caption("Per-query scores alone: no chance level, precision-recall curve or checks.")
left, right = st.columns(2)
left.download_button(
    "Download table (CSV)",
    functools.partial(export.csv, means),
    file_name=ctx.export_name("rankviz_overview", "csv"),
    mime="text/csv",
)
right.download_button(
    "Download table (LaTeX)",
    lambda: export.latex(means, best=best).encode(),
    file_name=ctx.export_name("rankviz_overview", "tex"),
    mime="text/x-tex",
)
if ctx.settings.group_by is not None:
    st.subheader(f"By {md(ctx.settings.group_by)}")
    group_measure = url_selectbox(
        ctx, st, "Measure per group", ctx.measure_names, "group_measure", "overview"
    )
    ctx.url.write(group_measure=group_measure)
    per_group = evaluation.group_means(ctx.measure(group_measure))
    st.dataframe(
        per_group.style.format({c: "{:.4f}" for c in per_group.columns if c != "queries"}),
        width="stretch",
    )
    st.plotly_chart(
        plots.group_bars(per_group, str(ctx.measure(group_measure)), ctx.colours), key="group_bars"
    )
meeting_summary.summary(ctx)
if ctx.ranked:
    st.subheader("Checks")
    checks = answers.check(ctx)
    if checks.findings:
        st.dataframe(checks.to_frames()["findings"], hide_index=True, width="stretch")
    st.caption(
        md(checks.summary()) + ". The mistakes that change what a number means while every "
        "number still computes (ids written another way, query sets and depths that differ, a "
        "top K that touches no judgment, ...): each with its code, severity, run, count, examples "
        "and what to do. `rankviz check` gives the same list and exits 0, 1 or 2."
    )
st.subheader("Conventions in force")
for line in ctx.conventions():
    st.markdown(f"- {md(line)}")
headers = ctx.ask(RUN_HEADERS)
if headers:
    st.subheader("What the run files say of themselves")
    for name, lines in headers.items():  # as text, never rendered
        with st.expander(message("{}: {} comment lines", name, len(lines))):
            st.code("\n".join(lines), language="yaml")
