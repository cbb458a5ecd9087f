"""Per-query deltas between a baseline and a run, and the query view of both rankings."""

import streamlit as st

from rankviz import export, plots
from rankviz.analyses import deltas
from rankviz.app.frame import open_page
from rankviz.app.text import md
from rankviz.app.widgets import url_selectbox, widget_key

ctx = open_page("deltas")
st.header("Per-query deltas")
names = ctx.selected
if len(names) < 2:
    st.info("Choose two or more runs in the sidebar to compare them.")
    st.stop()
c1, c2, c3 = st.columns(3)
baseline = url_selectbox(ctx, c1, "Baseline", names, "baseline", "deltas")
others = [n for n in names if n != baseline]
run = url_selectbox(ctx, c2, "Run", others, "run", "deltas")
measure_name = url_selectbox(
    ctx, c3, "Measure", ctx.measure_names, "measure", "deltas", format_func=lambda m: str(ctx.measure(m))
)
ctx.url.write(baseline=baseline, run=run, measure=measure_name)
measure = ctx.measure(measure_name)
label = str(measure)
evaluation = ctx.evaluation([baseline, run])
frame = deltas.deltas(evaluation.matrix(measure), baseline, run)
wins, ties, losses = deltas.wins_ties_losses(frame["delta"])
m1, m2, m3, m4 = st.columns(4)
m1.metric("Wins", wins)
m2.metric("Ties", ties)
m3.metric("Losses", losses)
m4.metric(f"Mean delta {md(label)}", f"{evaluation.aggregation.mean(frame['delta'].to_numpy(), frame.index):+.4f}")
groups = ctx.group_of(frame.index)
clicked = st.plotly_chart(
    plots.delta_bars(frame, ctx.queries, label, baseline, run, groups=groups),
    key="delta_bars",
    on_select="rerun",
    selection_mode="points",
)
points = clicked.selection.points if clicked else []
picked = str(frame.index[int(points[0]["x"])]) if points else None  # bars stand at their position in the sorted frame
query_key = widget_key("deltas.query", list(frame.index))
if picked is not None and st.session_state.get("delta_clicked") != picked:
    st.session_state["delta_clicked"] = picked  # a click opens that query below, once
    ctx.url.write(query=picked)
    st.session_state.pop(query_key, None)  # the query selector starts again from the URL
st.caption("Click a bar to open that query in the query view below.")
if groups is not None:
    st.markdown(f"**Wins, ties and losses per {md(ctx.settings.group_by)}**")
    st.dataframe(
        deltas.wins_ties_losses_by_group(frame["delta"], groups).style.format({"mean_delta": "{:+.4f}"}), width="stretch"
    )
st.plotly_chart(plots.baseline_scatter(frame, ctx.queries, label, baseline, run), key="delta_scatter")
st.download_button("Download per-query values (CSV)", export.csv(frame), file_name=f"rankviz_deltas_{label}.csv", mime="text/csv")

st.subheader("Largest gains and losses")
count = st.slider("Queries in each list", 3, 50, 10)
table = frame.assign(query=[ctx.queries.get(q, "") for q in frame.index])
gains, losses_col = st.columns(2)
gains.markdown("**Gains**")
gains.dataframe(table.head(count), width="stretch")
losses_col.markdown("**Losses**")
losses_col.dataframe(table.tail(count).iloc[::-1], width="stretch")

st.subheader("Query view")
qids = list(frame.index)
query = st.selectbox(
    "Query",
    qids,
    index=qids.index(ctx.url.choice("query", qids, qids[0])),
    format_func=lambda q: f"{q}: {ctx.queries.get(q, '')[:80]}  ({frame.loc[q, 'delta']:+.3f})",
    key=query_key,
)
depth = st.radio("Depth", [10, 20, 50], horizontal=True)
ctx.url.write(query=query)
if ctx.queries.get(query):
    st.markdown("**Query:** " + md(ctx.queries[query]))
tables = ctx.tables([baseline, run])
view = deltas.side_by_side(tables[baseline], tables[run], query, depth)

GRADES = ["baseline grade", "run grade"]
shown = view.assign(**{c: ["unjudged" if g != g else str(int(g)) for g in view[c]] for c in GRADES})


def grade_colour(grade_label: str) -> str:
    if grade_label == "unjudged":
        return "background-color: #f1f3f5; color: #868e96"
    grade = int(grade_label)
    if grade >= ctx.settings.rel:
        return "background-color: #b7e4c7"
    return "background-color: #ffe5d9" if grade <= 0 else "background-color: #fff3bf"


st.dataframe(
    shown.style.map(grade_colour, subset=GRADES).format({"baseline score": "{:.4f}", "run score": "{:.4f}"}),
    width="stretch",
    hide_index=True,
)
unjudged = {side: int(view[f"{side} grade"].isna().sum()) for side in ("baseline", "run")}
st.caption(
    f"Green: relevant (grade >= {ctx.settings.rel}); yellow: judged below the threshold; red: judged non-relevant; grey: "
    "unjudged. 'moved': rank change of the run's document relative to the baseline ('new': not in the baseline's top list). "
    f"Unjudged in the top {depth}: {unjudged['baseline']} of {md(baseline)}'s, {unjudged['run']} of {md(run)}'s."
)
if ctx.collection.docs is not None:
    docids = list(dict.fromkeys(list(view["baseline docid"].dropna()) + list(view["run docid"].dropna())))
    chosen_doc = st.selectbox("Document text", docids)
    text = ctx.collection.docs.get([chosen_doc]).get(chosen_doc)
    st.text(text["text"] if text else "(no text for this document)")
