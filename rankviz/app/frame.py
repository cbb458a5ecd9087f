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
import os
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
from rankviz.io.meeting import STORE_NAME, MeetingStore
from rankviz.io.model import Qrels, Run
from rankviz.measures import FAMILIES, Measure, parse
from rankviz.ranking import RankingTable
from rankviz.settings import EvalSettings, TestSettings
from rankviz.tie_policy import POLICIES, policy

SAMPLE_DATA = ROOT / "sample_data"
#: Projector mode: larger text, less padding, the page as wide as the screen (our own CSS, no user text;
#: st.html sends a style-only string to the page's head, no markdown with raw HTML allowed anywhere).
PROJECTOR_CSS = """<style>
html, body, [data-testid="stAppViewContainer"] { font-size: 20px !important; }
[data-testid="stMainBlockContainer"] { padding: 1rem 1.5rem !important; max-width: 100% !important; }
h1 { font-size: 2rem; } h2 { font-size: 1.6rem; } h3 { font-size: 1.3rem; }
</style>"""
DEFAULT_COLLECTION = "cranfield"
NO_GROUPING = "(none)"
UNTAGGED = "(untagged)"
#: Measures offered besides the collection's: every family, at K where it takes a cutoff.
TEMPLATES = tuple(
    form for f in FAMILIES.values() for form in ((f"{f.name}@K",) if f.cutoff_required else (f.name, f"{f.name}@K"))
)
FRAME_TIES = [name for name, rule in POLICIES.items() if rule.deterministic]  # random orders: the Ties page's


@dataclass
class Meeting:
    """The meeting's record of the collection: where it lives, what it holds, which qrels are in force."""

    path: Path
    store: MeetingStore | None  # None until the first entry (reading never creates the file)
    problem: str  # why the record cannot be read, else ""
    version: tuple[int, int, int]
    mode: str  # s.QRELS_IN_FORCE: "file" or "meeting"
    file_qrels: Qrels
    file_key: str
    judgments: int = 0  # pairs the meeting judged
    merged: Qrels | None = None  # the qrels file with the meeting's judgments in force
    merged_key: str = ""
    same_queries: bool = True  # the meeting judged no query the file does not: every order is the file's
    left_out: list[str] = field(default_factory=list)  # entries of the record no qrels file can hold

    def in_force(self) -> str:
        name = Path(self.file_qrels.source).name
        if self.mode == "meeting":
            return f"qrels: {name} with the meeting's {self.judgments:,} judgments in force (latest wins)"
        extra = f" (the meeting's {self.judgments:,} judgments not applied)" if self.judgments else ""
        return f"qrels: {name}{extra}"

    def writable(self) -> MeetingStore:
        """The store to record in, created at the first entry (a MeetingError says why it cannot be)."""
        return self.store or MeetingStore(self.path)


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
    meeting: Meeting | None = None  # the meeting's record (None: uploaded qrels are in force)

    @property
    def collection_name(self) -> str:
        return self.collection.config.name

    def measure(self, name: str) -> Measure:
        """The frame's measure written ``name`` (one of :attr:`measure_names`)."""
        return self.measures[self.measure_names.index(name)]

    def tables(self, names: list[str] | None = None, ties: str | None = None) -> dict[str, RankingTable]:
        policy = ties or self.settings.ties
        meeting = self.meeting
        base = (meeting.file_key, meeting.file_qrels) if meeting is not None else None  # the meeting's qrels re-grade it
        return {
            n: loaders.ranking(self.run_keys[n], self.qrels_key, policy, self.runs[n], self.qrels, regrade_from=base)
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
            lineage=self.lineage(),
        )

    def order_key(self, ties: str) -> str:
        """The key of what decides the rankings' order under ``ties`` (not their grades): the qrels
        file's while the meeting's judgments only re-grade its queries and the policy breaks ties
        without grades, so results about order alone (rank-biased overlap) are not computed again
        for every judgment."""
        meeting = self.meeting
        regraded = policy(ties).regradable
        if meeting is not None and self.qrels_key == meeting.merged_key and meeting.same_queries and regraded:
            return meeting.file_key
        return self.qrels_key

    def lineage(self) -> loaders.Lineage | None:
        """When the meeting's qrels are in force: the record they follow (a new judgment then revises
        the newest results for the queries it judged instead of computing them all again)."""
        meeting = self.meeting
        if meeting is None or meeting.store is None or meeting.merged is None or self.qrels_key != meeting.merged_key:
            return None
        return loaders.Lineage(f"{meeting.file_key}+meeting:{meeting.path}", meeting.version[0], meeting.store)

    def chance(self, names: list[str] | None = None) -> Evaluation:
        """The chance level of the selected runs (or ``names``): each run's value were its retrieved
        documents of each query in a random order, exactly (see :func:`rankviz.ranking.chance_table`)."""
        names = names or self.selected
        tables = self.tables(names, "trec_eval")
        return loaders.chance_evaluation([self.run_keys[n] for n in names], self.qrels_key, tables, self.measures, self.settings,
                                         grouping=self.grouping, groups=self.groups, weights=self.weights,
                                         lineage=self.lineage())  # fmt: skip

    def matrix(self, measure: Measure, names: list[str] | None = None, ties: str | None = None, *,
               complete: bool = True) -> pd.DataFrame:  # fmt: skip
        return self.evaluation(names, ties).matrix(measure, complete=complete)

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
        return [*self.settings.conventions(), *([self.meeting.in_force()] if self.meeting else [])]

    def with_qrels(self, mode: str) -> Context:
        """This context with the qrels file (``file``) or the meeting's qrels (``meeting``) in force,
        to show what the meeting's judgments change."""
        meeting = self.meeting
        if meeting is None or meeting.merged is None:
            return self
        if mode == "file":
            return dataclasses.replace(self, qrels=meeting.file_qrels, qrels_key=meeting.file_key)
        return dataclasses.replace(self, qrels=meeting.merged, qrels_key=meeting.merged_key)

    def thinly_judged(self) -> dict[str, float]:
        """The selected runs whose top K the qrels judge less than :data:`JUDGED_WARNING`, with that share."""
        shares = {name: judged_share(table, self.k) for name, table in self.tables().items()}
        return {name: share for name, share in shares.items() if share < JUDGED_WARNING}


def collection_folders(extra: list[str]) -> dict[str, Path]:
    """Sample collections plus folders given with --data, by display key."""
    found = {p.name: p for p in sorted(SAMPLE_DATA.iterdir()) if (p / "runs").is_dir()} if SAMPLE_DATA.is_dir() else {}
    for folder in extra:
        path = Path(folder).expanduser().resolve()
        name, n = path.name, 1
        while name in found and found[name] != path:  # two folders of one name: numbered, never the server's path
            n += 1
            name = f"{path.name} ({n})"
        found[name] = path
    return found


def _app_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--data", action="append", default=[])
    parser.add_argument("--notes", default=None)
    known, _ = parser.parse_known_args(sys.argv[1:])
    return known


def _data_dirs() -> list[str]:
    return _app_args().data


def notes_path(folder: Path) -> Path:
    """Where a collection's meeting record lives: ``--notes PATH`` (or ``RANKVIZ_NOTES``): a ``.sqlite``
    file for every collection served, or a folder with one ``<collection folder>.sqlite`` each;
    by default ``rankviz-notes.sqlite`` in the collection folder."""
    given = _app_args().notes or os.environ.get("RANKVIZ_NOTES")
    if not given:
        return folder / STORE_NAME
    path = Path(given).expanduser()
    return path if path.suffix == ".sqlite" else path / f"{folder.name}.sqlite"


def _meeting(folder: Path, qrels: Qrels, qrels_key: str) -> Meeting:
    """The collection's meeting record and the qrels with its judgments in force (when it has some)."""
    path = notes_path(folder)
    store, problem = loaders.meeting(path)
    version = store.version() if store else (0, 0, 0)
    meeting = Meeting(path, store, problem, version, s.QRELS_IN_FORCE.default, qrels, qrels_key)
    if store is not None and version[0]:
        meeting.merged, meeting.judgments, meeting.same_queries, meeting.left_out = loaders.meeting_qrels(
            qrels_key, qrels, store, version[0]
        )
        meeting.merged_key = f"{qrels_key}+meeting:{path}:{version[0]}"
    return meeting


def _tag_groups(meeting: Meeting, qrels: Qrels) -> QueryGroups | None:
    """The meeting's tags as a query attribute ``tag`` (a query's tags joined; untagged queries apart)."""
    if meeting.store is None or not meeting.version[1]:
        return None
    store = meeting.store

    def build() -> QueryGroups:
        tags = store.tag_groups()
        qids = list(dict.fromkeys([*map(str, qrels.query_ids), *tags]))
        frame = pd.DataFrame({"tag": [tags.get(q, UNTAGGED) for q in qids]}, index=pd.Index(qids, name="qid"))
        return QueryGroups(frame, "the meeting's tags")

    return loaders.SHARED.get(("meeting tags", str(meeting.path), meeting.version[1], meeting.file_key), build)


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


def served_text(text: str, folder: Path) -> str:
    """A message about a served collection with the server's paths to it shortened to the folder's
    name: a visitor learns which file is wrong, not where the server keeps it."""
    for prefix in sorted({str(folder.resolve()), str(folder.absolute()), str(folder)}, key=len, reverse=True):
        text = text.replace(prefix, folder.name)
    return text


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
        st.error(message("The collection {} cannot be opened: {}", name, served_text(str(exc), folder)))
        return None
    st.sidebar.caption(md(collection.config.description or folder.name))
    if collection.outside:
        st.warning(message("Not served, as they link outside the collection folder: {}", ", ".join(collection.outside)))
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
    meeting = None
    if uploaded_qrels is not None:
        qrels_key, qrels = uploaded_qrels
    else:
        meeting = _meeting(folder, qrels, qrels_key)

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
    tag_groups = _tag_groups(meeting, qrels) if meeting else None
    if tag_groups is not None:
        groups = tag_groups if groups is None else groups.merged(tag_groups)
    group_options = [NO_GROUPING, *(groups.columns if groups else [])]
    group_by = st.sidebar.selectbox(
        s.GROUP_BY.title,
        group_options,
        index=group_options.index(url.choice("group_by", group_options, NO_GROUPING)),
        help="A query attribute of the collection (query_groups.tsv, queries.tsv columns, topic_turn ids), or the "
        "meeting's tags (tag).",
        key=url.key("group_by", "frame", group_options, value=url.choice("group_by", group_options, NO_GROUPING)),
    )
    weights = collection.weights.to_dict() if collection.weights is not None and uploaded_qrels is None else None
    aggregates = ["query", *(["macro"] if group_by != NO_GROUPING else []), *(["weights"] if weights is not None else [])]
    aggregate = url_option(url, st.sidebar, s.AGGREGATE, "frame", choices=aggregates, context=(aggregates,), horizontal=False)
    if meeting is not None:
        meeting.mode = url_option(url, st.sidebar, s.QRELS_IN_FORCE, "frame", horizontal=True)
        if meeting.mode == "meeting" and meeting.merged is not None:
            qrels, qrels_key = meeting.merged, meeting.merged_key
    present = url_option(url, st.sidebar, s.PRESENT, "frame")
    url.write(collection=name, runs=selected, measures=measure_names, k=k, rel=rel, gain=gain, gmax=gmax, ties=ties,
              missing=missing, group_by=group_by, aggregate=aggregate, present="1" if present else None,
              qrels=meeting.mode if meeting and meeting.mode != s.QRELS_IN_FORCE.default else None)  # fmt: skip
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
        grouping=f"{name}:{loaders.folder_stamp(folder)}:tags{meeting.version[1]}" if meeting else qrels_key,
        colours=plots.run_colours(run_names),
        present=present,
        meeting=meeting,
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
        st.html(PROJECTOR_CSS)
    for warning in ctx.url.warnings:
        st.warning(warning)
    ctx.url.immediate = True
    for line in ctx.coverage_messages():
        st.warning(md(line))
    for problem in loaders.environment_problems():
        st.warning(message("{}", problem))
    if ctx.meeting is not None and ctx.meeting.problem:
        st.warning(message("The meeting's record cannot be read, so the qrels file alone is in force: {}", ctx.meeting.problem))
    if ctx.meeting is not None and ctx.meeting.left_out:
        shown = "; ".join(ctx.meeting.left_out[:3]) + (" …" if len(ctx.meeting.left_out) > 3 else "")
        st.warning(message("{} entries of the meeting's record are left out: {}", len(ctx.meeting.left_out), shown))
    thin = ctx.thinly_judged()
    judged = [f"top {ctx.k} judged: " + ", ".join(f"{name} {share:.0%}" for name, share in thin.items())] if thin else []
    st.caption(f"**{md(ctx.collection_name)}** · " + " · ".join(md(line) for line in [*ctx.conventions(), *judged]))
    return ctx
