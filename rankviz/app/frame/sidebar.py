"""The sidebar every page shares: the collection, its runs and measures, the conventions in force.

Each widget comes from an :class:`~rankviz.settings.options.Option` and keeps its value in the
page's link (:mod:`rankviz.app.widgets.url_state`); the conventions are one table
(:data:`CONVENTIONS`), parsed once into :class:`~rankviz.settings.eval_settings.EvalSettings` over
the collection's defaults (:func:`rankviz.study.opening.collection_settings`, as the command
line's).
"""

from __future__ import annotations

import dataclasses
import functools
from pathlib import Path
from typing import Any

import streamlit as st

from rankviz.app.caches import inputs, shown_collections, uploads
from rankviz.app.caches.cache import file_key, folder_stamp
from rankviz.app.signin import visitors
from rankviz.app.widgets.option_widgets import held, url_option, url_option_held
from rankviz.app.widgets.text import md, message, said
from rankviz.app.widgets.url_state import UrlState
from rankviz.errors import RankvizError
from rankviz.settings import eval_settings as s
from rankviz.settings.eval_settings import EvalSettings
from rankviz.settings.options import Option
from rankviz.settings.tie_policy import POLICIES
from rankviz.study import Collection, Measure, Qrels, QueryGroups, Run, RunsWhenAsked

DEFAULT_COLLECTION = "cranfield"
#: whether the collection in view holds per-query scores alone (the navigation then hides the pages
#: that read rankings), as the frame last found it
SCORES_ONLY = "rankviz.scores_only"
NO_GROUPING = "(none)"
# random orders: the Ties page's
FRAME_TIES = [rule for rule in POLICIES.values() if rule.deterministic]


def scores_only_in_view() -> bool:
    """Whether the collection this run shows holds per-query scores alone: as the frame last found
    it, or on a first visit as the link names it."""
    if SCORES_ONLY in st.session_state:
        return bool(st.session_state[SCORES_ONLY])
    folders = shown_collections.collections()
    name = st.query_params.get("collection")
    if name not in folders:
        name = DEFAULT_COLLECTION if DEFAULT_COLLECTION in folders else next(iter(folders), None)
    try:
        folder = folders[name] if name is not None else None
        return (
            folder is not None and inputs.collection(str(folder), folder_stamp(folder)).scores_only
        )
    except (RankvizError, OSError):  # said when the frame opens it
        return False


def redraw_navigation_for(collection: Collection) -> None:
    """The navigation is drawn before the frame opens the collection: when it was drawn for the
    other kind (runs, or scores alone), the run starts again and draws it for this one."""
    drawn = scores_only_in_view()
    st.session_state[SCORES_ONLY] = collection.scores_only
    if drawn != collection.scores_only:
        st.rerun()


def open_collection(
    url: UrlState,
) -> tuple[str, Path, Collection, Qrels | None, str, RunsWhenAsked, dict[str, str]] | None:
    """The collection the URL chooses, its qrels and runs (read through the caches; None and none
    for a collection of scores alone), or None (said why)."""
    folders = shown_collections.collections()
    names = list(folders)
    if not names and visitors.required():
        st.info(
            message(
                "No collection of this server lists {} in its [access]: ask its owners for a role.",
                visitors.email(),
            )
        )
        return None
    if not names:
        st.error("No collection found: start with `streamlit run app.py -- --data DIR`.")
        return None
    default = DEFAULT_COLLECTION if DEFAULT_COLLECTION in names else names[0]
    chosen = url.choice("collection", names, default)
    key = url.key("collection", "frame", names, value=chosen)
    index = 0 if held(key) else names.index(chosen)
    titles = {n: shown_collections.title(folders[n]) for n in names}
    name = st.sidebar.selectbox(
        "Collection",
        names,
        index=index,
        key=key,
        # collection.toml's name, and the link's when it differs (what a link's collection= says)
        format_func=lambda n: titles[n] if titles[n] == n else f"{titles[n]} ({n})",
    )
    folder = folders[name]
    try:
        collection = inputs.collection(str(folder), folder_stamp(folder))
        redraw_navigation_for(collection)
        # where its files are (an irds:ID dataset's: its qrels in the disk store)
        folder = collection.path
        qrels_path = collection.qrels_path
        if collection.scores_only or qrels_path is None:  # the scores' frame reads its files
            st.sidebar.caption(md(collection.config.description or folder.name))
            return name, folder, collection, None, "", RunsWhenAsked(), {}
        qrels_key = file_key(qrels_path)
        qrels, qrels_key = inputs.with_beside(
            collection, inputs.qrels_file(qrels_key, str(qrels_path)), qrels_key
        )
        run_keys = {n: file_key(p) for n, p in collection.run_paths.items()}
        runs = RunsWhenAsked()
        for n, p in collection.run_paths.items():
            runs.add(n, functools.partial(inputs.run_file, run_keys[n], str(p), n))
    except (RankvizError, OSError) as exc:
        shown_collections.cannot_open(name, folder, said(exc))
        return None
    st.sidebar.caption(md(collection.config.description or folder.name))
    if collection.outside:
        st.warning(
            message(
                "Not served, as they link outside the collection folder: {}",
                ", ".join(collection.outside),
            )
        )
    return name, folder, collection, qrels, qrels_key, runs, run_keys


def add_uploads(
    runs: RunsWhenAsked, run_keys: dict[str, str]
) -> tuple[tuple[str, Qrels] | None, list[str], list[Measure]]:
    """The session's uploaded runs joined to the collection's (renamed where a name is taken); the
    uploaded qrels if any, the runs uploaded in this rerun, and the scores uploaded."""
    uploaded_runs, uploaded_qrels, fresh, notes, scores = uploads.uploads()
    new_uploads = []
    for key, run in uploaded_runs:
        run_name = run.name if run.name not in runs else f"{run.name} (upload)"
        named = run if run_name == run.name else dataclasses.replace(run, name=run_name)
        runs.add(run_name, functools.partial(_given, named))
        run_keys[run_name] = key
        if key in fresh:
            new_uploads.append(run_name)
    for kind, text in notes:
        (st.success if kind == "success" else st.error)(text)
    return uploaded_qrels, new_uploads, scores


def _given(run: Run) -> Run:
    return run


def choose_group(url: UrlState, groups: QueryGroups | None) -> str:
    group_options = [NO_GROUPING, *(groups.columns if groups else [])]
    current = url.choice("group_by", group_options, NO_GROUPING)
    key = url.key("group_by", "frame", group_options, value=current)
    return st.sidebar.selectbox(
        s.GROUP_BY.title,
        group_options,
        index=0 if held(key) else group_options.index(current),
        help="A query attribute of the collection (query_groups.tsv, queries.tsv columns, "
        "topic_turn ids), or the meeting's tags (tag).",
        key=key,
    )


#: The conventions the sidebar offers, in its order, and how each widget is drawn; ``per
#: collection``: its default is the collection's (collection.toml), so its widget is the
#: collection's.
CONVENTIONS: tuple[tuple[Option, dict[str, Any]], ...] = (
    (s.REL, {"per collection": True}),
    (s.GAIN, {}),
    (s.GMAX, {"per collection": True}),
    (s.TIES, {"choices": FRAME_TIES}),  # random orders: the Ties page's
    (s.MISSING, {"horizontal": False}),
)
#: In "Documents that count", folded away unless the link sets one.
COUNTED = (s.DEPTH, s.IGNORE_IDENTICAL_IDS)


def choose_conventions(url: UrlState, name: str, base: EvalSettings) -> dict[str, Any]:
    """The value of every convention the sidebar offers (:data:`CONVENTIONS`, :data:`COUNTED`), by
    option name; ``base``: the collection's defaults. The conventions are folded behind one line
    that says which are not trec_eval's (open while one is not)."""
    unlike = _unlike_trec_eval(url, name, base)
    box = st.sidebar.expander(
        "Conventions: " + ("; ".join(unlike) if unlike else "trec_eval's"), expanded=bool(unlike)
    )
    values: dict[str, Any] = {}
    for option, drawn in CONVENTIONS:
        extra = {key: value for key, value in drawn.items() if key != "per collection"}
        context = (name,) if drawn.get("per collection") else ()
        default = getattr(base, option.name)
        values[option.name] = url_option(
            url, box, option, "frame", default=default, context=context, **extra
        )
    given = any(url.raw(option.name) is not None for option in COUNTED)
    counted = st.sidebar.expander("Documents that count", expanded=given)
    for option in COUNTED:
        values[option.name] = url_option(url, counted, option, "frame")
    return values


def _unlike_trec_eval(url: UrlState, name: str, base: EvalSettings) -> list[str]:
    """Each convention of :data:`CONVENTIONS` its widget will hold (:func:`url_option_held`) that
    is not trec_eval's, as ``label value``."""
    trec_eval = EvalSettings()
    unlike = []
    for option, drawn in CONVENTIONS:
        context = (name,) if drawn.get("per collection") else ()
        value = url_option_held(
            url, option, "frame", default=getattr(base, option.name), context=context
        )
        if value != getattr(trec_eval, option.name):
            unlike.append(f"{option.label.lower()} {value}")
    return unlike


def link_values(values: dict[str, Any]) -> dict[str, Any]:
    """The conventions as the link writes them: a switch on as ``1``, off (or no value) left out."""
    options = {option.name: option for option, _ in CONVENTIONS} | {o.name: o for o in COUNTED}
    return {
        name: ("1" if value else None) if options[name].kind is bool else value
        for name, value in values.items()
    }
