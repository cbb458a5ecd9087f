"""Rank histograms: first relevant rank, all relevant ranks by grade, cumulative Hits@K."""

import streamlit as st

from rankviz import plots
from rankviz.app.frame.page_frame import open_page
from rankviz.app.widgets import page_options as app_options
from rankviz.app.widgets.option_widgets import url_option
from rankviz.plots import export
from rankviz.study import RANK_REPORT

ctx = open_page("histograms")
st.header("Rank histograms")
report = ctx.study().ask(RANK_REPORT)
depth, rel = report.depth, report.rel
left, right = st.columns(2)
log_x = url_option(ctx.url, left, app_options.LOG_BINS, "histograms")
facet = url_option(ctx.url, right, app_options.FACET, "histograms")
ctx.url.write(log=None if log_x else "0", facet="1" if facet else None)
colours = ctx.colours
st.plotly_chart(
    plots.first_relevant_histogram(report.first, depth, log_x=log_x, facet=facet, colours=colours),
    key="first_hist",
)
st.plotly_chart(
    plots.relevant_rank_histogram(report.ranks, depth, log_x=log_x, facet=facet, colours=colours),
    key="all_hist",
)
st.plotly_chart(
    plots.hits_curves(report.hits, log_x=log_x, facet=facet, colours=colours), key="hits_curve"
)
st.download_button(
    "Download first relevant ranks (CSV)",
    lambda: export.csv(report.to_frames()["first_relevant_rank"]),
    file_name=ctx.export_name("rankviz_first_relevant_rank", "csv"),
    mime="text/csv",
)
st.caption(
    f"Relevant: grade >= {rel}. Deepest ranking: {depth} documents. Bins grow with the rank (or, "
    "with the steps off, are of equal width), and each bar is its bin's count over the ranks it "
    "spans (the count is in the hover), so wide bins are not drawn taller than they are; the "
    "Hits@K axis is logarithmic with them. Each figure's toolbar saves it as PNG."
)
