"""Unjudged documents: how much every number rests on documents nobody judged, and which to judge
first."""

import functools

import streamlit as st

from rankviz import plots
from rankviz.app.frame.page_frame import open_page
from rankviz.app.widgets.number_tables import PAIR_HEADERS
from rankviz.app.widgets.option_widgets import url_option, url_selectbox
from rankviz.app.widgets.text import md, message
from rankviz.errors import RankvizError
from rankviz.plots import export
from rankviz.settings import report_settings as r
from rankviz.study import JUDGED_WARNING, UNJUDGED_REPORT

ctx = open_page("unjudged")
st.header("Unjudged documents")
st.caption(
    "Documents the qrels do not judge count as not relevant (trec_eval). Runs that retrieve "
    "documents the pool never saw then lose for lack of judgments, not of relevance. Here each "
    "value is shown twice: as usual, and with every "
    f"unjudged document of the run's top {ctx.k} (the frame's K; the whole ranking for measures "
    "without a cutoff) judged at a grade, the ideal ranking recomputed."
)
c1, c2 = st.columns([3, 1])
measure_name = url_selectbox(
    ctx,
    c1,
    "Measure",
    ctx.measure_names,
    "measure",
    "unjudged",
    format_func=lambda m: str(ctx.measure(m)),
)
grade = url_option(
    ctx.url, c2, r.FILL, "unjudged", default=ctx.settings.rel, label="Judge them at grade"
)
ctx.url.write(measure=measure_name, grade=grade)
try:
    report = ctx.ask(
        UNJUDGED_REPORT, ctx.test_settings(), r.UnjudgedSettings(k=ctx.k, grade=int(grade))
    )
# e.g. a grade above ERR's gmax: no number can be computed at that grade
except RankvizError as exc:
    st.error(message("Unjudged documents cannot be judged {} here: {}", grade, exc))
    st.stop()
label = str(ctx.measure(measure_name))

st.plotly_chart(
    plots.judged_bars(report.judged["share judged"], ctx.k, JUDGED_WARNING, ctx.colours),
    key="judged",
)
for warning in report.warnings():
    st.warning(md(warning[0].upper() + warning[1:] + "."))
section = report.sections[label]
st.subheader(f"{md(label)} at both ends")
st.dataframe(section.means.style.format("{:.4f}"), width="stretch")
st.plotly_chart(
    plots.unjudged_intervals(section.means, label, int(grade), ctx.colours),
    key="unjudged_intervals",
)
st.caption(
    "nonrelevant: the usual value; filled: with the unjudged documents of each run's top K judged "
    f"{grade}. Filling can "
    "lower a value too (AP and nDCG gain relevant documents in their denominators)."
)
if len(section.flips):
    risky = section.flips[section.flips["flips_between_ends"] | section.flips["can_flip"]]
    if risky.empty:
        st.success(
            f"No pair of runs can swap places on {md(label)}, however the unjudged "
            "documents are judged."
        )
    else:
        st.warning(
            f"{len(risky)} of {len(section.flips)} pairs of runs can swap places on "
            f"{md(label)}, depending on them."
        )
    st.dataframe(section.flips, width="stretch", hide_index=True, column_config=PAIR_HEADERS)
if len(section.verdicts):
    tests = ctx.test_settings()
    changed = section.verdicts[section.verdicts["changes"]]
    if changed.empty:
        st.success(f"Every verdict against {md(tests.baseline)} is the same at both ends.")
    else:
        st.warning(
            f"{len(changed)} run(s) get a different verdict against {md(tests.baseline)} once the "
            "unjudged documents are judged."
        )
    st.dataframe(section.verdicts, width="stretch")
    st.caption(f"{md(tests.describe())} (set on the Significance page).")

st.subheader("Documents to judge first")
if report.documents.empty:
    st.success(f"Every document of every run's top {ctx.k} is judged.")
else:
    documents = report.documents.head(200).copy()
    documents.insert(1, "query", [ctx.queries.get(q, "") for q in documents["qid"]])
    if len(ctx.selected) > 1:
        baseline = ctx.test_settings().baseline or ctx.selected[0]
        others = [n for n in ctx.selected if n != baseline]

        def against(ranked_by: str) -> str:
            """The run whose unjudged document this is (the first that ranks it, but the
            baseline)."""
            return next((n for n in ranked_by.split(", ") if n in others), others[0])

        documents["open"] = [
            ctx.url.link("deltas", query=q, baseline=baseline, run=against(by))
            for q, by in zip(documents["qid"], documents["ranked by"], strict=True)
        ]
    st.dataframe(
        documents,
        width="stretch",
        hide_index=True,
        column_config={"open": st.column_config.LinkColumn("Query view", display_text="open")},
    )
    st.caption(
        f"The unjudged documents of the selected runs' top {ctx.k}, those most runs share first: "
        "judging them settles the most numbers. 'open' shows the query in the query view."
    )
    st.download_button(
        "Download documents to judge (CSV)",
        functools.partial(export.csv, report.documents, index=False),
        file_name=ctx.export_name("rankviz_to_judge", "csv"),
        mime="text/csv",
    )
    st.markdown("**Queries with the most unjudged documents**")
    st.dataframe(report.queries.head(50), width="stretch")
