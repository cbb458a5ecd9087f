"""The frame of a collection of per-query scores alone (``scores.*`` or ``scores/``, no runs/): its
runs and scores, how a query without a score counts, the groups; the study is a
:class:`~rankviz.study.study.Study` of scores alone, read once per content of the files.

The conventions of rankings (relevance threshold, gain, ties, depth) have nothing to act on, so the
sidebar does not offer them; the pages that read rankings or qrels say so in one line
(:func:`needs_rankings`).
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from rankviz import plots
from rankviz.app.caches import shown_collections
from rankviz.app.caches.cache import SHARED, folder_stamp
from rankviz.app.frame import sidebar
from rankviz.app.frame.context import Context
from rankviz.app.widgets import page_options as app_options
from rankviz.app.widgets.option_widgets import held, url_option
from rankviz.app.widgets.text import said
from rankviz.app.widgets.url_state import UrlState
from rankviz.errors import RankvizError
from rankviz.settings import eval_settings as s
from rankviz.settings import report_settings as r
from rankviz.study import Collection, Study, StudyRequest


def scores_study(
    collection: Collection, stamp: tuple, missing: str, aggregate: str, group_by: str | None
) -> Study:
    """The collection's scores as a study under ``missing``, ``aggregate`` and ``group_by`` (the
    settings that change its numbers), shared by every session while its files stay as they are
    (``stamp``: the folder's)."""
    key = ("scores study", str(collection.path), stamp, missing, aggregate, group_by)
    request = StudyRequest(
        collection, options={"missing": missing, "group_by": group_by}, aggregate=aggregate
    )

    def opened() -> Study:
        study = Study.open(request)
        assert not study.ranked, "a collection of scores alone opens a study of scores"
        return study

    return SHARED.get(key, opened)


def scores_frame(url: UrlState, name: str, folder: Path, collection: Collection) -> Context | None:
    """The sidebar of a collection of scores alone, and the context it decides (None: said why)."""
    stamp = folder_stamp(folder)  # once a rerun: what every cache of the frame keys on
    missing = url_option(url, st.sidebar, s.MISSING, "frame", horizontal=False)
    group_by = sidebar.choose_group(url, collection.groups)
    grouped = group_by != sidebar.NO_GROUPING
    has_weights = collection.weights is not None
    aggregates = ["query", *(["macro"] if grouped else []), *(["weights"] if has_weights else [])]
    aggregate = url_option(
        url, st.sidebar, s.AGGREGATE, "frame", choices=aggregates, context=(aggregates,)
    )
    try:
        whole = scores_study(collection, stamp, missing, aggregate, group_by if grouped else None)
    except RankvizError as exc:  # a file of scores that breaks its form: its line, no traceback
        shown_collections.cannot_open(name, folder, said(exc))
        return None
    run_names = whole.run_names
    measure_names = [str(m) for m in whole.measures]
    chosen_runs = url.choices("runs", run_names, run_names)
    runs_key = url.key("runs", "frame", name, run_names, value=chosen_runs)
    selected = st.sidebar.multiselect(
        "Runs", run_names, default=None if held(runs_key) else chosen_runs, key=runs_key
    )
    chosen = url.choices("measures", measure_names, measure_names)
    measures_key = url.key("measures", "frame", name, measure_names, value=chosen)
    picked = st.sidebar.multiselect(
        "Scores",
        measure_names,
        default=None if held(measures_key) else chosen,
        help="The per-query scores of the collection's files (docs/scores.md)",
        key=measures_key,
    )
    present = url_option(url, st.sidebar, app_options.PRESENT, "frame")
    url.write(
        collection=name,
        runs=selected,
        measures=picked,
        missing=missing,
        group_by=group_by,
        aggregate=aggregate,
        present="1" if present else None,
    )
    if not selected or not picked:
        st.warning("Choose at least one run and one score in the sidebar.")
        return None
    measures = [whole.measures[measure_names.index(m)] for m in picked]
    return Context(
        opened=whole,
        qrels_key=f"scores:{folder}:{stamp}",
        run_keys={n: f"scores:{n}" for n in run_names},
        selected=selected,
        measure_names=picked,
        measures=measures,
        k=r.K.default,
        url=url,
        collection=collection,
        settings=whole.settings,
        queries=collection.queries,
        grouping=f"scores:{folder}:{stamp}",
        colours=plots.run_colours(run_names),
        present=present,
    )


def needs_rankings(ctx: Context, what: str) -> None:
    """On a page that reads rankings or qrels: with scores alone, one line that says so, and the
    page stops."""
    if ctx.ranked:
        return
    from rankviz.app.frame.pages import PAGES

    working = [p.title for p in PAGES if p.framed and not p.needs_rankings]
    st.info(
        f"{what} needs the runs' rankings and qrels; {ctx.collection_name} holds per-query scores "
        f"only. The pages listed in the navigation work on them: {', '.join(working)}."
    )
    st.stop()
