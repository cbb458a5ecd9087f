"""Judgments: two sources of judgments side by side (the qrels file, another assessor's or an LLM's
qrels, the meeting's record), how far they agree, and what changes for the selected runs."""

import streamlit as st

from rankviz import plots
from rankviz.app.frame.page_frame import open_page
from rankviz.app.meeting.importing import import_panel
from rankviz.app.panels import judge_sources
from rankviz.app.widgets.option_widgets import url_selectbox
from rankviz.app.widgets.text import md, message, said
from rankviz.errors import RankvizError
from rankviz.settings.numbers import to_json

ctx = open_page("judgments")
st.header("Judgments")
import_panel(ctx)
sources = judge_sources.offered(ctx)
if len(sources) < 2:
    st.info(
        "This collection has one source of judgments, its qrels file. Put another beside it as "
        "qrels.NAME.txt (another assessor's, or an LLM judge's such as UMBRELA's; say its kind in "
        "collection.toml under [qrels.NAME]), or judge documents in the meeting (Per-query "
        "deltas), to compare them here. `rankviz judgments import DB FILE --by NAME --source "
        "llm:NAME` starts a meeting from an LLM's labels."
    )
    st.stop()
names = list(sources)


def called(name: str) -> str:
    return f"{name} ({sources[name] or 'kind not said'})"


left, right = st.columns(2)
a = url_selectbox(
    ctx, left, "A (the reference)", names, "judges_a", "judgments", format_func=called
)
others = [n for n in names if n != a]
b = url_selectbox(
    ctx,
    right,
    "B (compared with A)",
    others,
    "judges_b",
    "judgments",
    format_func=called,
)
ctx.url.write(judges_a=a, judges_b=b)
try:
    report = judge_sources.report(ctx, a, b)
# a source with no usable judgment (a record whose entries are all left out)
except RankvizError as exc:
    st.warning(message("No comparison of {} and {}: {}", a, b, said(exc)))
    st.stop()
summary = report.summary()
for line in report.verdicts():
    st.markdown(f"- {md(line)}")
cells = st.columns(5)
for cell, (label, key) in zip(
    cells,
    [
        ("Pairs both judge", "pairs"),
        ("Exact agreement", "agreement"),
        ("Cohen's kappa", "kappa"),
        ("Linear-weighted kappa", "kappa_linear"),
        (f"Kappa, relevant from {report.rel}", "kappa_binary"),
    ],
):
    value = summary[key]
    cell.metric(label, f"{value:,}" if isinstance(value, int) else f"{value:.3f}")
frames = report.to_frames()
st.caption(
    f"On the pairs both judge. B against A, relevant from grade {report.rel}: precision "
    f"{summary['precision_b']:.3f}, recall "
    f"{summary['recall_b']:.3f}; mean grade difference B - A {summary['mean_difference']:+.3f}. "
    "Only A judges "
    f"{summary['only_a']:,} pairs, only B {summary['only_b']:,}. Kappa as scikit-learn's "
    "cohen_kappa_score over the grades from the lowest to the highest either gives."
)
left, right = st.columns(2)
left.plotly_chart(plots.confusion_heatmap(frames["confusion"], a, b), key="judgments_confusion")
right.markdown("**For each grade of A, the share of each grade B gives**")
right.dataframe(frames["leniency"].style.format("{:.0%}", na_rep="–"), width="stretch")
st.subheader("The queries that disagree most")
queries = frames["queries"].head(25).copy()
queries.insert(1, "query", [ctx.queries.get(q, "") for q in queries["qid"]])
st.dataframe(queries, hide_index=True, width="stretch")
st.subheader("The runs under A and under B")
if len(frames["holes"]):
    st.dataframe(frames["holes"], hide_index=True, width="stretch")
    st.caption(
        f"A's unjudged documents in each run's top {report.k}, and how many of them B "
        "judges (the holes B could fill)."
    )
if len(frames["rankings"]):
    st.dataframe(frames["rankings"], hide_index=True, width="stretch")
    st.caption(
        "How alike A and B order the selected runs by each measure: Kendall's tau-b, tau-AP "
        "(Yilmaz et al. 2008: a swap near the top costs more) and Spearman; the share of A's top 3 "
        "runs that are B's; the runs whose rank moves; the pairs of runs whose significance "
        "verdict (the test of the Significance page, over all pairs) changes."
    )
    st.dataframe(frames["means"], hide_index=True, width="stretch")
    st.caption(
        "Each run's mean under A, under B, and under A with its holes filled by B (UMBRELA's way; "
        "A wins where both judge)."
    )
if len(frames["flips"]):
    st.dataframe(frames["flips"], hide_index=True, width="stretch")
st.download_button(
    "Download the comparison (JSON)",
    to_json(report.to_dict()).encode(),
    file_name="rankviz_agreement.json",
    mime="application/json",
)
