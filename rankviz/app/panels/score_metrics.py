"""The Metric choice page of a collection of per-query scores alone: what the values say of the
scores (how far they agree on the runs' order, how many run pairs each separates, how often two
halves of the queries swap a pair). The task's questions, the recommendations and the tie and
threshold stability read qrels and rankings, and the page says so."""

from __future__ import annotations

import streamlit as st

from rankviz import plots
from rankviz.app.frame.context import Context
from rankviz.app.widgets.text import md
from rankviz.settings.report_settings import POWER_TEST, MetricSettings
from rankviz.study import VALUES_EVIDENCE

POWER_TESTS = ["tukey", "bootstrap"]
METHODS = ["Kendall's tau", "tau-AP"]


def power_test_choice(ctx: Context, box) -> str:
    """The test of the discriminative power (its radio in ``box``; the link's ``power_test``)."""
    chosen = ctx.url.choice("power_test", POWER_TESTS, "tukey")
    chosen = box.radio(
        "Test over the run pairs",
        POWER_TESTS,
        index=POWER_TESTS.index(chosen),
        horizontal=True,
        format_func=lambda t: POWER_TEST.meanings[t],
        key=ctx.url.key("power_test", "metric", value=chosen),
    )
    ctx.url.write(power_test=chosen if chosen != "tukey" else None)
    return chosen


def agreement_choice(ctx: Context, box) -> str:
    """How the measures' orderings of the runs are compared (its radio in ``box``; the link's
    ``agreement``)."""
    shown = "tau-AP" if ctx.url.raw("agreement") == "tau-AP" else "Kendall's tau"
    method = box.radio(
        "Correlation of the run orderings",
        METHODS,
        horizontal=True,
        index=METHODS.index(shown),
        key=ctx.url.key("agreement", "metric", value=shown),
    )
    ctx.url.write(agreement=None if method == "Kendall's tau" else method)
    return method


def scores_page(ctx: Context) -> None:
    """The evidence of the chosen scores on the chosen runs."""
    st.caption(
        "Per-query scores alone: no task questions or recommendations (they read the qrels) and "
        "no tie or threshold stability (they read the rankings). What the values say:"
    )
    if len(ctx.measures) < 2:
        st.info("Choose two or more scores in the sidebar to compare them.")
        return
    left, right = st.columns(2)
    power_test = power_test_choice(ctx, right)
    method = agreement_choice(ctx, left)
    evidence = ctx.ask(VALUES_EVIDENCE, MetricSettings(k=ctx.k, test=power_test, seed=0))
    st.subheader("Agreement between scores")
    agreement = evidence.kendall if method == "Kendall's tau" else evidence.tau_ap
    st.plotly_chart(
        plots.correlation_heatmap(agreement, f"{method} between the run orderings"),
        key="agreement",
    )
    st.subheader("Discriminative power")
    st.dataframe(evidence.power.style.format({"power": "{:.1%}"}), width="stretch")
    st.plotly_chart(plots.asl_curves(evidence.asl, evidence.options.alpha), key="asl")
    st.caption(f"Share of run pairs separated: {md(evidence.options.describe())}.")
    st.subheader("Stability")
    st.dataframe(evidence.stability.style.format("{:.3f}", na_rep="n/a"), width="stretch")
    st.caption(
        "swap rate: how often two runs swap order between two random halves of the queries "
        f"({evidence.options.splits:,} splits)."
    )
