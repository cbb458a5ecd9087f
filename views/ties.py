"""Ties: how much of each run sits in groups of equal scores, and values under every tie policy."""

import pandas as pd
import streamlit as st

import app_support as support
from rankviz import compare, plots
from rankviz.ranking import TIE_POLICIES

ctx = support.context()
st.header("Ties")
stats = pd.DataFrame({name: compare.tie_statistics(t, ctx.k) for name, t in ctx.tables().items()}).T
st.dataframe(stats.style.format({c: "{:.1%}" for c in stats.columns if c.startswith("share")}), width="stretch")
measure_names = [str(m) for m in ctx.measures]
measure_name = st.selectbox(
    "Measure", measure_names, index=measure_names.index(ctx.url.choice("measure", measure_names, measure_names[0]))
)
measure = ctx.measures[measure_names.index(measure_name)]
values = pd.DataFrame({policy: ctx.matrix(measure, ties=policy).mean() for policy in TIE_POLICIES})
st.dataframe(values.style.format("{:.4f}"), width="stretch")
st.plotly_chart(plots.tie_policy_values(values, measure_name), key="tie_values")
st.download_button(
    "Download values per tie policy (CSV)", values.to_csv().encode(), file_name="rankviz_ties.csv", mime="text/csv"
)
st.caption(
    "trec_eval: score, then docid descending; run: the file's rank column; "
    "optimistic / pessimistic: relevant documents first / last among equal scores."
)
