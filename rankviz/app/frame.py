"""The frame: the sidebar every page shares (data, runs, measures, conventions), which decides the
:class:`~rankviz.app.context.Context` a page gets.

Every page opens with :func:`open_page`, which builds the frame itself, so a page is complete
however Streamlit reaches it (through ``st.navigation`` or as the first request of a fresh server).
The sidebar's widgets come from the options of :mod:`rankviz.settings`; their values live in the
URL (:mod:`rankviz.app.state`).
"""

from __future__ import annotations

import dataclasses
import functools
from pathlib import Path

import streamlit as st

from rankviz import plots
from rankviz import settings as s
from rankviz.app import browser, drafts, inputs, kept
from rankviz.app import in_force as qrels_in_force
from rankviz.app import options as app_options
from rankviz.app.cache import environment_problems, file_key, folder_stamp
from rankviz.app.context import Context
from rankviz.app.pages import spec
from rankviz.app.state import UrlState
from rankviz.app.text import md, message
from rankviz.app.widgets import url_option
from rankviz.errors import MeasureError, RankvizError
from rankviz.io.collection import Collection
from rankviz.io.groups import QueryGroups
from rankviz.io.model import Qrels, Run
from rankviz.measures import FAMILIES, parse
from rankviz.settings import EvalSettings
from rankviz.tie_policy import POLICIES

#: Projector mode: larger text, less padding, the page as wide as the screen (our own CSS, no user text;
#: st.html sends a style-only string to the page's head, no markdown with raw HTML allowed anywhere).
PROJECTOR_CSS = """<style>
html, body, [data-testid="stAppViewContainer"] { font-size: 20px !important; }
[data-testid="stMainBlockContainer"] { padding: 4.5rem 1.5rem 1rem !important; max-width: 100% !important; }
h1 { font-size: 2rem; } h2 { font-size: 1.6rem; } h3 { font-size: 1.3rem; }
</style>"""
DEFAULT_COLLECTION = "cranfield"
NO_GROUPING = "(none)"
#: Measures offered besides the collection's: every family, at K where it takes a cutoff.
TEMPLATES = tuple(
    form for f in FAMILIES.values() for form in ((f"{f.name}@K",) if f.cutoff_required else (f.name, f"{f.name}@K"))
)
FRAME_TIES = [name for name, rule in POLICIES.items() if rule.deterministic]  # random orders: the Ties page's


def _missing_runs(names: list[str]) -> str:
    return message(
        "Link parameter runs: {} not in this collection; left out. Runs uploaded in another browser session are not "
        "shared with this one: upload the file here to see it (an uploaded run is named after its file: {}).",
        ", ".join(map(repr, names)),
        " or ".join(f"{name}.txt, {name}.run.gz, ..." for name in names),
    )


def _accept_measure(text: str) -> bool:
    try:
        parse(text.replace("@K", "@10"))
        return True
    except MeasureError:
        return False


def _open_collection(url: UrlState) -> tuple[str, Path, Collection, Qrels, str, inputs.Runs, dict[str, str]] | None:
    """The collection the URL chooses, its qrels and runs (read through the caches), or None (said why)."""
    folders = inputs.collection_folders(inputs.data_dirs())
    names = list(folders)
    if not names:
        st.error("No collection found: start with `streamlit run app.py -- --data DIR`.")
        return None
    default = DEFAULT_COLLECTION if DEFAULT_COLLECTION in names else names[0]
    chosen = url.choice("collection", names, default)
    name = st.sidebar.selectbox("Collection", names, index=names.index(chosen),
                                key=url.key("collection", "frame", names, value=chosen))  # fmt: skip
    folder = folders[name]
    try:
        collection = inputs.collection(str(folder), folder_stamp(folder))
        folder = collection.path  # where its files are (an irds:ID dataset's: its qrels in the disk store)
        qrels_key = file_key(collection.qrels_path)
        qrels = inputs.qrels_file(qrels_key, str(collection.qrels_path))
        run_keys = {n: file_key(p) for n, p in collection.run_paths.items()}
        runs = inputs.Runs()
        for n, p in collection.run_paths.items():
            runs.add(n, functools.partial(inputs.run_file, run_keys[n], str(p), n))
    except (RankvizError, OSError) as exc:
        st.error(message("The collection {} cannot be opened: {}", name, inputs.served_text(str(exc), folder)))
        return None
    st.sidebar.caption(md(collection.config.description or folder.name))
    if collection.outside:
        st.warning(message("Not served, as they link outside the collection folder: {}", ", ".join(collection.outside)))
    return name, folder, collection, qrels, qrels_key, runs, run_keys


def _add_uploads(runs: inputs.Runs, run_keys: dict[str, str]) -> tuple[tuple[str, Qrels] | None, list[str]]:
    """The session's uploaded runs joined to the collection's (renamed where a name is taken); the
    uploaded qrels if any, and the runs uploaded in this rerun."""
    uploaded_runs, uploaded_qrels, fresh, notes = inputs.uploads()
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
    return uploaded_qrels, new_uploads


def _given(run: Run) -> Run:
    return run


def _choose_runs_and_measures(url: UrlState, name: str, collection: Collection, run_names: list[str],
                              new_uploads: list[str]) -> tuple[list[str], list[str]]:  # fmt: skip
    default_runs = url.choices("runs", run_names, run_names, missing=_missing_runs)
    runs_key = url.key("runs", "frame", name, run_names, value=default_runs)
    if new_uploads:  # an upload just made joins the selection at once, and says so
        st.session_state[runs_key] = list(dict.fromkeys([*st.session_state.get(runs_key, default_runs), *new_uploads]))
    selected = st.sidebar.multiselect("Runs", run_names, default=default_runs, key=runs_key)
    offered = list(dict.fromkeys([*collection.config.measures, *TEMPLATES]))
    chosen_measures = url.choices("measures", offered, list(collection.config.measures), accept=_accept_measure)
    measure_names = st.sidebar.multiselect(
        "Measures",
        list(dict.fromkeys([*offered, *chosen_measures])),
        default=chosen_measures,
        accept_new_options=True,
        help="The collection's measures, every family at K, or type one: RR(rel=2)@5, nDCG(gain=exp)@20, ...",
        key=url.key("measures", "frame", name, value=chosen_measures),
    )
    return selected, measure_names


def _choose_group(url: UrlState, groups: QueryGroups | None) -> str:
    group_options = [NO_GROUPING, *(groups.columns if groups else [])]
    current = url.choice("group_by", group_options, NO_GROUPING)
    return st.sidebar.selectbox(
        s.GROUP_BY.title,
        group_options,
        index=group_options.index(current),
        help="A query attribute of the collection (query_groups.tsv, queries.tsv columns, topic_turn ids), or the "
        "meeting's tags (tag).",
        key=url.key("group_by", "frame", group_options, value=current),
    )


def frame(page: str = "") -> Context | None:
    url = UrlState(page)
    st.sidebar.title("rankviz")
    opened = _open_collection(url)
    if opened is None:
        return None
    name, folder, collection, qrels, qrels_key, runs, run_keys = opened
    uploaded_qrels, new_uploads = _add_uploads(runs, run_keys)
    meeting = None
    if uploaded_qrels is not None:
        qrels_key, qrels = uploaded_qrels
    else:
        meeting = qrels_in_force.open_meeting(folder, collection, qrels, qrels_key)
    run_names = list(runs)
    selected, measure_names = _choose_runs_and_measures(url, name, collection, run_names, new_uploads)
    k = url_option(url, st.sidebar, s.K, "frame", label="K (cutoff of the @K measures)")
    base = EvalSettings(rel=collection.config.rel, gmax=collection.config.gmax)
    rel = url_option(url, st.sidebar, s.REL, "frame", default=base.rel, context=(name,))
    gain = url_option(url, st.sidebar, s.GAIN, "frame")
    gmax = url_option(url, st.sidebar, s.GMAX, "frame", default=base.gmax, context=(name,))
    ties = url_option(url, st.sidebar, s.TIES, "frame", choices=FRAME_TIES)  # random: the Ties page's
    missing = url_option(url, st.sidebar, s.MISSING, "frame", horizontal=False)
    cut_given = any(url.raw(option.name) is not None for option in (s.DEPTH, s.IGNORE_IDENTICAL_IDS))
    counted = st.sidebar.expander("Documents that count", expanded=cut_given)
    depth = url_option(url, counted, s.DEPTH, "frame")
    identical = url_option(url, counted, s.IGNORE_IDENTICAL_IDS, "frame")
    groups = collection.groups if uploaded_qrels is None else None
    tag_groups = qrels_in_force.tag_groups(meeting, qrels) if meeting else None
    if tag_groups is not None:
        groups = tag_groups if groups is None else groups.merged(tag_groups)
    group_by = _choose_group(url, groups)
    weights = collection.weights.to_dict() if collection.weights is not None and uploaded_qrels is None else None
    aggregates = ["query", *(["macro"] if group_by != NO_GROUPING else []), *(["weights"] if weights is not None else [])]
    aggregate = url_option(url, st.sidebar, s.AGGREGATE, "frame", choices=aggregates, context=(aggregates,), horizontal=False)
    if meeting is not None:
        qrels, qrels_key = qrels_in_force.choose(url, collection, meeting)
    present = url_option(url, st.sidebar, app_options.PRESENT, "frame")
    url.write(collection=name, runs=selected, measures=measure_names, k=k, rel=rel, gain=gain, gmax=gmax, ties=ties,
              missing=missing, group_by=group_by, aggregate=aggregate, present="1" if present else None,
              depth=depth, ignore_identical_ids="1" if identical else None,
              qrels=meeting.mode if meeting and meeting.mode != meeting.default_mode else None)  # fmt: skip
    if len(selected) < 1 or not measure_names:
        st.warning("Choose at least one run and one measure in the sidebar.")
        return None
    try:
        settings = EvalSettings(ties=ties, missing=missing, rel=int(rel), gain=gain, gmax=int(gmax), aggregate=aggregate,
                                group_by=None if group_by == NO_GROUPING else group_by, seed=0, depth=depth,
                                ignore_identical_ids=bool(identical))  # fmt: skip
        measures = [parse(m.replace("@K", f"@{int(k)}"), defaults=settings.measure_defaults) for m in measure_names]
    except RankvizError as exc:
        st.error(md(exc))
        return None
    return Context(
        collection=collection,
        qrels=qrels,
        qrels_key=qrels_key,
        runs=runs,
        run_keys=run_keys,
        selected=selected,
        measure_names=measure_names,
        measures=measures,
        settings=settings,
        k=int(k),
        url=url,
        groups=groups if settings.group_by is not None else None,
        weights=weights,
        queries=collection.queries if uploaded_qrels is None else {},
        grouping=f"{name}:{folder_stamp(folder)}:tags{meeting.version.content}" if meeting else qrels_key,
        colours=plots.run_colours(run_names),
        present=present,
        meeting=meeting,
    )


def _checks_banner(ctx: Context, page: str) -> None:
    """What the checks found that changes a number: one short banner (the Overview lists every finding)."""
    report = ctx.check()
    serious = report.at_least("warning")
    if not serious:
        return
    where = "" if page == "overview" else " The Overview lists every finding."
    text = message("Checks: {}. First: {}.", report.summary().removeprefix("checks: "), serious[0].line()) + where
    (st.error if report.status == 2 else st.warning)(text)


def _take_passes(ctx: Context) -> None:
    """The selected runs' passes, which every page starts from, under a progress bar while runs are
    read and evaluated (a few at a time)."""
    if not ctx.passing():
        return
    bar = None

    def advance(done: int, total: int) -> None:
        nonlocal bar
        bar = bar or st.progress(0.0)
        bar.progress(done / total, text=f"Reading and evaluating the runs: {done} of {total} done…")

    try:
        ctx.passes(progress=advance)
    finally:
        if bar is not None:
            bar.empty()


def open_plain_page(key: str) -> UrlState:
    """Set up a page that shows no one collection (it has no frame): the page's title, the URL's state
    (its fallback warnings shown where they arise)."""
    st.set_page_config(page_title=f"{spec(key).title} · rankviz", layout="wide")
    st.sidebar.title("rankviz")
    url = UrlState(key)
    url.immediate = True
    return url


def open_page(key: str) -> Context:
    """Set the page up, build the frame, show the conventions in force; stop the script if the frame
    cannot be built (it has said why)."""
    page = spec(key)
    projector = st.query_params.get("present") == "1" or st.session_state.get("rankviz.url", {}).get("present") == "1"
    st.set_page_config(page_title=f"{page.title} · rankviz", layout="wide",
                       initial_sidebar_state="collapsed" if projector else "auto")  # fmt: skip
    ctx = frame(key)
    if ctx is None:
        st.stop()
    if ctx.present:  # our own constant CSS, no user text in it
        st.html(PROJECTOR_CSS)
    for warning in ctx.url.warnings:
        st.warning(warning)
    ctx.url.immediate = True
    browser.guard_unsent_typing()
    drafts.save_pending(ctx)  # typed on a query or page now gone: recorded before anything is drawn
    kept.say_recorded()
    for line in ctx.coverage_messages():
        st.warning(md(line))
    for problem in environment_problems():
        st.warning(message("{}", problem))
    if ctx.meeting is not None and ctx.meeting.problem:
        st.warning(message("The meeting's record cannot be read, so the qrels file alone is in force: {}", ctx.meeting.problem))
    if ctx.meeting is not None and ctx.meeting.left_out:
        shown = "; ".join(ctx.meeting.left_out[:3]) + (" …" if len(ctx.meeting.left_out) > 3 else "")
        st.warning(message("{} entries of the meeting's record are left out: {}", len(ctx.meeting.left_out), shown))
    try:
        _take_passes(ctx)
        _checks_banner(ctx, key)
        thin = ctx.thinly_judged()
    except RankvizError as exc:  # a run file that breaks the format: named with its line, never a traceback
        st.error(message("A run cannot be read: {}", inputs.served_text(str(exc), ctx.collection.path)))
        st.stop()
    judged = [f"top {ctx.k} judged: " + ", ".join(f"{name} {share:.0%}" for name, share in thin.items())] if thin else []
    st.caption(f"**{md(ctx.collection_name)}** · " + " · ".join(md(line) for line in [*ctx.conventions(), *judged]))
    return ctx
