"""Per-query deltas: the meeting's page. Which queries to discuss, and one query's two rankings side
by side."""

import streamlit as st

from rankviz.app.frame import answers
from rankviz.app.frame.page_frame import open_page
from rankviz.app.panels import meeting_panel
from rankviz.app.panels.documents import documents_panel
from rankviz.app.panels.pair_views import every_query, pair_summary, queue_selection
from rankviz.app.panels.score_deltas import scores_page
from rankviz.app.panels.scored_answers import answers_panel
from rankviz.app.widgets import browser
from rankviz.app.widgets import page_options as app_options
from rankviz.app.widgets.option_widgets import grade_style, url_option, url_selectbox, widget_key
from rankviz.app.widgets.text import md, message
from rankviz.study import ALIGNED, DRAWN_TO_JUDGE, OVERLAP, PAIR

ctx = open_page("deltas")
# projector: one screen per query (Previous/Next, the query, both rankings, tags, note) first
screen = st.container() if ctx.present else st
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
    ctx,
    c3,
    "Measure",
    ctx.measure_names,
    "measure",
    "deltas",
    format_func=lambda m: str(ctx.measure(m)),
)
ctx.url.write(baseline=baseline, run=run, measure=measure_name)
measure = ctx.measure(measure_name)
label = str(measure)
pair = ctx.among([baseline, run]).ask(PAIR, measure, baseline, run)
frame = pair.frame
pair_summary(ctx, pair, measure)
if not ctx.ranked:  # per-query scores alone: no rankings to show
    scores_page(ctx, pair, measure)
    st.stop()

tables = ctx.study([baseline, run]).tables()
overlap = ctx.among([baseline, run]).ask(OVERLAP, baseline, run)
qids = list(frame.index)

st.subheader("Discussion queue")
per_reason = url_option(ctx.url, st.columns([1, 3])[0], app_options.QUEUE, "deltas")
ctx.url.write(queue=per_reason if per_reason != app_options.QUEUE.default else None)
# the queue's order is fixed when the meeting first opens it: judging changes its values, never its
# order
fixed_key = widget_key(
    "deltas.queue_order", ctx.collection_name, baseline, run, label, int(per_reason)
)
pending, drawn = ctx.study().ask(DRAWN_TO_JUDGE)  # the record's draw not judged yet leads
if drawn:
    st.caption(
        message("Judge next: {} of the {} queries drawn for people to judge.", len(pending), drawn)
    )
if fixed_key not in st.session_state:
    fresh = pair.queue(overlap, per_reason=int(per_reason), drawn=pending)
    st.session_state[fixed_key] = dict(zip(fresh.index, fresh["why"], strict=True))
queue = pair.fixed_queue(st.session_state[fixed_key], overlap)
queue_ids = list(queue.index)
checks = answers.check(ctx)
# what a check found there
concern = {q: ", ".join(sorted({f.code for f in checks.of_query(q)})) for q in queue.index}
queue_table = queue.assign(
    query=[ctx.queries.get(q, "") for q in queue.index], check=[concern[q] for q in queue.index]
)
# the link's query, else the queue's first
initial = ctx.url.choice("query", qids, queue_ids[0] if queue_ids else qids[0])
query_key = ctx.url.keyed("query", widget_key("deltas.query", baseline, run, qids), initial)


def open_query(qid: str) -> None:
    """Show ``qid`` in the query view (from a callback, or before the selector is drawn)."""
    st.session_state[query_key] = qid


# a click on a delta bar (made on the previous run: the chart is further down) opens that query,
# once
bar_click = st.session_state.get("delta_bars")
bar_points = bar_click.selection.points if bar_click else []
if bar_points:
    picked = qids[int(bar_points[0]["x"])]  # bars stand at their position in the sorted frame
    if st.session_state.get("deltas.bar_opened") != (baseline, run, label, picked):
        st.session_state["deltas.bar_opened"] = (baseline, run, label, picked)
        open_query(picked)

rows = queue_selection(queue_table, baseline, run, label)
if rows and st.session_state.get("deltas.queue_opened") != queue_ids[rows[0]]:
    st.session_state["deltas.queue_opened"] = queue_ids[rows[0]]
    open_query(queue_ids[rows[0]])
if st.button("Rebuild the queue from today's numbers", key="deltas.rebuild_queue"):
    del st.session_state[fixed_key]
    st.rerun()

if st.session_state.get(query_key) not in qids:
    st.session_state[query_key] = initial
place = (
    queue_ids.index(st.session_state[query_key]) if st.session_state[query_key] in queue_ids else -1
)
# projector: every text a click away on the first screen
reading = ctx.present and ctx.collection.docs is not None
# projector: grades typed on the first screen too, before the grid under Tab
back, forward, *rest = screen.columns(
    ([1, 1, 1.6] if reading else [1, 1]) + ([2, 1.6] if ctx.present else [4])
)
reader = rest.pop(0) if reading else None
typing = rest.pop(0) if ctx.present else None
where = rest[0]
back.button(
    "Previous",
    disabled=place <= 0,
    on_click=open_query,
    args=(queue_ids[max(place - 1, 0)] if queue_ids else "",),
    key="deltas.previous",
    width="stretch",
)
forward.button(
    browser.NEXT,
    disabled=place >= len(queue_ids) - 1,
    on_click=open_query,
    args=(queue_ids[min(place + 1, len(queue_ids) - 1)] if queue_ids else "",),
    key="deltas.next",
    width="stretch",
)
why = f" ({md(queue.loc[st.session_state[query_key], 'why'])})" if place >= 0 else ""
where.markdown(
    f"Query {place + 1} of {len(queue_ids)} in the queue{why}."
    if place >= 0
    else "This query is not in the queue."
)

st.subheader("Query view")
left, right = st.columns([3, 1])
labels = {
    q: f"{q}: {ctx.queries.get(q, '')[:80]}  ({d:+.3f})"
    for q, d in zip(qids, frame["delta"], strict=True)
}
# 7,000 labels: made once, here
query = left.selectbox("Query", qids, format_func=labels.__getitem__, key=query_key)
depth = url_option(ctx.url, right, app_options.DEPTH, "deltas", horizontal=True)
ctx.url.write(query=query, depth=depth if depth != app_options.DEPTH.default else None)
text = ctx.queries.get(query, "")
values = (
    f"{frame.loc[query, 'baseline']:.4f}",
    f"{frame.loc[query, 'run']:.4f}",
    f"{frame.loc[query, 'delta']:+.4f}",
)
screen.markdown(
    (f"**{md(text)}**  \n" if text else "")
    + message("{}: {} {}, {} {}, delta {}; ", label, baseline, values[0], run, values[1], values[2])
    + f"rank-biased overlap {overlap.get(query, float('nan')):.3f}"
)
answers_panel(measure, baseline, run, query, box=screen)  # a score's answers, when it has them
for finding in checks.of_query(query):  # the mistakes that change what this query's numbers mean
    screen.info(message("Check: {}", finding.line()))
view = ctx.study([baseline, run]).ask(ALIGNED, baseline, run, query, int(depth))
shown = view.assign(
    grade=["unjudged" if g != g else str(int(g)) for g in view["grade"]],
    **{
        f"{side} rank": [("" if r != r else str(int(r))) for r in view[f"{side} rank"]]
        for side in ("baseline", "run")
    },
)[["baseline rank", "baseline tie", "move", "run rank", "run tie", "docid", "grade"]]
styled = shown.style.map(lambda g: grade_style(g, ctx.settings.rel), subset=["grade"])
styled = styled.map(
    lambda m: "font-weight: bold" if m in ("new", "dropped") else "", subset=["move"]
)
picked_doc = st.dataframe(
    styled,
    width="stretch",
    hide_index=True,
    on_select="rerun",
    selection_mode="single-row",
    key=f"aligned:{baseline}:{run}:{query}:{depth}",
    column_config={
        "baseline rank": st.column_config.TextColumn(f"{baseline} rank"),
        "run rank": st.column_config.TextColumn(f"{run} rank"),
        "baseline tie": st.column_config.TextColumn(
            "tied", help="ranks sharing this document's score in the baseline"
        ),
        "run tie": st.column_config.TextColumn(
            "tied ", help="ranks sharing this document's score in the run"
        ),
    },
    height=min(38 + 35 * len(shown), 420 if ctx.present else 740),
)
in_top = {side: view[f"{side} rank"].le(depth) for side in ("baseline", "run")}
unjudged = {side: int((in_top[side] & view["grade"].isna()).sum()) for side in in_top}
st.caption(
    f"One row per document of either top {depth}, by its better rank; a rank past the depth is "
    "shown too. 'move': from "
    f"the baseline to the run (up / down by so many ranks; new: not in the baseline's top {depth}; "
    "dropped: not in the run's). 'tied': the ranks that share the document's score (their order is "
    "the tie policy's). Grade: relevant "
    f"(>= {ctx.settings.rel}) in blue, judged below it in sand, non-relevant in red, unjudged in "
    "grey. "
    + message(
        "Unjudged in the top {}: {} of {}'s, {} of {}'s.",
        depth,
        unjudged["baseline"],
        baseline,
        unjudged["run"],
        run,
    )
)

docids = list(view["docid"])
doc_rows = picked_doc.selection.rows if picked_doc else []
document = (
    docids[doc_rows[0]]
    if doc_rows
    else (ctx.url.raw("doc") if ctx.url.raw("doc") in docids else None)
)
show_all = url_option(ctx.url, st, app_options.TEXTS, "deltas")
ctx.url.write(texts="1" if show_all else None, doc=document)


documents_panel(
    ctx,
    query,
    text,
    view,
    shown,
    document,
    show_all=show_all,
    reader=reader,
    baseline=baseline,
    run=run,
)

meeting_panel.record_panel(
    ctx, query, view, baseline, run, box=screen, compact=ctx.present, grades_in=typing
)

every_query(ctx, pair, overlap, label)
