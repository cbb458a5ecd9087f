"""Rank histograms: first relevant rank, all relevant ranks by grade, cumulative Hits@K."""

import streamlit as st

import app_support as support
from rankviz import compare, plots

ctx = support.context()
st.header("Rank histograms")
tables = ctx.tables()
depth = max(int(t.pos.max()) + 1 if t.n_rows else 1 for t in tables.values())
log_x = st.toggle("Logarithmic rank axis", value=False)
first = {name: compare.first_relevant_rank(t, ctx.rel) for name, t in tables.items()}
st.plotly_chart(plots.first_relevant_histogram(first, depth, log_x=log_x), key="first_hist")
st.plotly_chart(
    plots.relevant_rank_histogram({n: compare.relevant_ranks(t, ctx.rel) for n, t in tables.items()}, depth, log_x=log_x),
    key="all_hist",
)
st.plotly_chart(
    plots.hits_curves({n: compare.hits_curve(t, ctx.rel, depth) for n, t in tables.items()}, log_x=log_x), key="hits_curve"
)
st.caption(f"Relevant: grade >= {ctx.rel}. Deepest ranking: {depth} documents.")
