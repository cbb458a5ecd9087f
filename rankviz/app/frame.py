"""The frame: the sidebar every page shares (data, runs, measures, conventions) and the
:class:`Context` it hands the page.

Every page opens with :func:`open_page`, which builds the frame itself, so a page is complete
however Streamlit reaches it (through ``st.navigation`` or as the first request of a fresh server).
The sidebar's widgets come from the options of :mod:`rankviz.settings`; their values live in the
URL (:mod:`rankviz.app.state`).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import streamlit as st

from rankviz import plots
from rankviz import settings as s
from rankviz.analyses.unjudged import JUDGED_WARNING, judged_share
from rankviz.app import loaders
from rankviz.app.pages import ROOT, navigate, navigating, spec
from rankviz.app.state import UrlState
from rankviz.app.text import md, message
from rankviz.app.widgets import url_option
from rankviz.errors import MeasureError, RankvizError
from rankviz.evaluate import Evaluation
from rankviz.io.collection import Collection
from rankviz.io.groups import QueryGroups, coverage, group_of
from rankviz.io.model import Qrels, Run
from rankviz.measures import FAMILIES, Measure, parse
from rankviz.ranking import RankingTable
from rankviz.settings import EvalSettings, TestSettings

SAMPLE_DATA = ROOT / "sample_data"
#: Projector mode: larger text, less padding, the page as wide as the screen (our own CSS, no user text).
PROJECTOR_CSS = """<style>
html, body, [data-testid="stAppViewContainer"] { font-size: 20px !important; }
[data-testid="stMainBlockContainer"] { padding: 1rem 1.5rem !important; max-width: 100% !important; }
h1 { font-size: 2rem; } h2 { font-size: 1.6rem; } h3 { font-size: 1.3rem; }
</style>"""
DEFAULT_COLLECTION = "cranfield"
NO_GROUPING = "(none)"
#: Measures offered besides the collection's: every family, at K where it takes a cutoff.
TEMPLATES = tuple(
    form for f in FAMILIES.values() for form in ((f"{f.name}@K",) if f.cutoff_required else (f.name, f"{f.name}@K"))
)
FRAME_TIES = [p for p in s.TIES.choices if p != "random"]  # the frame's policies are deterministic (random: Ties page)


@dataclass
class Context:
    """What the frame decided: data, runs, measures, settings in force; and how to get values."""

    collection: Collection
    qrels: Qrels
    qrels_key: str
    runs: dict[str, Run]
    run_keys: dict[str, str]
    selected: list[str]
    measure_names: list[str]  # as written in the frame ("MRR@K", "nDCG@10"): stable when K or rel change
    measures: list[Measure]
    settings: EvalSettings
    k: int
    url: UrlState
    groups: QueryGroups | None = None
    weights: dict[str, float] | None = None
    queries: dict[str, str] = field(default_factory=dict)
    grouping: str = ""  # the key of the groups and weights in force
    colours: dict[str, str] = field(default_factory=dict)  # one colour per run, the same on every page
    present: bool = False  # projector mode

    @property
    def collection_name(self) -> str:
        return self.collection.config.name

    def measure(self, name: str) -> Measure:
        """The frame's measure written ``name`` (one of :attr:`measure_names`)."""
        return self.measures[self.measure_names.index(name)]

    def tables(self, names: list[str] | None = None, ties: str | None = None) -> dict[str, RankingTable]:
        policy = ties or self.settings.ties
        return {
            n: loaders.ranking(self.run_keys[n], self.qrels_key, policy, self.runs[n], self.qrels)
            for n in (names or self.selected)
        }

    def evaluation(self, names: list[str] | None = None, ties: str | None = None, measures: list[Measure] | None = None,
                   **changes) -> Evaluation:  # fmt: skip
        """The selected runs (or ``names``) under the frame's settings (``ties`` and ``changes`` replaced)."""
        names = names or self.selected
        settings = self.settings.replace(**({"ties": ties} if ties else {}), **changes)
        return loaders.evaluation(
            [self.run_keys[n] for n in names],
            self.qrels_key,
            self.tables(names, settings.ties),
            measures or self.measures,
            settings,
            grouping=self.grouping,
            groups=self.groups,
            weights=self.weights,
        )

    def chance(self, names: list[str] | None = None) -> Evaluation:
        """The chance level of the selected runs (or ``names``): each run's value were its retrieved
        documents of each query in a random order, exactly (see :func:`rankviz.ranking.chance_table`)."""
        names = names or self.selected
        tables = self.tables(names, "trec_eval")
        return loaders.chance_evaluation([self.run_keys[n] for n in names], self.qrels_key, tables, self.measures, self.settings,
                                         grouping=self.grouping, groups=self.groups, weights=self.weights)  # fmt: skip

    def matrix(self, measure: Measure, names: list[str] | None = None, ties: str | None = None) -> pd.DataFrame:
        return self.evaluation(names, ties).matrix(measure)

    def group_of(self, qids) -> pd.Series | None:
        """Each query's group under the frame's "group by" (None without grouping)."""
        return None if self.settings.group_by is None else group_of(self.groups, self.settings.group_by, qids)

    def coverage_messages(self) -> list[str]:
        if self.settings.group_by is None:
            return []
        return coverage(self.groups.frame.index, self.qrels.query_ids).messages(self.groups.source)

    def test_settings(self) -> TestSettings:
        """The significance test in force: shared by the Overview marks, the Ties verdicts and the Significance page."""
        baseline = self.url.choice("baseline", self.selected, self.selected[0])
        defaults = {"seed": 0}  # the app's resampling is reproducible: seed 0 unless the URL says otherwise
        values = {name: self.url.option(option, defaults.get(name)) for name, option in TestSettings.OPTIONS.items()}
        return TestSettings(**values, baseline=baseline)

    def conventions(self) -> list[str]:
        return self.settings.conventions()

    def thinly_judged(self) -> dict[str, float]:
        """The selected runs whose top K the qrels judge less than :data:`JUDGED_WARNING`, with that share."""
        shares = {name: judged_share(table, self.k) for name, table in self.tables().items()}
        return {name: share for name, share in shares.items() if share < JUDGED_WARNING}


def collection_folders(extra: list[str]) -> dict[str, Path]:
    """Sample collections plus folders given with --data, by display key."""
    found = {p.name: p for p in sorted(SAMPLE_DATA.iterdir()) if (p / "runs").is_dir()} if SAMPLE_DATA.is_dir() else {}
    for folder in extra:
        path = Path(folder).expanduser().resolve()
        found[path.name if path.name not in found else str(path)] = path
    return found


def _data_dirs() -> list[str]:
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--data", action="append", default=[])
    known, _ = parser.parse_known_args(sys.argv[1:])
    return known.data


UPLOADS_SEEN = "rankviz.uploads_seen"


def _uploads() -> tuple[list[tuple[str, Run]], tuple[str, Qrels] | None, list[str], list[tuple[str, str]]]:
    """The session's uploads: (key, run) pairs, the qrels if any, the runs uploaded in this rerun,
    and the messages (kind, escaped text) about them, which the page shows at its top."""
    with st.sidebar.expander("Add your own runs and qrels"):
        st.caption("TREC run or qrels files, .gz, CSV, TSV or Parquet. Uploaded runs join the runs of the collection. "
                   "They live in this browser session only: a link you share does not carry them.")  # fmt: skip
        run_files = st.file_uploader("Runs", accept_multiple_files=True, key="upload_runs")
        qrels_file = st.file_uploader("Qrels (replace the collection's)", key="upload_qrels")
    seen = st.session_state.setdefault(UPLOADS_SEEN, set())
    runs, qrels, fresh, notes = [], None, [], []
    for upload in run_files or []:
        data = upload.getvalue()
        key = f"upload:{loaders.digest(data)}"
        try:
            run = loaders.upload(key, data, upload.name, "run")
        except RankvizError as exc:
            notes.append(("error", "Run not loaded: " + md(exc)))
            continue
        runs.append((key, run))
        if key not in seen:
            seen.add(key)
            fresh.append(key)
            notes.append(("success", message("Added the run {} from {}: {} queries, {} lines; it is selected.", run.name,
                                             upload.name, f"{len(run.query_ids):,}", f"{len(run):,}")))  # fmt: skip
    if qrels_file is not None:
        data = qrels_file.getvalue()
        key = f"upload:{loaders.digest(data)}"
        try:
            qrels = (key, loaders.upload(key, data, qrels_file.name, "qrels"))
            if key not in seen:
                seen.add(key)
                notes.append(("success", message("Using the judgments of {} instead of the collection's.", qrels_file.name)))
        except RankvizError as exc:
            notes.append(("error", "Qrels not loaded: " + md(exc)))
    return runs, qrels, fresh, notes


def _missing_runs(names: list[str]) -> str:
    return message(
        "Link parameter runs: {} not in this collection; left out. Runs uploaded in another browser session are not "
        "shared with this one: upload the file here to see it.",
        ", ".join(map(repr, names)),
    )


def _accept_measure(text: str) -> bool:
    try:
        parse(text.replace("@K", "@10"))
        return True
    except MeasureError:
        return False


def frame(page: str = "") -> Context | None:
    url = UrlState(page)
    st.sidebar.title("rankviz")
    folders = collection_folders(_data_dirs())
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
        collection = loaders.collection(str(folder), loaders.folder_stamp(folder))
        qrels_key = loaders.file_key(collection.qrels_path)
        qrels = loaders.qrels_file(qrels_key, str(collection.qrels_path))
        run_keys = {n: loaders.file_key(p) for n, p in collection.run_paths.items()}
        runs = {n: loaders.run_file(run_keys[n], str(p), n) for n, p in collection.run_paths.items()}
    except (RankvizError, OSError) as exc:
        st.error(message("The collection {} cannot be opened: {}", name, exc))
        return None
    st.sidebar.caption(md(collection.config.description or str(folder)))
    uploaded_runs, uploaded_qrels, fresh, notes = _uploads()
    new_uploads = []
    for key, run in uploaded_runs:
        run_name = run.name if run.name not in runs else f"{run.name} (upload)"
        runs[run_name] = run if run_name == run.name else dataclasses.replace(run, name=run_name)
        run_keys[run_name] = key
        if key in fresh:
            new_uploads.append(run_name)
    for kind, text in notes:
        (st.success if kind == "success" else st.error)(text)
    if uploaded_qrels is not None:
        qrels_key, qrels = uploaded_qrels

    run_names = list(runs)
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
    k = url_option(url, st.sidebar, s.K, "frame", label="K (cutoff of the @K measures)")
    base = EvalSettings(rel=collection.config.rel, gmax=collection.config.gmax)
    rel = url_option(url, st.sidebar, s.REL, "frame", default=base.rel, context=(name,))
    gain = url_option(url, st.sidebar, s.GAIN, "frame")
    gmax = url_option(url, st.sidebar, s.GMAX, "frame", default=base.gmax, context=(name,))
    ties = url_option(url, st.sidebar, s.TIES, "frame", choices=FRAME_TIES)  # random: the Ties page's
    missing = url_option(url, st.sidebar, s.MISSING, "frame", horizontal=False)
    groups = collection.groups if uploaded_qrels is None else None
    group_options = [NO_GROUPING, *(groups.columns if groups else [])]
    group_by = st.sidebar.selectbox(
        s.GROUP_BY.title,
        group_options,
        index=group_options.index(url.choice("group_by", group_options, NO_GROUPING)),
        help="A query attribute of the collection (query_groups.tsv, queries.tsv columns, topic_turn ids).",
        key=url.key("group_by", "frame", group_options, value=url.choice("group_by", group_options, NO_GROUPING)),
    )
    weights = collection.weights.to_dict() if collection.weights is not None and uploaded_qrels is None else None
    aggregates = ["query", *(["macro"] if group_by != NO_GROUPING else []), *(["weights"] if weights is not None else [])]
    aggregate = url_option(url, st.sidebar, s.AGGREGATE, "frame", choices=aggregates, context=(aggregates,), horizontal=False)
    present = url_option(url, st.sidebar, s.PRESENT, "frame")
    url.write(collection=name, runs=selected, measures=measure_names, k=k, rel=rel, gain=gain, gmax=gmax, ties=ties,
              missing=missing, group_by=group_by, aggregate=aggregate, present="1" if present else None)  # fmt: skip
    if len(selected) < 1 or not measure_names:
        st.warning("Choose at least one run and one measure in the sidebar.")
        return None
    try:
        settings = EvalSettings(ties=ties, missing=missing, rel=int(rel), gain=gain, gmax=int(gmax), aggregate=aggregate,
                                group_by=None if group_by == NO_GROUPING else group_by, seed=0)  # fmt: skip
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
        grouping=f"{name}:{loaders.folder_stamp(folder)}" if uploaded_qrels is None else qrels_key,
        colours=plots.run_colours(run_names),
        present=present,
    )


def open_page(key: str) -> Context:
    """Set the page up, build the frame, show the conventions in force; stop the script if the frame
    cannot be built (it has said why)."""
    if not navigating():  # Streamlit's pages/ discovery ran this page: hand over to the navigation
        navigate()
        st.stop()
    page = spec(key)
    projector = st.query_params.get("present") == "1" or st.session_state.get("rankviz.url", {}).get("present") == "1"
    st.set_page_config(page_title=f"{page.title} · rankviz", layout="wide",
                       initial_sidebar_state="collapsed" if projector else "auto")  # fmt: skip
    ctx = frame(key)
    if ctx is None:
        st.stop()
    if ctx.present:  # our own constant CSS, no user text in it
        st.markdown(PROJECTOR_CSS, unsafe_allow_html=True)
    for warning in ctx.url.warnings:
        st.warning(warning)
    ctx.url.immediate = True
    for line in ctx.coverage_messages():
        st.warning(md(line))
    thin = ctx.thinly_judged()
    judged = [f"top {ctx.k} judged: " + ", ".join(f"{name} {share:.0%}" for name, share in thin.items())] if thin else []
    st.caption(f"**{md(ctx.collection_name)}** · " + " · ".join(md(line) for line in [*ctx.conventions(), *judged]))
    return ctx
