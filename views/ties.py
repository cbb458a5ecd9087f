"""Ties: how much each run's values depend on the order of documents with equal scores."""

import streamlit as st

import app_support as support
from rankviz import plots, ties

ctx = support.context()
st.header("Ties")
tables = ctx.tables(ties="trec_eval")
stats = ties.statistics_table(tables, ctx.k)
st.dataframe(stats.style.format({c: "{:.1%}" for c in stats.columns if c.startswith("share")}), width="stretch")

measure_names = [str(m) for m in ctx.measures]
c1, c2, c3 = st.columns([2, 1, 1])
measure_name = support.url_selectbox(ctx, c1, "Measure", measure_names, "measure", "ties")
trials = c2.number_input(
    "Random orders (0: none)", 0, 2000, ctx.url.integer("trials", 0, 2000, 0), step=50, key=support.widget_key("ties.trials")
)
seed = c3.number_input("Seed", 0, 2**31 - 1, ctx.url.integer("seed", 0, 2**31 - 1, 0), key=support.widget_key("ties.seed"))
ctx.url.write(measure=measure_name, trials=trials, seed=seed)
measure = ctx.measures[measure_names.index(measure_name)]

matrices = {policy: ctx.matrix(measure, ties=policy) for policy in ties.REPORT_POLICIES}
means = ties.interval(matrices, aggregate=ctx.aggregate, groups=ctx.group_of(matrices["trec_eval"].index), weights=ctx.weights)
if trials:
    trial_means = support.random_trial_means(
        tuple(tables.values()),
        measure_name,
        ctx.missing,
        trials,
        seed,
        ctx.aggregate,
        ctx.group_of(matrices["trec_eval"].index),
        ctx.weights,
    )
    means = ties.with_random(means, trial_means)
st.dataframe(means.style.format("{:.4f}"), width="stretch")
st.plotly_chart(plots.tie_intervals(means, measure_name), key="tie_intervals")
st.download_button("Download values per tie policy (CSV)", means.to_csv().encode(), file_name="rankviz_ties.csv", mime="text/csv")
st.caption(
    "pessimistic / optimistic: relevant documents last / first among equal scores, the bounds of every order; "
    "trec_eval: docid descending; run: the file's rank column; expected: the exact mean over all orders; "
    "random: the mean of the drawn orders, with its standard deviation over them."
)

st.subheader("Can ties change which run is better?")
flips = ties.order_flips(means)
risky = flips[flips["flips_between_policies"] | flips["can_flip"]]
if flips.empty:
    st.info("Choose two or more runs to compare their order.")
elif risky.empty:
    st.success(f"No pair of runs can swap places on {measure_name}, whatever the order of equal scores.")
else:
    st.warning(f"{len(risky)} of {len(flips)} pairs of runs can swap places on {measure_name} depending on the tie order.")
    st.dataframe(risky, width="stretch", hide_index=True)

st.subheader("Can ties change a significance verdict?")
if len(ctx.selected) > 1:
    settings = support.significance_settings(ctx)
    changes = support.verdict_changes(matrices, measure_name, settings)
    changed = changes[changes["changes"]]
    if changed.empty:
        st.success(f"Every verdict against {settings.baseline} is the same under every tie policy.")
    else:
        st.warning(f"{len(changed)} run(s) get a different verdict against {settings.baseline} depending on the tie order.")
    st.dataframe(changes, width="stretch")
    st.caption(f"{settings.describe()} (set on the Significance page).")
else:
    st.info("Choose two or more runs to test them against a baseline.")

st.subheader("Queries that move most with the tie order")
run = support.url_selectbox(ctx, st, "Run", ctx.selected, "tie_run", "ties")
ctx.url.write(tie_run=run)
moving = ties.sensitive_queries(matrices, run, limit=20)
if moving.empty:
    st.success(f"No query of {run} changes its {measure_name} with the tie order.")
else:
    moving.insert(0, "query", [ctx.queries.get(q, "") for q in moving.index])
    others = [n for n in ctx.selected if n != run]
    config = {}
    if others:
        moving["open"] = [
            ctx.url.link("deltas", query=q, run=run, baseline=others[0], measure=measure_name) for q in moving.index
        ]
        config["open"] = st.column_config.LinkColumn("Query view", display_text="open")
    st.dataframe(moving, width="stretch", column_config=config)
    st.caption("width = optimistic - pessimistic. The query view (per-query deltas page) needs a second run as baseline.")
