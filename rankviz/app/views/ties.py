"""Ties: how much each run's values depend on the order of documents with equal scores."""

import functools

import streamlit as st

from rankviz import plots
from rankviz.app.caches.compute import PASS_WORKERS
from rankviz.app.frame.page_frame import open_page
from rankviz.app.widgets.number_tables import PAIR_HEADERS
from rankviz.app.widgets.option_widgets import url_option, url_selectbox
from rankviz.app.widgets.text import md
from rankviz.plots import export
from rankviz.settings import eval_settings as s
from rankviz.settings import report_settings as r
from rankviz.study import TIE_REPORT

ctx = open_page("ties")
st.header("Ties")
st.markdown(
    "When a run gives several documents of a query the same score, their order is arbitrary, yet "
    "every measure reads the order: trec_eval breaks the tie by docid, another tool by file order. "
    "**Tie sensitivity** is how far a run's numbers move over the orders its ties allow: from the "
    "pessimistic order (relevant documents last among equal scores) to the optimistic one (first). "
    "A wide interval means the run's number says as much about docids as about the run; a pair of "
    "runs whose intervals overlap can swap places by tie order alone."
)
stats_slot = st.empty()
c1, c2, c3 = st.columns([2, 1, 1])
measure_name = url_selectbox(
    ctx,
    c1,
    "Measure",
    ctx.measure_names,
    "measure",
    "ties",
    format_func=lambda m: str(ctx.measure(m)),
)
trials = url_option(ctx.url, c2, r.TIE_TRIALS, "ties", label="Random orders (0: none)")
seed = url_option(ctx.url, c3, s.SEED, "ties", default=0, param="tie_seed")
ctx.url.write(measure=measure_name, trials=trials or None, tie_seed=seed or None)
label = str(ctx.measure(measure_name))
report = ctx.counted(len(ctx.selected), "Runs under every tie order").ask(
    TIE_REPORT,
    ctx.test_settings(),
    r.TieReportSettings(k=ctx.k, trials=int(trials)),
    rng=int(seed),
    runs_at_once=PASS_WORKERS,
)
stats = report.statistics
stats_slot.dataframe(
    stats.style.format({c: "{:.1%}" for c in stats.columns if c.startswith("share")}),
    width="stretch",
)
section = report.sections[label]
means = section.means
st.dataframe(means.style.format("{:.4f}"), width="stretch")
st.plotly_chart(plots.tie_intervals(means, label, ctx.colours), key="tie_intervals")
st.download_button(
    "Download values per tie policy (CSV)",
    functools.partial(export.csv, means),
    file_name=ctx.export_name("rankviz_ties", "csv"),
    mime="text/csv",
)
st.caption(
    "pessimistic / optimistic: relevant documents last / first among equal scores, the bounds of "
    "every order; trec_eval: docid descending; run: the file's rank column; expected: the exact "
    "mean over all orders; random: the mean of the drawn orders, with its standard deviation over "
    "them."
)

st.subheader("Can ties change which run is better?")
flips = section.flips
risky = flips[flips["flips_between_policies"] | flips["can_flip"]]
if flips.empty:
    st.info("Choose two or more runs to compare their order.")
elif risky.empty:
    st.success(
        f"No pair of runs can swap places on {md(label)}, whatever the order of equal scores."
    )
else:
    st.warning(
        f"{len(risky)} of {len(flips)} pairs of runs can swap places on {md(label)} "
        "depending on the tie order."
    )
    st.dataframe(risky, width="stretch", hide_index=True, column_config=PAIR_HEADERS)

st.subheader("Can ties change a significance verdict?")
if len(ctx.selected) > 1:
    tests = ctx.test_settings()
    changes = section.verdicts
    changed = changes[changes["changes"]]
    if changed.empty:
        st.success(
            f"Every verdict against {md(tests.baseline)} is the same under every tie policy."
        )
    else:
        st.warning(
            f"{len(changed)} run(s) get a different verdict against {md(tests.baseline)} "
            "depending on the tie order."
        )
    st.dataframe(changes, width="stretch")
    st.caption(f"{md(tests.describe())} (set on the Significance page).")
else:
    st.info("Choose two or more runs to test them against a baseline.")

st.subheader("Queries that move most with the tie order")
# the run with the most tied queries first
most_tied = sorted(ctx.selected, key=lambda n: -stats.loc[n, "queries with ties"])
run = url_selectbox(ctx, st, "Run", most_tied, "tie_run", "ties")
ctx.url.write(tie_run=run)
moving = section.queries(run, limit=20)
if moving.empty:
    st.success(f"No query of {md(run)} changes its {md(label)} with the tie order.")
else:
    moving.insert(0, "query", [ctx.queries.get(q, "") for q in moving.index])
    others = [n for n in ctx.selected if n != run]
    config = {}
    if others:
        moving["open"] = [
            ctx.url.link("deltas", query=q, run=run, baseline=others[0], measure=measure_name)
            for q in moving.index
        ]
        config["open"] = st.column_config.LinkColumn("Query view", display_text="open")
    st.dataframe(moving, width="stretch", column_config=config)
    st.caption(
        "width = optimistic - pessimistic. The query view (per-query deltas page) needs a "
        "second run as baseline."
    )
