"""Significance: which differences between runs can be trusted, and by how much."""

import streamlit as st

from rankviz import export, plots
from rankviz import settings as s
from rankviz.analyses import comparisons, significance
from rankviz.app import loaders
from rankviz.app.frame import open_page
from rankviz.app.text import md
from rankviz.app.widgets import option_input, url_selectbox, widget_key

ctx = open_page("significance")
st.header("Significance")
names = ctx.selected
if len(names) < 2:
    st.info("Choose two or more runs in the sidebar to compare them.")
    st.stop()
current = ctx.test_settings()
c1, c2, c3, c4 = st.columns(4)
measure_name = url_selectbox(ctx, c1, "Measure", ctx.measure_names, "measure", "significance",
                             format_func=lambda m: str(ctx.measure(m)))  # fmt: skip
baseline = c2.selectbox("Baseline", names, index=names.index(current.baseline), key=widget_key("significance.baseline", names))
test = option_input(c3, s.TEST, current.test, key=widget_key("significance.test"), horizontal=False)
correction = option_input(c4, s.CORRECTION, current.correction, key=widget_key("significance.correction"),
                          horizontal=False, disabled=test == "tukey")  # fmt: skip
c5, c6, c7, c8 = st.columns(4)
ALPHAS = [0.01, 0.05, 0.1]
alpha = c5.selectbox("alpha", ALPHAS, index=ALPHAS.index(current.alpha) if current.alpha in ALPHAS else 1,
                     key=widget_key("significance.alpha"))  # fmt: skip
resampling = test in ("randomization", "bootstrap", "tukey")
resamples = option_input(c6, s.RESAMPLES, current.n_resamples, key=widget_key("significance.resamples"), disabled=not resampling)
seed = option_input(c7, s.SEED, current.seed, key=widget_key("significance.seed"), disabled=not resampling)
zero_method = option_input(c8, s.ZERO_METHOD, current.zero_method, key=widget_key("significance.zero_method"),
                           horizontal=False, disabled=test != "wilcoxon")  # fmt: skip
tests = current.replace(baseline=baseline, test=test, correction=correction, alpha=float(alpha), n_resamples=int(resamples),
                        seed=int(seed), zero_method=zero_method)  # fmt: skip
ctx.url.write(measure=measure_name, baseline=baseline, **tests.to_text())
st.caption(significance.ASSUMPTIONS[test])

measure = ctx.measure(measure_name)
label = str(measure)
values = ctx.matrix(measure)
table = loaders.comparison(values, label, loaders.test_key(tests), baseline)
table = table.assign(verdict=comparisons.verdicts(table, alpha=tests.alpha))
shown = table.set_index("run")[["delta", "ci_low", "ci_high", "p_value", "p_adjusted", "verdict", "wins", "ties", "losses"]]
shown = shown.join(comparisons.effect_sizes(values, baseline))
formats = {c: "{:+.4f}" for c in ("delta", "ci_low", "ci_high")} | {"p_value": "{:.4g}", "p_adjusted": "{:.4g}"}
formats |= {c: "{:+.3f}" for c in ("effect_size", "effect_low", "effect_high")}
st.dataframe(shown.style.format(formats, na_rep="n/a"), width="stretch")
described = "family-wise (Tukey HSD)" if test == "tukey" else f"{correction} correction over the {len(table)} comparisons"
st.caption(
    f"{md(label)}, run minus {md(baseline)} on {int(table['n'].iloc[0])} queries; {test} test, {described}; "
    f"verdict at alpha = {tests.alpha:g} on the adjusted p. The interval is 95% "
    + ("percentile bootstrap." if test == "bootstrap" else "t-based, of the mean difference.")
)
st.plotly_chart(plots.forest(table, label, baseline), key="forest")
st.download_button("Download comparisons (CSV)", export.csv(table, index=False), file_name=f"rankviz_significance_{label}.csv",
                   mime="text/csv")  # fmt: skip

st.subheader("How many queries would a study need?")
detect = st.number_input(f"Difference in {md(label)} to detect", 0.001, 1.0, ctx.url.option(s.DETECT, 0.02), step=0.005,
                         format="%.3f", key=widget_key("significance.detect"))  # fmt: skip
ctx.url.write(detect=detect)
needed = comparisons.queries_needed(values, baseline, detect, alpha=tests.alpha)
st.dataframe(needed.to_frame().astype("float").style.format("{:.0f}", na_rep="n/a"), width="stretch")
st.caption(
    f"Queries for the two-sided paired t-test at alpha = {tests.alpha:g} to detect a difference of {detect} with 80% power, "
    "from the standard deviation of each run's per-query differences from the baseline (Sakai's topic set size design)."
)

st.subheader("All pairs")
every = loaders.comparison(values, label, loaders.test_key(tests.replace(pairs="all")), baseline)
st.plotly_chart(plots.pvalue_heatmap(every, names, label, tests.alpha), key="pairs")
st.caption("Adjusted p-value of every pair (corrected over all pairs); cells below alpha are outlined.")

if ctx.settings.group_by is not None:
    st.subheader(f"Per {md(ctx.settings.group_by)}")
    group_tests = tests.replace(test=test if test != "tukey" else "t")
    by_group = loaders.comparison_by_group(values, ctx.group_of(values.index), label, loaders.test_key(group_tests), baseline)
    by_group = by_group.assign(verdict=comparisons.verdicts(by_group.fillna({"p_adjusted": 1.0}), alpha=tests.alpha))
    by_group.loc[by_group["p_value"].isna(), "verdict"] = ""
    st.dataframe(by_group.style.format({"delta": "{:+.4f}", "p_value": "{:.4g}", "p_adjusted": "{:.4g}"}, na_rep=""),
                 width="stretch", hide_index=True)  # fmt: skip
    st.caption(
        f"{group_tests.test} test within each group, {correction} correction across the groups of each run"
        + (" (Tukey HSD compares runs, not groups: the t-test is used here)" if test == "tukey" else "")
        + f"; groups with fewer than {comparisons.MIN_GROUP_QUERIES} queries are not tested."
    )
