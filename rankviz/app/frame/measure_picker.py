"""The runs and measures a frame shows: chosen in the sidebar (the collection's measures and
scores by default, every family at K, or one typed), then made measures at the frame's K."""

from __future__ import annotations

import re
from collections.abc import Mapping

import streamlit as st

from rankviz.app.caches import uploads
from rankviz.app.widgets.option_widgets import held
from rankviz.app.widgets.text import message
from rankviz.app.widgets.url_state import UrlState
from rankviz.errors import MeasureError
from rankviz.measures import FAMILIES, parse, refuse_without_closed_form, split_names
from rankviz.plots import run_colours
from rankviz.settings.eval_settings import EvalSettings
from rankviz.study import Collection, Measure, Score
from rankviz.study.opening import offered_beside

#: Measures offered besides the collection's: every family of the grades alone, at K where it takes
#: a cutoff (those of judgments beside the grades are offered where the collection keeps them).
TEMPLATES = tuple(
    form
    for f in FAMILIES.values()
    if f.reads is None
    for form in (
        (f.at_example,)
        if f.at_param is not None
        else (f"{f.name}@K",)
        if f.cutoff_required
        else (f.name, f"{f.name}@K")
        if f.cutoff_allowed
        else (f.name,)
    )
)


def _missing_runs(names: list[str]) -> str:
    return message(
        "Link parameter runs: {} not in this collection; left out. Runs uploaded in another "
        "browser session are not shared with this one: upload the file here to see it (an uploaded "
        "run is named after its file: {}).",
        ", ".join(map(repr, names)),
        " or ".join(f"{name}.txt, {name}.run.gz, ..." for name in names),
    )


def _accept_measure(text: str) -> bool:
    try:
        parse(text.replace("@K", "@10"))
        return True
    except MeasureError:
        return False


def _as_printed(items: list[str]) -> list[str]:
    """A link's measures as the page prints them (``P.5,10``: ``P@5``, ``P@10``;
    ``P_avgjg.10``: ``P_avgjg_10``); one a measure cannot be is left for the link's warning."""
    printed = []
    for item in split_names(items):
        try:  # the measures of judgments beside the qrels as they print (ndeval's, trec_eval's)
            measure = parse(item)
            printed.append(str(measure) if measure.family.reads else item)
        except MeasureError:
            printed.append(item)
    return printed


def choose_runs_and_measures(
    url: UrlState,
    name: str,
    collection: Collection,
    run_names: list[str],
    new_uploads: list[str],
    scores: list[str],
) -> tuple[list[str], list[str]]:
    """The runs and the measures chosen: the collection's measures and its scores (``scores``, read
    from its files) by default, every family at K, or one typed."""
    default_runs = url.choices("runs", run_names, run_names, missing=_missing_runs)
    runs_key = url.key("runs", "frame", name, run_names, value=default_runs)
    if new_uploads:  # an upload just made joins the selection at once, and says so
        joining = list(dict.fromkeys([*st.session_state.get(runs_key, default_runs), *new_uploads]))
        # the widget and the URL's memory take it before any element is drawn (where a page
        # switch may end this run), and only then does the upload stop waiting to join
        st.session_state[runs_key] = joining
        url.write(runs=joining)
        uploads.joined()
    given = None if held(runs_key) else default_runs
    selected = st.sidebar.multiselect("Runs", run_names, default=given, key=runs_key)
    st.html(chip_colours(runs_key, selected, run_colours(run_names)))
    own = [*collection.config.measures, *scores]
    beside = offered_beside(collection)
    choices = list(dict.fromkeys([*own, *TEMPLATES, *beside]))
    chosen_measures = url.choices(
        "measures",
        choices,
        own,
        accept=_accept_measure,
        spelled=_as_printed,
    )
    measures_key = url.key("measures", "frame", name, value=chosen_measures)
    measure_names = st.sidebar.multiselect(
        "Measures",
        list(dict.fromkeys([*choices, *chosen_measures])),
        default=None if held(measures_key) else chosen_measures,
        accept_new_options=True,
        help="The collection's measures, every family at K, or type one: RR(rel=2)@5, "
        "nDCG(gain=exp)@20, nDCG(gains={1:3,2:9})@10, ...",
        key=measures_key,
    )
    return selected, measure_names


def measures_at(
    names: list[str], k: int, settings: EvalSettings, scores: Mapping[str, Score]
) -> list[Measure]:
    """The measures as written in the sidebar, ``@K`` at the frame's K, under the settings'
    defaults; a score's name is that score, its gaps scored as ``missing`` says."""
    defaults = settings.measure_defaults
    zero = settings.missing == "zero"
    measures = [
        scores[name].under(zero=zero)
        if name in scores
        else parse(name.replace("@K", f"@{k}"), defaults=defaults)
        for name in names
    ]
    refuse_without_closed_form(measures, settings.ties)
    return measures


def chip_colours(key: str, selected: list[str], colours: Mapping[str, str]) -> str:
    """CSS that marks each chosen run's chip with the run's colour, the colour it has in every
    figure (the chips stand in the order chosen, each with its index; the widget is found by its
    key's class, as Streamlit writes it). Our own text: colours and a key, no run name."""
    widget = "st-key-" + re.sub(r"[^a-zA-Z0-9_-]", "-", key.strip())
    rules = "".join(
        f".{widget} [data-tag-index='{i}'] "
        f"{{ border-left: 0.45rem solid {colours[run]} !important; }}"
        for i, run in enumerate(selected)
    )
    return f"<style>{rules}</style>"
