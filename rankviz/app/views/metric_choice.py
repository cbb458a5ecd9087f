"""Metric choice: which measure fits the task, from the team's own runs."""

import streamlit as st

from rankviz import plots
from rankviz.app.frame.page_frame import open_page
from rankviz.app.panels.score_metrics import (
    POWER_TESTS,
    agreement_choice,
    power_test_choice,
    scores_page,
)
from rankviz.app.widgets.option_widgets import url_selectbox
from rankviz.app.widgets.text import md
from rankviz.settings.report_settings import MetricSettings
from rankviz.study import INFER_TASK, METRIC_REPORT, Task

ctx = open_page("metric_choice")
st.header("Metric choice")
if len(ctx.selected) < 2:
    st.info(
        "Choose two or more runs in the sidebar: the evidence compares how measures order runs."
    )
    st.stop()
if not ctx.ranked:  # per-query scores alone: the values' evidence
    scores_page(ctx)
    st.stop()
inferred = ctx.study().ask(INFER_TASK, ctx.k, ctx.selected)
yes_no = ["yes", "no"]
questions = {  # URL key: (question, default, where the default comes from)
    "one_answer": (
        "One correct answer per query?",
        inferred.single_answer,
        "guessed from the qrels",
    ),
    "top_only": (f"Do users look only at the top {ctx.k}?", True, "assumed (K is the frame's K)"),
    "graded": ("Is relevance graded?", inferred.graded, "guessed from the qrels"),
    "stops": (
        "Do users stop at the first satisfying result?",
        inferred.stops_when_satisfied,
        "guessed: yes when graded",
    ),
}

st.subheader("Your task")
answers = {}
for column, (key, (question, default, _)) in zip(st.columns(len(questions)), questions.items()):
    chosen = ctx.url.choice(key, yes_no, "yes" if default else "no")
    answers[key] = column.radio(
        question,
        yes_no,
        index=yes_no.index(chosen),
        horizontal=True,
        key=ctx.url.key(key, "metric", ctx.collection_name, value=chosen),
    )
ctx.url.write(
    **{
        key: value if value != ("yes" if questions[key][1] else "no") else None
        for key, value in answers.items()
    }
)
guessed = [
    f"{questions[key][0].rstrip('?').lower()}: {questions[key][2]}"
    for key in questions
    if ctx.url.raw(key) is None
]
st.caption(
    md(
        f"Unanswered, so far: {'; '.join(guessed)}. The qrels: "
        f"{inferred.source.removeprefix('guessed from the qrels: ')}."
    )
    if guessed
    else "Every answer is yours."
)
yes = {key: value == "yes" for key, value in answers.items()}
task = Task(yes["one_answer"], ctx.k if yes["top_only"] else None, yes["graded"], yes["stops"])

power_test = ctx.url.choice("power_test", POWER_TESTS, "tukey")
report = ctx.ask(
    METRIC_REPORT, MetricSettings(k=ctx.k, test=power_test, seed=0), every_candidate=True
)
asked = [str(m) for m in ctx.measures]
names = report.for_task(task, asked)[1]
choice = report.choice(task, asked)
if choice is not None:  # one recommendation, its reasons from this collection, then the others
    st.success(md(choice.sentence()), icon=":material/recommend:")
    st.markdown(f"*Hides on this collection:* {md(choice.recommendation.hides)}.")
    if choice.runners_up:
        st.markdown("**Also fit**, in the order of the same evidence:")
    for pick, evidence in choice.runners_up:
        st.markdown(
            f"- **{md(pick.measure)}** ({md(evidence.sentence())}): {md(pick.reason)}. "
            f"*Hides:* {md(pick.hides)}."
        )
st.caption(
    "Run pairs separated: Discriminative power below; swap rate: Stability below. Every measure "
    "that fits is evaluated there, beside the frame's measures."
)

st.subheader("Warnings from the collection")
messages = report.warnings.messages()
for text in messages:
    st.warning(md(text))
if not messages:
    st.success("Nothing in the qrels or runs undermines these measures.")
st.dataframe(report.warnings.judged.to_frame().style.format("{:.1%}"), width="stretch")

if len(names) < 2:
    st.info("Choose two or more measures in the sidebar to compare them.")
    st.stop()
st.subheader("Head to head")
c1, c2 = st.columns(2)
first = url_selectbox(ctx, c1, "Measure A", names, "measure_a", "metric")
second = url_selectbox(
    ctx, c2, "Measure B", [n for n in names if n != first], "measure_b", "metric"
)
ctx.url.write(measure_a=first, measure_b=second)
duel = report.head_to_head(first, second)
for line in duel.sentences():
    st.markdown("- " + md(line))
if len(duel.disagreements):
    st.dataframe(
        duel.disagreements.style.format(
            {c: "{:+.4f}" for c in duel.disagreements.columns if c.startswith("delta")}
        ),
        width="stretch",
        hide_index=True,
    )

st.subheader("Agreement between measures")
method = agreement_choice(ctx, st)
agreement = (report.kendall if method == "Kendall's tau" else report.tau_ap).loc[names, names]
st.plotly_chart(
    plots.correlation_heatmap(agreement, f"{method} between the run orderings"), key="agreement"
)
c1, c2, c3 = st.columns(3)
run = url_selectbox(ctx, c1, "Run", ctx.selected, "scatter_run", "metric")
ctx.url.write(scatter_run=run)
x = report.evaluation.matrix(first)[run].rename(first)
y = report.evaluation.matrix(second)[run].rename(second)
st.plotly_chart(plots.measure_scatter(x, y, run, ctx.queries), key="per_query")
st.caption(md(f"{run}'s queries under the head-to-head measures."))
if ctx.settings.group_by is not None:
    st.markdown(f"**Where {md(first)} and {md(second)} disagree, per {md(ctx.settings.group_by)}**")
    x_all, y_all = report.evaluation.matrix(first), report.evaluation.matrix(second)
    by_group = report.agreement_by_group(first, second, ctx.study().group_of(x_all.index))
    st.dataframe(by_group.style.format({"kendall tau": "{:.2f}"}, na_rep="n/a"), width="stretch")
    st.caption(
        "Kendall's tau between the run orderings on each group's queries only; n/a where a "
        "measure ties every run."
    )

st.subheader("Discriminative power")
power_test_choice(ctx, st)
st.dataframe(report.power.loc[names].style.format({"power": "{:.1%}"}), width="stretch")
st.plotly_chart(
    plots.asl_curves(report.asl[report.asl["measure"].isin(names)], report.options.alpha), key="asl"
)
st.caption(f"Share of run pairs separated: {md(report.options.describe())}.")

st.subheader("Stability")
st.dataframe(report.stability.loc[names].style.format("{:.3f}", na_rep="n/a"), width="stretch")
st.caption(
    "swap rate: how often two runs swap order between two random halves of the queries "
    f"({report.options.splits:,} splits); "
    "tie width: largest optimistic - pessimistic mean over the runs; threshold tau / gmax tau: "
    "Kendall's tau between the run orderings at rel and rel + 1, at gmax and gmax + 1 (n/a: the "
    "measure has no such parameter)."
)
