"""Per-query deltas: the meeting's page. Which queries to discuss, and one query's two rankings side
by side."""

import streamlit as st

from rankviz import export, plots
from rankviz.app import inputs, meeting
from rankviz.app import options as app_options
from rankviz.app.frame import open_page
from rankviz.app.text import highlighted, highlighted_html, md, message, query_terms
from rankviz.app.widgets import grade_style, url_option, url_selectbox, widget_key

ctx = open_page("deltas")
# projector mode: one screen per query (Previous/Next, the query, both rankings with their grade
# cells, tags and note) first; the rest of the page follows below it
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
evaluation = ctx.evaluation([baseline, run])
pair = ctx.pair(measure, baseline, run)
frame = pair.frame
chance = ctx.chance([baseline, run]).means()[label]
wins, ties, losses = pair.wins_ties_losses()
m1, m2, m3, m4 = st.columns(4)
m1.metric("Wins", wins)
m2.metric("Ties", ties)
m3.metric("Losses", losses)
m4.metric(
    f"Mean delta {md(label)}",
    f"{evaluation.aggregation.mean(frame['delta'].to_numpy(), frame.index):+.4f}",
)
means = {
    name: f"{evaluation.mean(measure, name):.4f} (chance level {chance[name]:.4f})"
    for name in (baseline, run)
}
st.caption(
    message("Mean {}: {} {}, {} {}. ", label, baseline, means[baseline], run, means[run])
    + "The chance level is what a random order of the run's own retrieved documents would get, "
    "exactly."
)

tables = ctx.tables([baseline, run])
overlap = ctx.overlap(baseline, run)
qids = list(frame.index)

st.subheader("Discussion queue")
per_reason = url_option(ctx.url, st.columns([1, 3])[0], app_options.QUEUE, "deltas")
ctx.url.write(queue=per_reason if per_reason != app_options.QUEUE.default else None)
# the queue's order is fixed when the meeting first opens it: judging changes its values, never its
# order
fixed_key = widget_key(
    "deltas.queue_order", ctx.collection_name, baseline, run, label, int(per_reason)
)
if fixed_key not in st.session_state:
    fresh = pair.queue(overlap, per_reason=int(per_reason))
    st.session_state[fixed_key] = dict(zip(fresh.index, fresh["why"], strict=True))
queue = pair.fixed_queue(st.session_state[fixed_key], overlap)
queue_ids = list(queue.index)
checks = ctx.check()
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

selection = st.dataframe(
    queue_table[["why", "query", "baseline", "run", "delta", "rbo", "check"]].style.format(
        {"baseline": "{:.4f}", "run": "{:.4f}", "delta": "{:+.4f}", "rbo": "{:.3f}"}, na_rep="n/a"
    ),
    width="stretch",
    on_select="rerun",
    selection_mode="single-row",
    key=f"queue:{baseline}:{run}:{label}",
    column_config={
        "baseline": st.column_config.NumberColumn(baseline),
        "run": st.column_config.NumberColumn(run),
        "rbo": st.column_config.NumberColumn(
            "RBO", help="rank-biased overlap of the two top 100s (1: the same ranking)"
        ),
        "check": st.column_config.TextColumn(
            "check", help="what the checks found about this query (the Overview lists them)"
        ),
    },
)
rows = selection.selection.rows if selection else []
if rows and st.session_state.get("deltas.queue_opened") != queue_ids[rows[0]]:
    st.session_state["deltas.queue_opened"] = queue_ids[rows[0]]
    open_query(queue_ids[rows[0]])
st.caption(
    "The largest losses and gains of the run against the baseline, then the queries whose two "
    "rankings share least "
    "(rank-biased overlap, p = 0.9, Webber et al. 2010), even where the measure did not move. "
    "Click a row, or step "
    "through the queue with Previous and Next. The order is fixed when the queue opens, so judging "
    "never moves your "
    "place; its values follow the judgments."
)
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
back, forward, *rest = screen.columns([1, 1, 1.6, 3] if reading else [1, 1, 4])
reader, where = rest if reading else (None, rest[0])
back.button(
    "Previous",
    disabled=place <= 0,
    on_click=open_query,
    args=(queue_ids[max(place - 1, 0)] if queue_ids else "",),
    key="deltas.previous",
    width="stretch",
)
forward.button(
    "Next",
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
for finding in checks.of_query(query):  # the mistakes that change what this query's numbers mean
    screen.info(message("Check: {}", finding.line()))
view = ctx.aligned(baseline, run, query, int(depth))
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
    "dropped: not in the "
    "run's). 'tied': the ranks that share the document's score (their order is the tie policy's). "
    "Grade: relevant "
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


def show_text(found: dict | None, terms: list[str]) -> None:
    """A document's title and text with the query's words marked (escaped: no markup of the
    collection's)."""
    if found is None:
        st.caption("No text for this document in the collection's docs.jsonl.gz.")
        return
    if found["title"]:
        st.html("<strong>" + highlighted_html(highlighted(found["title"], terms)) + "</strong>")
    st.html(highlighted_html(highlighted(found["text"], terms)))


documents = inputs.document_texts(ctx.collection)
if documents is None:
    st.info(
        md(
            ctx.collection.config.documents
            or "This collection has no document texts (docs.jsonl.gz, docs.tsv.gz or docs.parquet "
            "in its folder)."
        )
    )
else:
    terms = query_terms(text)
    wanted = docids if show_all else [d for d in [document] if d]
    texts = documents.get(wanted)
    # one screen per query: every text of the top documents a click away, over the page
    if reader is not None:
        with reader.popover("Read a document", width="stretch"):
            ranks = dict(
                zip(
                    docids, zip(shown["baseline rank"], shown["run rank"], strict=True), strict=True
                )
            )
            read = st.selectbox(
                "Document",
                docids,
                key=f"deltas.read:{query}",
                format_func=lambda d: message("{} (ranks {} / {})", d, *ranks[d]),
            )
            show_text(documents.get([read]).get(read), terms)
    if not wanted:
        st.caption(
            "Click a document's row to read it here with the query's words marked, or show "
            "every text at once."
        )
    for docid in wanted:
        cells = shown.loc[view.index[view["docid"] == docid][0]]
        title = message(
            "{} · {} rank {} · {} rank {} · grade {}",
            docid,
            baseline,
            cells["baseline rank"] or "-",
            run,
            cells["run rank"] or "-",
            cells["grade"],
        )
        with st.expander(title, expanded=True):
            show_text(texts.get(docid), terms)

meeting.record_panel(ctx, query, view, baseline, run, box=screen, compact=ctx.present)

st.subheader("Every query")
groups = ctx.group_of(frame.index)
bars = ctx.figure(
    [baseline, run],
    ("delta bars", label, baseline, run),
    lambda: plots.delta_bars(frame, ctx.queries, label, baseline, run, groups=groups),
)
st.plotly_chart(bars, key="delta_bars", on_select="rerun", selection_mode="points")
st.caption("Click a bar to open that query in the query view above.")
if groups is not None:
    st.markdown(f"**Wins, ties and losses per {md(ctx.settings.group_by)}**")
    st.dataframe(
        pair.by_group(groups).style.format({"mean_delta": "{:+.4f}"}),
        width="stretch",
    )
scatter = ctx.figure(
    [baseline, run],
    ("baseline scatter", label, baseline, run),
    lambda: plots.baseline_scatter(frame, ctx.queries, label, baseline, run),
)
st.plotly_chart(scatter, key="delta_scatter")
st.download_button(
    "Download per-query values (CSV)",
    lambda: export.csv(frame.join(overlap)),
    file_name=ctx.export_name(f"rankviz_deltas_{label}", "csv"),
    mime="text/csv",
)
