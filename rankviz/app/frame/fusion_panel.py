"""The sidebar's "Add a fused run": runs of the frame fused (RRF, CombSUM, CombMNZ, BordaFuse) into
a run named by its recipe, which joins the session's runs as an upload does (kept on every page
until removed; :mod:`rankviz.study.fusing`)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import streamlit as st

from rankviz.app.caches import uploads
from rankviz.app.widgets.text import md
from rankviz.errors import RankvizError
from rankviz.study import Run
from rankviz.study.fusing import METHODS, NORMS, Recipe, fused_run, trec_text


def add_fused_run(runs: Mapping[str, Run], names: list[str]) -> None:
    with st.sidebar.expander("Add a fused run"):
        chosen = st.multiselect("Runs to fuse", names, key="fuse.runs")
        method = st.radio("Method", METHODS, horizontal=True, key="fuse.method")
        k = st.number_input("RRF's k", 0, 10_000, 60, key="fuse.k") if method == "rrf" else 60
        scored = method in ("combsum", "combmnz")
        norm = (
            st.radio("Normalisation", NORMS, horizontal=True, key="fuse.norm")
            if scored
            else "minmax"
        )
        st.caption(
            "Each query keeps as many documents as the deepest of the runs fused ranks, so the "
            "fused run is no deeper than its runs (and sets off no depth warning of its own)."
        )
        if st.button("Add the fused run", disabled=len(chosen) < 2, key="fuse.add"):
            inputs = [runs[n] for n in chosen]
            try:
                run = fused_run(inputs, Recipe(method, int(k), norm), depth=deepest(inputs))
            except RankvizError as exc:
                st.error(md(exc))
                return
            uploads.keep_run(f"{run.name}.run", trec_text(run).encode())
            st.rerun()


def deepest(runs: list[Run]) -> int:
    """The most documents any of ``runs`` ranks for one query: a fused run keeps that many a
    query (the union of its runs' rankings would be deeper than any of them)."""
    return max(int(np.bincount(run.qid_codes).max(initial=0)) for run in runs)
