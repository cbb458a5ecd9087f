"""Metric choice: which measure fits the task, from the team's own runs."""

import streamlit as st

from rankviz import plots
from rankviz.analyses import metric_choice
from rankviz.app import loaders
from rankviz.app.frame import open_page
from rankviz.app.text import md
from rankviz.app.widgets import widget_key

ctx = open_page("metric_choice")
st.header("Metric choice")
if len(ctx.selected) < 2:
    st.info("Choose two or more runs in the sidebar: the evidence compares how measures order runs.")
    st.stop()
tables = ctx.tables(ties="trec_eval")
inferred = metric_choice.infer_task(tables, rel=ctx.settings.rel, top_k=ctx.k)
yes_no = ["yes", "no"]
questions = {  # URL key: (question, default read from the qrels)
    "one_answer": ("One correct answer per query?", inferred.single_answer),
    "top_only": (f"Do users look only at the top {ctx.k}?", True),
    "graded": ("Is relevance graded?", inferred.graded),
    "stops": ("Do users stop at the first satisfying result?", inferred.stops_when_satisfied),
}

st.subheader("Your task")
answers = {}
for column, (key, (question, default)) in zip(st.columns(len(questions)), questions.items()):
    chosen = ctx.url.choice(key, yes_no, "yes" if default else "no")
    answers[key] = column.radio(
        question, yes_no, index=yes_no.index(chosen), horizontal=True, key=widget_key(f"metric.{key}", ctx.collection_name)
    )
ctx.url.write(**answers)
st.caption(md(f"Defaults {inferred.source}; K is the frame's K."))
yes = {key: value == "yes" for key, value in answers.items()}
task = metric_choice.Task(yes["one_answer"], ctx.k if yes["top_only"] else None, yes["graded"], yes["stops"])

power_tests = ["tukey", "bootstrap"]
power_test = ctx.url.choice("power_test", power_tests, "tukey")
report = loaders.metric_report(ctx, task, power_test)
for pick in report.recommendations:
    st.markdown(f"- **{md(pick.measure)}**: {md(pick.reason)}. *Hides on this collection:* {md(pick.hides)}.")

st.subheader("Warnings from the collection")
messages = report.warnings.messages()
for text in messages:
    st.warning(md(text))
if not messages:
    st.success("Nothing in the qrels or runs undermines these measures.")
st.dataframe(report.warnings.judged.to_frame().style.format("{:.1%}"), width="stretch")

measure_names = list(report.measures)
if len(measure_names) < 2:
    st.info("Choose two or more measures in the sidebar to compare them.")
    st.stop()
st.subheader("Agreement between measures")
method = st.radio("Correlation of the run orderings", ["Kendall's tau", "tau-AP"], horizontal=True)
agreement = report.kendall if method == "Kendall's tau" else report.tau_ap
st.plotly_chart(plots.correlation_heatmap(agreement, f"{method} between the run orderings"), key="agreement")
c1, c2, c3 = st.columns(3)
run = c1.selectbox("Run", ctx.selected)
x_name = c2.selectbox("Measure (x)", measure_names, index=0)
y_name = c3.selectbox("Measure (y)", measure_names, index=1)
x = report.evaluation.matrix(x_name)[run].rename(x_name)
y = report.evaluation.matrix(y_name)[run].rename(y_name)
st.plotly_chart(plots.measure_scatter(x, y, run, ctx.queries), key="per_query")
if ctx.settings.group_by is not None:
    st.markdown(f"**Where {md(x_name)} and {md(y_name)} disagree, per {md(ctx.settings.group_by)}**")
    x_all, y_all = report.evaluation.matrix(x_name), report.evaluation.matrix(y_name)
    by_group = metric_choice.agreement_by_group(x_all, y_all, ctx.group_of(x_all.index))
    st.dataframe(by_group.style.format({"kendall tau": "{:.2f}"}, na_rep="n/a"), width="stretch")
    st.caption("Kendall's tau between the run orderings on each group's queries only; n/a where a measure ties every run.")

st.subheader("Discriminative power")
power_test = st.radio(
    "Test over the run pairs",
    power_tests,
    index=power_tests.index(power_test),
    horizontal=True,
    format_func=lambda t: {"tukey": "randomised Tukey HSD", "bootstrap": "paired bootstrap (Holm)"}[t],
    key=widget_key("metric.power_test"),
)
ctx.url.write(power_test=power_test)
st.dataframe(report.power.style.format({"power": "{:.1%}"}), width="stretch")
st.plotly_chart(plots.asl_curves(report.asl, 0.05), key="asl")
st.caption(
    "Share of run pairs separated at alpha = 0.05 by "
    + (
        "randomised Tukey HSD (1,000 permutations"
        if power_test == "tukey"
        else "the paired bootstrap, Holm-corrected over the pairs (1,000 resamples"
    )
    + ", seed 0)."
)

st.subheader("Stability")
st.dataframe(report.stability.style.format("{:.3f}", na_rep="n/a"), width="stretch")
st.caption(
    "swap rate: how often two runs swap order between two random halves of the queries (1,000 splits); "
    "tie width: largest optimistic - pessimistic mean over the runs; threshold tau / gmax tau: Kendall's tau "
    "between the run orderings at rel and rel + 1, at gmax and gmax + 1 (n/a: the measure has no such parameter)."
)
