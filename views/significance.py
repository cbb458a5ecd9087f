"""Significance: which differences between runs can be trusted, and by how much."""

import streamlit as st

import app_support as support
from rankviz import plots, significance

ctx = support.context()
st.header("Significance")
names = ctx.selected
if len(names) < 2:
    st.info("Choose two or more runs in the sidebar to compare them.")
    st.stop()
settings = support.significance_settings(ctx)
measure_names = [str(m) for m in ctx.measures]
c1, c2, c3, c4 = st.columns(4)
measure_name = support.url_selectbox(ctx, c1, "Measure", measure_names, "measure", "significance")
baseline = c2.selectbox(
    "Baseline", names, index=names.index(settings.baseline), key=support.widget_key("significance.baseline", names)
)
test = c3.selectbox(
    "Test", significance.TESTS, index=significance.TESTS.index(settings.test), key=support.widget_key("significance.test")
)
correction = c4.selectbox(
    "Correction",
    significance.CORRECTIONS,
    index=significance.CORRECTIONS.index(settings.correction),
    disabled=test == "tukey",
    help="Tukey HSD is family-wise over all pairs already",
    key=support.widget_key("significance.correction"),
)
c5, c6, c7, c8 = st.columns(4)
alpha = c5.selectbox(
    "alpha", support.ALPHAS, index=support.ALPHAS.index(str(settings.alpha)), key=support.widget_key("significance.alpha")
)
zero_method = c8.selectbox(
    "Wilcoxon: zero differences",
    significance.ZERO_METHODS,
    index=significance.ZERO_METHODS.index(settings.zero_method),
    disabled=test != "wilcoxon",
    help="wilcox: drop them; pratt: rank them, then drop them; zsplit: split their ranks between the signs",
    key=support.widget_key("significance.zero_method"),
)
resampling = test in ("randomization", "bootstrap", "tukey")
resamples = c6.number_input(
    "Resamples",
    100,
    100_000,
    settings.resamples,
    step=1000,
    disabled=not resampling,
    key=support.widget_key("significance.resamples"),
)
seed = c7.number_input("Seed", 0, 2**31 - 1, settings.seed, disabled=not resampling, key=support.widget_key("significance.seed"))
ctx.url.write(
    measure=measure_name,
    baseline=baseline,
    test=test,
    correction=correction,
    alpha=alpha,
    resamples=resamples,
    seed=seed,
    zero_method=zero_method,
)
st.caption(significance.ASSUMPTIONS[test])

measure = ctx.measures[measure_names.index(measure_name)]
values = ctx.matrix(measure)
table = support.significance_table(values, measure_name, baseline, test, correction, "baseline", resamples, seed, zero_method)
table = table.assign(verdict=significance.verdicts(table, alpha=float(alpha)))
shown = table.set_index("run")[["delta", "ci_low", "ci_high", "p_value", "p_adjusted", "verdict", "wins", "ties", "losses"]]
shown = shown.join(significance.effect_sizes(values, baseline))
st.dataframe(
    shown.style.format(
        {
            "delta": "{:+.4f}",
            "ci_low": "{:+.4f}",
            "ci_high": "{:+.4f}",
            "p_value": "{:.4g}",
            "p_adjusted": "{:.4g}",
            "effect_size": "{:+.3f}",
            "effect_low": "{:+.3f}",
            "effect_high": "{:+.3f}",
        },
        na_rep="n/a",
    ),
    width="stretch",
)
described = "family-wise (Tukey HSD)" if test == "tukey" else f"{correction} correction over the {len(table)} comparisons"
st.caption(
    f"{measure_name}, run minus {baseline} on {int(table['n'].iloc[0])} queries; {test} test, {described}; "
    f"verdict at alpha = {alpha} on the adjusted p. The interval is 95% "
    + ("percentile bootstrap." if test == "bootstrap" else "t-based, of the mean difference.")
)
st.plotly_chart(plots.forest(table, measure_name, baseline), key="forest")
st.download_button(
    "Download comparisons (CSV)",
    table.to_csv(index=False).encode(),
    file_name=f"rankviz_significance_{measure_name}.csv",
    mime="text/csv",
)

st.subheader("How many queries would a study need?")
detect = st.number_input(
    f"Difference in {measure_name} to detect",
    0.001,
    1.0,
    ctx.url.number("detect", 0.001, 1.0, 0.02),
    step=0.005,
    format="%.3f",
    key=support.widget_key("significance.detect"),
)
ctx.url.write(detect=detect)
needed = significance.queries_needed(values, baseline, detect, alpha=float(alpha))
st.dataframe(needed.to_frame().style.format("{:.0f}", na_rep="n/a"), width="stretch")
st.caption(
    f"Queries for the two-sided paired t-test at alpha = {alpha} to detect a difference of {detect} with 80% power, "
    "from the standard deviation of each run's per-query differences from the baseline (Sakai's topic set size design)."
)

st.subheader("All pairs")
every = support.significance_table(values, measure_name, baseline, test, correction, "all", resamples, seed, zero_method)
st.plotly_chart(plots.pvalue_heatmap(every, names, measure_name, float(alpha)), key="pairs")
st.caption("Adjusted p-value of every pair (corrected over all pairs); cells below alpha are outlined.")

if ctx.group_by is not None:
    st.subheader(f"Per {ctx.group_by}")
    group_test = test if test != "tukey" else "t"
    by_group = support.significance_by_group(
        values, ctx.group_of(values.index), measure_name, baseline, group_test, correction, resamples, seed
    )
    by_group = by_group.assign(verdict=significance.verdicts(by_group.fillna({"p_adjusted": 1.0}), alpha=float(alpha)))
    by_group.loc[by_group["p_value"].isna(), "verdict"] = ""
    st.dataframe(
        by_group.style.format({"delta": "{:+.4f}", "p_value": "{:.4g}", "p_adjusted": "{:.4g}"}, na_rep=""),
        width="stretch",
        hide_index=True,
    )
    st.caption(
        f"{group_test} test within each group, {correction} correction across the groups of each run"
        + (" (Tukey HSD compares runs, not groups: the t-test is used here)" if test == "tukey" else "")
        + f"; groups with fewer than {significance.MIN_GROUP_QUERIES} queries are not tested."
    )
