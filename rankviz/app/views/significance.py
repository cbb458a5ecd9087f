"""Significance: which differences between runs can be trusted, and by how much."""

import functools

import streamlit as st

from rankviz import plots
from rankviz.app.frame.page_frame import open_page
from rankviz.app.panels.anova_panel import anova_panel
from rankviz.app.widgets.option_widgets import url_option, url_selectbox
from rankviz.app.widgets.text import md, queries_text
from rankviz.plots import export
from rankviz.settings import eval_settings as s
from rankviz.settings import report_settings as r
from rankviz.settings import significance_settings as t
from rankviz.settings.numbers import p_text
from rankviz.settings.significance_settings import TestSettings
from rankviz.study import (
    ASSUMPTIONS,
    EFFECT_SIZES,
    MIN_GROUP_QUERIES,
    PAIRED_TESTS,
    PAIRED_TESTS_BY_GROUP,
    QUERIES_NEEDED,
)

#: Column headers a reader understands (the table keeps the API's names, which CSV exports use).
HEADERS = {
    "delta": "Δ (run − baseline)",
    "ci_low": "95% CI low",
    "ci_high": "95% CI high",
    "p_value": "p",
    "p_adjusted": "adjusted p",
    "effect_size": "effect size (Cohen's dz)",
    "effect_low": "dz CI low",
    "effect_high": "dz CI high",
    "mean_baseline": "baseline mean",
    "mean_run": "run mean",
}

ctx = open_page("significance")
st.header("Significance")
names = ctx.selected
if len(names) < 2:
    st.info("Choose two or more runs in the sidebar to compare them.")
    st.stop()
current = ctx.test_settings()
chosen: str = current.baseline or names[0]
c1, c2, c3, c4 = st.columns(4)
measure_name = url_selectbox(
    ctx,
    c1,
    "Measure",
    ctx.measure_names,
    "measure",
    "significance",
    format_func=lambda m: str(ctx.measure(m)),
)
baseline: str = (
    c2.selectbox(
        "Baseline",
        names,
        index=names.index(chosen),
        key=ctx.url.key("baseline", "significance", names, value=chosen),
    )
    or chosen
)
test = url_option(ctx.url, c3, t.TEST, "significance", horizontal=False)
correction = url_option(
    ctx.url, c4, t.CORRECTION, "significance", horizontal=False, disabled=test == "tukey"
)
c5, c6, c7, c8 = st.columns(4)
ALPHAS = [0.01, 0.05, 0.1]
level = current.alpha if current.alpha in ALPHAS else 0.05
alpha = c5.selectbox(
    "alpha",
    ALPHAS,
    index=ALPHAS.index(level),
    key=ctx.url.key("alpha", "significance", value=level),
)
resampling = test in ("randomization", "bootstrap", "tukey")
resamples = url_option(ctx.url, c6, t.RESAMPLES, "significance", disabled=not resampling)
seed = url_option(
    ctx.url, c7, s.SEED, "significance", default=current.seed, disabled=not resampling
)
zero_method = url_option(
    ctx.url, c8, t.ZERO_METHOD, "significance", horizontal=False, disabled=test != "wilcoxon"
)
tests = current.replace(
    baseline=baseline,
    test=test,
    correction=correction,
    alpha=float(alpha),
    n_resamples=int(resamples),
    seed=int(seed),
    zero_method=zero_method,
)
# every test option: those at their default leave the URL, so no page reads a stale one
written = tests.to_text()
ctx.url.write(
    measure=measure_name,
    baseline=baseline,
    **{name: written.get(name) for name in TestSettings.OPTIONS},
)
st.caption(ASSUMPTIONS[test])

measure = ctx.measure(measure_name)
label = str(measure)
# under missing=skip each pair keeps the queries both runs answer
values = ctx.matrix(measure, complete=False)
table = ctx.ask(PAIRED_TESTS, measure, tests, verdict=True)
shown = table.set_index("run")[
    ["delta", "ci_low", "ci_high", "p_value", "p_adjusted", "verdict", "wins", "ties", "losses"]
]
shown = shown.join(ctx.ask(EFFECT_SIZES, measure, baseline))
formats = {c: "{:+.4f}" for c in ("delta", "ci_low", "ci_high")} | {
    "p_value": p_text,
    "p_adjusted": p_text,
}
formats |= {c: "{:+.3f}" for c in ("effect_size", "effect_low", "effect_high")}
st.dataframe(shown.style.format(formats, na_rep="n/a"), width="stretch", column_config=HEADERS)
family = (
    "all pairs of runs (Tukey HSD, family-wise)"
    if test == "tukey"
    else (
        f"the {len(table)} comparisons of this table ({correction} correction: every run against "
        f"{md(baseline)}, on {md(label)})"
    )
)
st.caption(
    f"{md(label)}, run minus {md(baseline)} on {queries_text(table['n'])}; {test} test. The "
    "verdict is read "
    f"on the adjusted p, at alpha = {tests.alpha:g}; the p is adjusted over {family}. The interval "
    "is 95% "
    + ("percentile bootstrap" if test == "bootstrap" else "t-based, of the mean difference")
    + " and not adjusted: an interval that excludes 0 beside 'n.s.' is a difference the correction "
    "does not let through."
)
st.plotly_chart(plots.forest(table, label, baseline), key="forest")
st.download_button(
    "Download comparisons (CSV)",
    functools.partial(export.csv, table, index=False),
    file_name=ctx.export_name(f"rankviz_significance_{label}", "csv"),
    mime="text/csv",
)

st.subheader("How many queries would a study need?")
wanted = ctx.url.option(r.DETECT, 0.02)
detect = st.number_input(
    f"Difference in {md(label)} to detect",
    0.001,
    1.0,
    wanted,
    step=0.005,
    format="%.3f",
    key=ctx.url.key("detect", "significance", value=wanted),
)
ctx.url.write(detect=detect)
needed = ctx.ask(QUERIES_NEEDED, measure, baseline, detect, alpha=tests.alpha)
st.dataframe(
    needed.to_frame().astype("float").style.format("{:.0f}", na_rep="n/a"), width="stretch"
)
st.caption(
    f"Queries for the two-sided paired t-test at alpha = {tests.alpha:g} to detect a difference of "
    f"{detect} with 80% power, "
    "from the standard deviation of each run's per-query differences from the baseline (Sakai's "
    "topic set size design)."
)

anova_panel(ctx, measure, tests.confidence_level)
st.subheader("All pairs")
every = ctx.ask(PAIRED_TESTS, measure, tests.replace(pairs="all"))
st.plotly_chart(plots.pvalue_heatmap(every, names, label, tests.alpha), key="pairs")
pairs = len(names) * (len(names) - 1) // 2
st.caption(
    f"Adjusted p-value of every pair, corrected over all {pairs} pairs"
    + (
        ""
        if test == "tukey"
        else f" (the table above corrects over its {len(table)} comparisons "
        "with the baseline, so the same pair can have a larger adjusted p here)"
    )
    + "; * marks the pairs below alpha."
)

if ctx.settings.group_by is not None:
    st.subheader(f"Per {md(ctx.settings.group_by)}")
    group_tests = tests.replace(test=test if test != "tukey" else "t")
    by_group = ctx.ask(PAIRED_TESTS_BY_GROUP, measure, group_tests)
    by_group.loc[by_group["p_value"].isna(), "verdict"] = ""
    st.dataframe(
        by_group.style.format(
            {"delta": "{:+.4f}", "p_value": p_text, "p_adjusted": p_text}, na_rep=""
        ),
        width="stretch",
        hide_index=True,
        column_config=HEADERS,
    )
    st.caption(
        f"{group_tests.test} test within each group, {correction} correction across the groups of "
        "each run"
        + (
            " (Tukey HSD compares runs, not groups: the t-test is used here)"
            if test == "tukey"
            else ""
        )
        + f"; groups with fewer than {MIN_GROUP_QUERIES} queries are not tested."
    )
