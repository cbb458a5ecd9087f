"""Rank histograms: first relevant rank, all relevant ranks by grade, cumulative Hits@K."""

import pandas as pd
import streamlit as st

from rankviz import export, plots
from rankviz.analyses import deltas
from rankviz.app.frame import open_page

ctx = open_page("histograms")
st.header("Rank histograms")
tables = ctx.tables()
rel = ctx.settings.rel
depth = max(int(t.pos.max()) + 1 if t.n_rows else 1 for t in tables.values())
left, right = st.columns(2)
log_x = left.toggle("Logarithmic rank axis", value=False)
facet = right.toggle("One panel per run", value=False)
first = {name: deltas.first_relevant_rank(t, rel) for name, t in tables.items()}
st.plotly_chart(plots.first_relevant_histogram(first, depth, log_x=log_x, facet=facet), key="first_hist")
st.plotly_chart(
    plots.relevant_rank_histogram({n: deltas.relevant_ranks(t, rel) for n, t in tables.items()}, depth, log_x=log_x, facet=facet),
    key="all_hist",
)
st.plotly_chart(
    plots.hits_curves({n: deltas.hits_curve(t, rel, depth) for n, t in tables.items()}, log_x=log_x, facet=facet),
    key="hits_curve",
)
st.download_button(
    "Download first relevant ranks (CSV)",
    export.csv(pd.DataFrame(first)),
    file_name="rankviz_first_relevant_rank.csv",
    mime="text/csv",
)
st.caption(f"Relevant: grade >= {rel}. Deepest ranking: {depth} documents. Each figure's toolbar saves it as PNG.")
