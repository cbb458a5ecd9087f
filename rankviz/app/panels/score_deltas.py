"""The Per-query deltas page of a collection of per-query scores alone: the queries where two runs'
scores differ most, each with both runs' answers when the file carries them, and every query's
delta. (With runs, the page also shows the two rankings, the documents and the judgments.)"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from rankviz.app.frame.context import Context
from rankviz.app.panels.pair_views import every_query
from rankviz.app.panels.scored_answers import answers_panel
from rankviz.app.widgets import page_options as app_options
from rankviz.app.widgets.option_widgets import url_option, widget_key
from rankviz.app.widgets.text import md, message
from rankviz.study import Measure, PairDeltas

#: scores alone have no rankings to overlap
NO_OVERLAP = pd.Series(dtype=float, name="rbo")


def scores_page(ctx: Context, pair: PairDeltas, measure: Measure) -> None:
    """The rest of the page for scores alone (below the wins, ties and losses)."""
    baseline, run, label = pair.baseline, pair.run, str(measure)
    frame = pair.frame
    st.subheader("Discussion queue")
    per_reason = url_option(ctx.url, st.columns([1, 3])[0], app_options.QUEUE, "deltas")
    queue = pair.queue(NO_OVERLAP, per_reason=int(per_reason))
    table = queue.assign(query=[ctx.queries.get(q, "") for q in queue.index])
    picked = st.dataframe(
        table[["why", "query", "baseline", "run", "delta"]].style.format(
            {"baseline": "{:.4f}", "run": "{:.4f}", "delta": "{:+.4f}"}
        ),
        width="stretch",
        on_select="rerun",
        selection_mode="single-row",
        key=f"score queue:{baseline}:{run}:{label}",
        column_config={
            "baseline": st.column_config.NumberColumn(baseline),
            "run": st.column_config.NumberColumn(run),
        },
    )
    st.caption(
        "The largest losses and gains of the run against the baseline. Click a row to read the "
        "query's answers below."
    )
    qids = list(frame.index)
    rows = picked.selection.rows if picked else []
    initial = ctx.url.choice("query", qids, queue.index[0] if len(queue) else qids[0])
    query_key = ctx.url.keyed("query", widget_key("deltas.query", baseline, run, qids), initial)
    if rows and st.session_state.get("deltas.queue_opened") != queue.index[rows[0]]:
        st.session_state["deltas.queue_opened"] = queue.index[rows[0]]
        st.session_state[query_key] = queue.index[rows[0]]
    if st.session_state.get(query_key) not in qids:
        st.session_state[query_key] = initial
    st.subheader("Query view")
    labels = {
        q: f"{q}: {ctx.queries.get(q, '')[:80]}  ({d:+.3f})"
        for q, d in zip(qids, frame["delta"], strict=True)
    }
    query = st.selectbox("Query", qids, format_func=labels.__getitem__, key=query_key)
    ctx.url.write(query=query)
    text = ctx.queries.get(query, "")
    st.markdown(
        (f"**{md(text)}**  \n" if text else "")
        + message(
            "{}: {} {}, {} {}, delta {}",
            label,
            baseline,
            f"{frame.loc[query, 'baseline']:.4f}",
            run,
            f"{frame.loc[query, 'run']:.4f}",
            f"{frame.loc[query, 'delta']:+.4f}",
        )
    )
    answers_panel(measure, baseline, run, query)
    every_query(ctx, pair, NO_OVERLAP, label)
