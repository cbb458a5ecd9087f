"""The frame: the sidebar every page shares (data, runs, measures, conventions), which decides the
:class:`~rankviz.app.frame.context.Context` a page gets.

Every page opens with :func:`open_page`, which builds the frame itself, so a page is complete
however Streamlit reaches it (through ``st.navigation`` or as the first request of a fresh server).
The sidebar's widgets come from the options of :mod:`rankviz.settings.eval_settings`; their values
live in the URL (:mod:`rankviz.app.widgets.url_state`).
"""

from __future__ import annotations

import streamlit as st

from rankviz import plots
from rankviz.app.caches import inputs
from rankviz.app.caches.cache import environment_problems, folder_stamp
from rankviz.app.frame import answers, conventions_line, measure_picker, sidebar
from rankviz.app.frame.arriving import take_passes
from rankviz.app.frame.context import Context
from rankviz.app.frame.fusion_panel import add_fused_run
from rankviz.app.frame.pages import spec
from rankviz.app.frame.scores_frame import needs_rankings, scores_frame
from rankviz.app.frame.served_reading import ServedReading
from rankviz.app.meeting import drafts, kept, recorder
from rankviz.app.meeting import record_in_force as qrels_in_force
from rankviz.app.signin.server_banner import open_to_all
from rankviz.app.widgets import browser
from rankviz.app.widgets import page_options as app_options
from rankviz.app.widgets.option_widgets import url_option
from rankviz.app.widgets.text import md, message, said
from rankviz.app.widgets.url_state import UrlState
from rankviz.errors import RankvizError
from rankviz.settings import eval_settings as s
from rankviz.settings import report_settings as r
from rankviz.settings.eval_settings import EvalSettings
from rankviz.study import Study, StudyRequest, served
from rankviz.study.opening import collection_settings

#: Captions readable on any screen: Streamlit draws them in its text colour at 60% (3.8:1 on white,
#: under WCAG AA's 4.5:1); here the text's own colour at 80% (6.5:1 on white, and on the dark theme
#: its light text alike). A folded sidebar is out of the keyboard's way too (its 40 controls came
#: before the page's first under Tab). Our own constant CSS, sent to the page's head.
READABLE_CSS = """<style>
[data-testid="stCaptionContainer"] { color: inherit !important; opacity: 0.8 !important; }
[data-testid="stToastContainer"] { top: auto !important; bottom: 1rem !important; }
[data-testid="stSidebar"][data-collapsed="true"],
[data-testid="stSidebar"][data-collapsed="true"] * { visibility: hidden !important; }
</style>"""
#: Projector mode: larger text, less padding, the page as wide as the screen (our own CSS, no user
#: text; st.html sends a style-only string to the page's head, no markdown with raw HTML allowed
#: anywhere).
PROJECTOR_CSS = """<style>
html, body, [data-testid="stAppViewContainer"] { font-size: 20px !important; }
[data-testid="stMainBlockContainer"] {
  padding: 3.75rem 1.5rem 1rem !important; max-width: 100% !important;
}
h1 { font-size: 2rem; } h2 { font-size: 1.6rem; } h3 { font-size: 1.3rem; }
</style>"""


def frame(page: str = "") -> Context | None:
    url = UrlState(page)
    st.sidebar.title("rankviz")
    opened = sidebar.open_collection(url)
    if opened is None:
        return None
    name, folder, collection, qrels, qrels_key, runs, run_keys = opened
    if qrels is None:
        return scores_frame(url, name, folder, collection)
    uploaded_qrels, new_uploads, uploaded_scores = sidebar.add_uploads(runs, run_keys)
    meeting = None
    if uploaded_qrels is not None:  # the collection's judgments beside them still hold
        qrels, qrels_key = inputs.with_beside(collection, uploaded_qrels[1], uploaded_qrels[0])
    else:
        meeting = qrels_in_force.open_meeting(folder, collection, qrels, qrels_key)
    reading = ServedReading(meeting)
    run_names = list(runs)
    scores = inputs.with_uploaded(inputs.collection_scores(collection), uploaded_scores)
    selected, measure_names = measure_picker.choose_runs_and_measures(
        url, name, collection, run_names, new_uploads, list(scores)
    )
    k = url_option(url, st.sidebar, r.K, "frame", label="K (cutoff of the @K measures)")
    defaults = collection_settings(collection)
    conventions = sidebar.choose_conventions(url, name, defaults)
    groups = collection.groups if uploaded_qrels is None else None
    tags = reading.tags(meeting.store, qrels) if meeting and meeting.store else None
    if tags is not None:  # offered as the study will read them
        groups = tags if groups is None else groups.merged(tags)
    group_by = sidebar.choose_group(url, groups)
    has_weights = collection.weights is not None and uploaded_qrels is None
    grouped = group_by != sidebar.NO_GROUPING
    aggregates = ["query", *(["macro"] if grouped else []), *(["weights"] if has_weights else [])]
    aggregate = url_option(
        url,
        st.sidebar,
        s.AGGREGATE,
        "frame",
        choices=aggregates,
        context=(aggregates,),
        horizontal=False,
    )
    mode, top, correct = None, None, None
    if meeting is not None:
        mode, qrels_key, top, correct = qrels_in_force.choose(url, collection, meeting)
    present = url_option(url, st.sidebar, app_options.PRESENT, "frame")
    add_fused_run(runs, run_names)  # last: the sidebar's own widgets keep their places
    chosen_qrels = mode if meeting and mode != meeting.default_mode else None
    url.write(
        collection=name,
        runs=selected,
        measures=measure_names,
        k=k,
        **sidebar.link_values(conventions),
        group_by=group_by,
        aggregate=aggregate,
        present="1" if present else None,
        qrels=chosen_qrels,
        correct_with=correct,
    )
    if len(selected) < 1 or not measure_names:
        st.warning("Choose at least one run and one measure in the sidebar.")
        return None
    options = {**conventions, "group_by": group_by if grouped else None, "seed": 0}
    try:
        settings = EvalSettings.from_args(options, base=defaults)
        measures = measure_picker.measures_at(measure_names, int(k), settings, scores)
        request = StudyRequest(
            collection if uploaded_qrels is None else qrels,
            runs,
            measures=tuple(measures),
            judgments=str(meeting.path) if meeting and meeting.store else None,
            qrels_in_force=mode,
            correct_with=correct,
            aggregate=aggregate,
            options=options,
            collection=collection,
        )
        study = Study.open(request, reading=reading)
    except RankvizError as exc:
        st.error(md(exc))
        return None
    if meeting is not None:
        meeting.chosen, meeting.correction = study.in_force, study.correction
    return Context(
        opened=study,
        request=request,
        reading=reading,
        qrels_key=qrels_key,
        run_keys=run_keys,
        selected=selected,
        measure_names=measure_names,
        measures=list(study.measures),
        k=int(k),
        url=url,
        collection=collection,
        settings=study.settings,
        queries=collection.queries if uploaded_qrels is None else {},
        grouping=f"{name}:{folder_stamp(folder)}:tags{meeting.version.tags_content}"
        if meeting
        else qrels_key,
        colours=plots.run_colours(run_names),
        present=present,
        top=top,
        meeting=meeting,
    )


def _checks_banner(ctx: Context, page: str) -> None:
    """What the checks found that changes a number: one short banner (the Overview lists every
    finding)."""
    report = answers.check(ctx)
    serious = report.at_least("warning")
    if not serious:
        return
    where = "" if page == "overview" else " The Overview lists every finding."
    text = (
        message(
            "Checks: {}. First: {}.", report.summary().removeprefix("checks: "), serious[0].line()
        )
        + where
    )
    (st.error if report.status == 2 else st.warning)(text)


def open_plain_page(key: str) -> UrlState:
    """Set up a page that shows no one collection (it has no frame): the page's title, the URL's
    state (its fallback warnings shown where they arise)."""
    st.set_page_config(page_title=f"{spec(key).title} · rankviz", layout="wide")
    st.html(READABLE_CSS)  # our own constant CSS, no user text in it: every page, this one too
    st.sidebar.title("rankviz")
    open_to_all()
    url = UrlState(key)
    url.immediate = True
    return url


def open_page(key: str) -> Context:
    """Set the page up, build the frame, show the conventions in force; stop the script if the frame
    cannot be built (it has said why)."""
    page = spec(key)
    projector = (
        st.query_params.get("present") == "1"
        or st.session_state.get("rankviz.url", {}).get("present") == "1"
    )
    st.set_page_config(
        page_title=f"{page.title} · rankviz",
        layout="wide",
        initial_sidebar_state="collapsed" if projector else "auto",
    )
    st.html(READABLE_CSS)  # our own constant CSS, no user text in it: before the frame can stop
    ctx = frame(key)
    if ctx is None:
        st.stop()
    if ctx.present:
        st.html(PROJECTOR_CSS)
    open_to_all()
    if page.needs_rankings:
        needs_rankings(ctx, page.title)
    for warning in ctx.url.warnings:
        st.warning(warning)
    ctx.url.immediate = True
    browser.guard_unsent_typing()
    drafts.save_pending(ctx)  # typed on a query or page now gone: recorded before anything is drawn
    kept.say_recorded()
    browser.move_focus()  # the keyboard where the meeting's next step is
    for line in ctx.study().coverage_notes():
        st.warning(md(line))
    for problem in environment_problems():
        st.warning(message("{}", problem))
    recorder.say(ctx.meeting)
    try:
        take_passes(ctx)
        if ctx.ranked:  # scores alone: nothing the checks read
            _checks_banner(ctx, key)
        thin = answers.thinly_judged(ctx)
    # a run file that breaks the format: named with its line, never a traceback
    except RankvizError as exc:
        st.error(
            message("A run cannot be read: {}", served.served_text(said(exc), ctx.collection.path))
        )
        st.stop()
    conventions_line.show(ctx, thin)
    return ctx
