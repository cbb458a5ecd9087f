"""Overview: every selected run against every chosen measure, with confidence intervals."""

import pandas as pd
import streamlit as st

import app_support as support
from rankviz import compare, groups, plots, significance

ctx = support.context()
st.header("Overview")
summaries = {
    str(m): compare.summarize(ctx.matrix(m), how=ctx.aggregate, groups=ctx.group_of(ctx.matrix(m).index), weights=ctx.weights)
    for m in ctx.measures
}
means = pd.DataFrame({name: s["mean"] for name, s in summaries.items()})
best = compare.best_per_measure(means)
marks = None
if len(ctx.selected) > 1:
    settings = support.significance_settings(ctx)
    verdicts = {}
    for measure in ctx.measures:
        table = support.significance_table(
            ctx.matrix(measure),
            str(measure),
            settings.baseline,
            settings.test,
            settings.correction,
            "baseline",
            settings.resamples,
            settings.seed,
            settings.zero_method,
        )
        verdicts[str(measure)] = pd.Series(significance.verdicts(table, alpha=settings.alpha), index=table["run"])
    marks = pd.DataFrame(verdicts)
styled = means.style.format("{:.4f}").apply(
    lambda col: ["font-weight: bold; background-color: #d8f3dc" if r in best[col.name] else "" for r in col.index]
)
for (run, measure), verdict in {} if marks is None else marks.stack().items():
    if verdict != "n.s.":
        styled = styled.format("{:.4f} " + ("▲" if verdict == "better" else "▼"), subset=pd.IndexSlice[[run], [measure]])
st.dataframe(styled, width="stretch")
st.caption(
    "Best value per measure highlighted. "
    + f"{next(iter(summaries.values()))['queries'].iloc[0]} queries in each mean"
    + (
        "."
        if ctx.aggregate == "query"
        else f"; mean over {'groups' if ctx.aggregate == 'macro' else 'weighted queries'}, no interval."
    )
)
if marks is not None:
    st.dataframe(
        marks.style.map(lambda v: f"color: {plots.VERDICT_COLOURS[v]}; font-weight: bold" if v != "n.s." else ""), width="stretch"
    )
    st.caption(f"▲ / ▼: significantly better / worse than the baseline: {settings.describe()} (set on the Significance page).")
figure = plots.means_with_ci(summaries)
st.plotly_chart(figure, key="overview_means")
left, right = st.columns(2)
left.download_button("Download table (CSV)", means.to_csv().encode(), file_name="rankviz_overview.csv", mime="text/csv")
right.download_button(
    "Download table (LaTeX)", compare.latex(means, best=best).encode(), file_name="rankviz_overview.tex", mime="text/x-tex"
)
if ctx.group_by is not None:
    st.subheader(f"By {ctx.group_by}")
    measure_names = [str(m) for m in ctx.measures]
    group_measure = support.url_selectbox(ctx, st, "Measure per group", measure_names, "group_measure", "overview")
    ctx.url.write(group_measure=group_measure)
    values = ctx.matrix(ctx.measures[measure_names.index(group_measure)])
    per_group = groups.group_means(values, ctx.group_of(values.index))
    st.dataframe(per_group.style.format({c: "{:.4f}" for c in per_group.columns if c != "queries"}), width="stretch")
    st.plotly_chart(plots.group_bars(per_group, group_measure), key="group_bars")
st.subheader("Conventions in force")
for line in ctx.conventions():
    st.markdown(f"- {line}")
