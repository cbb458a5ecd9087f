"""Query features: on what kind of query a run wins. The run's per-query delta against the baseline
on one measure, against each feature of the queries (one chart each, a click opens the query in
the Per-query deltas page), and its mean per category of each query group."""

import functools

import streamlit as st

from rankviz import plots
from rankviz.app.frame.page_frame import open_page
from rankviz.app.widgets.option_widgets import url_selectbox
from rankviz.app.widgets.text import md, message
from rankviz.plots import export
from rankviz.settings.numbers import p_text
from rankviz.study import FEATURE_REPORT

ctx = open_page("features")
st.header("Query features")
names = ctx.selected
if len(names) < 2:
    st.info("Choose two or more runs in the sidebar: the page explains one run's delta.")
    st.stop()
c1, c2, c3 = st.columns(3)
baseline = url_selectbox(ctx, c1, "Baseline", names, "baseline", "features")
run = url_selectbox(ctx, c2, "Run", [n for n in names if n != baseline], "run", "features")
measure_name = url_selectbox(ctx, c3, "Measure", ctx.measure_names, "measure", "features")
ctx.url.write(baseline=baseline, run=run, measure=measure_name)
report = ctx.ask(FEATURE_REPORT, ctx.measure(measure_name), run, baseline, k=ctx.k)
frames = report.to_frames()
st.dataframe(
    frames["correlations"].style.format(
        {"spearman_rho": "{:+.3f}", "p_value": p_text, "slope": "{:+.4g}"}
    ),
    hide_index=True,
    width="stretch",
    column_config={"spearman_rho": "Spearman's ρ", "p_value": "p"},
)
st.caption(md(report.describe()) + ". " + " ".join(md(line) + "." for line in report.left_out))
for feature in report.numeric:
    st.subheader(feature.name)
    figure = plots.feature_scatter(
        report.features[feature.name], report.values, feature.band, ctx.queries, report.value
    )
    picked = st.plotly_chart(
        figure, key=f"feature:{feature.name}", on_select="rerun", selection_mode="points"
    )
    points = picked.selection.points if picked else []
    if points:
        query = str(points[0]["customdata"][0])
        link = ctx.url.link("deltas", baseline=baseline, run=run, measure=measure_name, query=query)
        st.markdown(message("Query {} in the Per-query deltas page: ", query) + f"[open]({link})")
    left, right = st.columns(2)
    left.dataframe(feature.by_width, hide_index=True, width="stretch")
    right.dataframe(feature.by_frequency, hide_index=True, width="stretch")
    st.caption(
        f"Spearman's rho {feature.rho:+.3f} (p {p_text(feature.p_value)}, {feature.queries} "
        "queries). Buckets of equal width (left) and of equal frequency (right): the queries in "
        "each and the delta's mean."
    )
for name, means in report.categorical.items():
    st.subheader(f"By {md(name)}")
    st.dataframe(means.style.format({"mean": "{:+.4f}"}), hide_index=True, width="stretch")
st.download_button(
    "Download the correlations (CSV)",
    functools.partial(export.csv, frames["correlations"]),
    file_name=ctx.export_name("rankviz_features", "csv"),
    mime="text/csv",
)
