"""Across collections: the same runs on several collections against a baseline, per collection and
pooled (random effects), with a forest plot per run."""

import functools

import streamlit as st

from rankviz import plots
from rankviz.app.caches import inputs, shown_collections
from rankviz.app.caches.cache import folder_stamp
from rankviz.app.frame.page_frame import open_plain_page
from rankviz.app.panels import across_rows
from rankviz.app.widgets.option_widgets import held, option_input
from rankviz.app.widgets.text import md, message, said
from rankviz.errors import RankvizError
from rankviz.plots import export
from rankviz.settings.report_settings import STANDARDISED
from rankviz.settings.significance_settings import CONFIDENCE
from rankviz.study import served

#: Column headers in words (the CSV downloads keep the names the command line prints).
HEADERS = {
    "delta": st.column_config.NumberColumn("delta (run - baseline)", format="%+.4f"),
    "ci_low": st.column_config.NumberColumn("interval from", format="%+.4f"),
    "ci_high": st.column_config.NumberColumn("interval to", format="%+.4f"),
    "n": st.column_config.NumberColumn("queries", help="queries both runs answer"),
    "mean": st.column_config.NumberColumn("run's mean", format="%.4f"),
    "baseline_mean": st.column_config.NumberColumn("baseline's mean", format="%.4f"),
    "k": st.column_config.NumberColumn("collections"),
    "wins": st.column_config.NumberColumn("wins", help="collections where the run is ahead"),
    "ties": st.column_config.NumberColumn("ties", help="collections where the delta is 0"),
    "losses": st.column_config.NumberColumn("losses", help="collections where the run is behind"),
    "tau2": st.column_config.NumberColumn(
        "between-collection variance", format="%.2g", help="tau squared (DerSimonian-Laird)"
    ),
    "i2": st.column_config.NumberColumn(
        "share of spread between collections", format="percent", help="I squared"
    ),
    "q": st.column_config.NumberColumn("heterogeneity Q", format="%.3g"),
    "mean_rank": st.column_config.NumberColumn("mean rank", format="%.2f"),
    "borda": st.column_config.NumberColumn("Borda count"),
}

url = open_plain_page("across")
st.header("Across collections")
folders = shown_collections.collections()
runs = {}
for name, folder in folders.items():
    try:
        runs[name] = list(inputs.collection(str(folder), folder_stamp(folder)).run_paths)
    except (RankvizError, OSError) as exc:
        shown_collections.cannot_open(name, folder, said(exc), say=st.warning)
usable = [name for name, found in runs.items() if len(found) >= 2]
if len(usable) < 2:
    st.info(
        "Open two or more collections with two or more runs each (`--data DIR` for each) to "
        "compare runs across them."
    )
    st.stop()
chosen = url.choices("collections", usable, usable)
collections_key = url.key("collections", "across", usable, value=chosen)
chosen = st.multiselect(
    "Collections", usable, default=None if held(collections_key) else chosen, key=collections_key
)
if len(chosen) < 2:
    st.warning("Choose two or more collections.")
    st.stop()
left, middle, right = st.columns(3)
offered = list(dict.fromkeys(["nDCG@10", "AP", "RR", "RR@10", "P@10", "R@100", "ERR@20", "nDCG"]))
measure = url.choice("across_measure", offered, offered[0])
measure_key = url.key("across_measure", "across", value=measure)
measure = left.selectbox(
    "Measure",
    offered,
    index=0 if held(measure_key) else offered.index(measure),
    key=measure_key,
    help="computed in each collection with its own conventions (relevance threshold, gmax)",
)
named_alike = across_rows.matched_rows({name: runs[name] for name in chosen})
unasked = str(min(max(named_alike - 1, 0), across_rows.MOST_COMPARED))
compared = int(
    url.choice("compared", [str(n) for n in range(across_rows.MOST_COMPARED + 1)], unasked)
)
compared = middle.number_input(
    "Runs compared with the baseline",
    0,
    across_rows.MOST_COMPARED,
    help="Rows whose runs share a name in every collection are compared unasked; add rows to "
    "pair other runs, choosing each collection's run below.",
    value=1 if held(compared_key := url.key("compared", "across", value=compared)) else compared,
    key=compared_key,
)
standardised = url.option(STANDARDISED)
standardised = option_input(
    right, STANDARDISED, standardised, key=url.key("standardised", "across", value=standardised)
)
level = url.option(CONFIDENCE)
rows = ["baseline", *(f"run {i}" for i in range(1, compared + 1))]
st.markdown(
    "**Which run of each collection fills each row** (collections name their runs their own way)"
)
guesses = across_rows.default_rows({name: runs[name] for name in chosen}, len(rows))
columns = st.columns(len(chosen))
choices: dict[str, list[str]] = {}
for column, name in zip(columns, chosen, strict=True):
    column.caption(md(name))
    param = f"rows.{name}"
    # a run in two rows: said plainly below
    given = url.choices(param, runs[name], guesses[name], repeats=True)
    given = (given + [r for r in guesses[name] if r not in given])[: len(rows)]
    picks = []
    for i, row in enumerate(rows):
        pick = given[i] if i < len(given) else runs[name][0]
        pick_key = url.key(param, "across", name, row, value=pick)
        index = 0 if held(pick_key) else runs[name].index(pick)
        picks.append(column.selectbox(row, runs[name], index=index, key=pick_key))
    choices[name] = picks
url.write(
    collections=chosen,
    across_measure=measure,
    compared=compared,
    standardised="1" if standardised else None,
    **{f"rows.{name}": picks for name, picks in choices.items()},
)
if compared == 0:
    st.info(
        message(
            "No run besides {} shares a name in every chosen collection, so nothing is pooled "
            "unasked. Raise 'Runs compared with the baseline' and choose each collection's run "
            "for the row: the collections then pool the runs you pair.",
            " / ".join(dict.fromkeys(choices[name][0] for name in chosen)),
        )
    )
    st.stop()
try:
    with st.spinner("Evaluating the runs on every collection…"):
        result = across_rows.summary(
            {name: folders[name] for name in chosen},
            choices,
            measure,
            standardised=standardised,
            level=level,
        )
except RankvizError as exc:
    text = said(exc)
    for name in chosen:
        text = served.served_text(text, folders[name])
    st.error(message("No summary: {}", text))
    st.stop()
frames = result.to_frames()
st.subheader("Per collection")
per_collection = frames["collections"].drop(columns=["variance", "measure_here"])
shown = ["collection", "run", "measure", "delta", "ci_low", "ci_high", "n", "mean", "baseline_mean"]
st.dataframe(
    per_collection[[*shown, "conventions"]], hide_index=True, width="stretch", column_config=HEADERS
)
st.subheader("Pooled over the collections")
pooled_columns = ["run", "measure", "delta", "ci_low", "ci_high", "k", "wins", "ties", "losses"]
pooled_columns += ["tau2", "i2", "q", "mean_rank", "borda"]
st.dataframe(
    frames["pooled"][pooled_columns], hide_index=True, width="stretch", column_config=HEADERS
)
for line in result.describe():
    st.caption(md(line))
for row in frames["pooled"].itertuples(index=False):
    part = frames["collections"][
        (frames["collections"]["run"] == row.run)
        & (frames["collections"]["measure"] == row.measure)
    ]
    st.plotly_chart(
        plots.collections_forest(part, row._asdict(), row.run, row.measure, result.baseline),
        key=f"forest:{row.run}",
    )
left, right = st.columns(2)
left.download_button(
    "Download per collection (CSV)",
    functools.partial(export.csv, per_collection, index=False),
    file_name="rankviz_across_collections.csv",
    mime="text/csv",
)
right.download_button(
    "Download pooled (CSV)",
    functools.partial(export.csv, frames["pooled"], index=False),
    file_name="rankviz_pooled.csv",
    mime="text/csv",
)
