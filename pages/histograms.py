"""Rank histograms: first relevant rank, all relevant ranks by grade, cumulative Hits@K."""

import pandas as pd
import streamlit as st

from rankviz import export, plots
from rankviz.analyses import deltas
from rankviz.app import options as app_options
from rankviz.app.frame import open_page
from rankviz.app.widgets import url_option

ctx = open_page("histograms")
st.header("Rank histograms")
tables = ctx.tables()
rel = ctx.settings.rel
depth = max(int(t.pos.max()) + 1 if t.n_rows else 1 for t in tables.values())
left, right = st.columns(2)
log_x = url_option(ctx.url, left, app_options.LOG_BINS, "histograms")
facet = url_option(ctx.url, right, app_options.FACET, "histograms")
ctx.url.write(log=None if log_x else "0", facet="1" if facet else None)
first = {name: deltas.first_relevant_rank(t, rel) for name, t in tables.items()}
colours = ctx.colours
st.plotly_chart(plots.first_relevant_histogram(first, depth, log_x=log_x, facet=facet, colours=colours), key="first_hist")
ranks = {n: deltas.relevant_ranks(t, rel) for n, t in tables.items()}
st.plotly_chart(plots.relevant_rank_histogram(ranks, depth, log_x=log_x, facet=facet, colours=colours), key="all_hist")
curves = {n: deltas.hits_curve(t, rel, depth) for n, t in tables.items()}
st.plotly_chart(plots.hits_curves(curves, log_x=log_x, facet=facet, colours=colours), key="hits_curve")
st.download_button(
    "Download first relevant ranks (CSV)",
    export.csv(pd.DataFrame(first)),
    file_name="rankviz_first_relevant_rank.csv",
    mime="text/csv",
)
st.caption(
    f"Relevant: grade >= {rel}. Deepest ranking: {depth} documents. Bins grow with the rank (or, with the steps off, "
    "are of equal width); the Hits@K axis is logarithmic with them. Each figure's toolbar saves it as PNG."
)
