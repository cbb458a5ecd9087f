"""rankviz dashboard: the frame (data, runs, measures, conventions) and the page navigation.

    streamlit run app.py [-- --data DIR [--data DIR ...]]
"""

from __future__ import annotations

import argparse
import dataclasses
import sys

import streamlit as st

import app_support as support
from rankviz.errors import RankvizError
from rankviz.ranking import TIE_POLICIES

st.set_page_config(page_title="rankviz", layout="wide")


def _data_dirs() -> list[str]:
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--data", action="append", default=[])
    known, _ = parser.parse_known_args(sys.argv[1:])
    return known.data


def _uploads(url: support.UrlState) -> tuple[list, object]:
    with st.sidebar.expander("Add your own runs and qrels"):
        st.caption("TREC run or qrels files, .gz, CSV, TSV or Parquet. Uploaded runs join the runs of the collection.")
        run_files = st.file_uploader("Runs", accept_multiple_files=True, key="upload_runs")
        qrels_file = st.file_uploader("Qrels (replace the collection's)", key="upload_qrels")
    runs, qrels = [], None
    for upload in run_files or []:
        data = upload.getvalue()
        if len(data) > support.max_upload_bytes():
            st.sidebar.error(f"{upload.name}: larger than the upload limit of {support.max_upload_bytes() // 2**20} MB.")
            continue
        try:
            runs.append(support.load_upload(support.upload_digest(data), data, upload.name, "run"))
        except RankvizError as exc:
            st.sidebar.error(f"Run not loaded: {exc}")
    if qrels_file is not None:
        data = qrels_file.getvalue()
        try:
            qrels = support.load_upload(support.upload_digest(data), data, qrels_file.name, "qrels")
        except RankvizError as exc:
            st.sidebar.error(f"Qrels not loaded: {exc}")
    return runs, qrels


def frame() -> support.Context | None:
    url = support.UrlState()
    st.sidebar.title("rankviz")
    folders = support.collection_folders(_data_dirs())
    names = list(folders)
    if not names:
        st.error("No collection found: start with `streamlit run app.py -- --data DIR`.")
        return None
    default = support.DEFAULT_COLLECTION if support.DEFAULT_COLLECTION in names else names[0]
    chosen = url.choice("collection", names, default)
    name = st.sidebar.selectbox("Collection", names, index=names.index(chosen))
    try:
        collection = support.load_collection(str(folders[name]), support.stamp(folders[name]))
        qrels = support.load_qrels_file(str(collection.qrels_path), support.stamp(collection.qrels_path))
        runs = {n: support.load_run_file(str(p), n, support.stamp(p)) for n, p in collection.run_paths.items()}
    except RankvizError as exc:
        st.error(f"The collection {name!r} cannot be opened: {exc}")
        return None
    st.sidebar.caption(collection.config.description or str(folders[name]))
    uploaded_runs, uploaded_qrels = _uploads(url)
    for run in uploaded_runs:
        run_name = run.name if run.name not in runs else f"{run.name} (upload)"
        runs[run_name] = run if run_name == run.name else dataclasses.replace(run, name=run_name)
    if uploaded_qrels is not None:
        qrels = uploaded_qrels

    run_names = list(runs)
    selected = st.sidebar.multiselect("Runs", run_names, default=url.choices("runs", run_names, run_names))
    measure_choices = st.sidebar.multiselect(
        "Measures", support.MEASURE_CHOICES, default=url.choices("measures", list(support.MEASURE_CHOICES), list(support.DEFAULT_MEASURES))
    )
    k = st.sidebar.number_input("K (cutoff)", 1, 1000, url.integer("k", 1, 1000, 10))
    rel = st.sidebar.number_input("Relevant from grade", 1, 10, url.integer("rel", 1, 10, collection.config.rel),
                                  help="Binary measures (MRR, Hits, MAP, P, R) count grade >= this as relevant.")
    gain = st.sidebar.radio("nDCG gain", ["linear", "exp"], index=["linear", "exp"].index(url.choice("gain", ["linear", "exp"], "linear")),
                            horizontal=True, help="linear: the grade (trec_eval); exp: 2^grade - 1 (gdeval)")
    gmax = st.sidebar.number_input("ERR gmax", 1, 10, url.integer("gmax", 1, 10, collection.config.gmax))
    ties = st.sidebar.selectbox("Tie policy", TIE_POLICIES, index=TIE_POLICIES.index(url.choice("ties", list(TIE_POLICIES), "trec_eval")))
    missing = st.sidebar.selectbox("Queries missing from a run", ["zero", "skip"],
                                   index=["zero", "skip"].index(url.choice("missing", ["zero", "skip"], "zero")),
                                   format_func=lambda v: {"zero": "score 0 (trec_eval -c)", "skip": "leave out of the mean"}[v])
    url.write(collection=name, runs=selected, measures=measure_choices, k=k, rel=rel, gain=gain, gmax=gmax, ties=ties, missing=missing)
    if len(selected) < 1 or not measure_choices:
        st.warning("Choose at least one run and one measure in the sidebar.")
        return None
    measures = [support.build_measure(c, k=int(k), rel=int(rel), gain=gain, gmax=int(gmax)) for c in measure_choices]
    try:
        ctx = support.Context(
            collection_name=collection.config.name, qrels=qrels, runs=runs, selected=selected, measures=measures,
            k=int(k), rel=int(rel), gain=gain, gmax=int(gmax), ties=ties, missing=missing,
            queries=collection.queries if uploaded_qrels is None else {}, collection=collection, url=url,
        )
    except RankvizError as exc:
        st.error(str(exc))
        return None
    return ctx


ctx = frame()
pages = [
    st.Page("pages/overview.py", title="Overview", default=True),
    st.Page("pages/deltas.py", title="Per-query deltas"),
    st.Page("pages/histograms.py", title="Rank histograms"),
    st.Page("pages/ties.py", title="Ties"),
]
navigation = st.navigation(pages)
if ctx is not None:
    st.session_state["rankviz_context"] = ctx
    for warning in ctx.url.warnings:
        st.warning(warning)
    st.caption(f"**{ctx.collection_name}** · " + " · ".join(ctx.conventions()))
    try:
        navigation.run()
    except RankvizError as exc:
        st.error(str(exc))
