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

from rankviz import settings as s
from rankviz.analyses.unjudged import JUDGED_WARNING, judged_share
from rankviz.app import loaders
from rankviz.app.pages import ROOT, navigate, navigating, spec
from rankviz.app.state import UrlState
from rankviz.app.text import md, message
from rankviz.app.widgets import option_input, widget_key
from rankviz.errors import MeasureError, RankvizError
from rankviz.evaluate import Evaluation
from rankviz.io.collection import Collection
from rankviz.io.groups import QueryGroups, coverage, group_of
from rankviz.io.model import Qrels, Run
from rankviz.measures import FAMILIES, Measure, parse
from rankviz.ranking import RankingTable
from rankviz.settings import EvalSettings, TestSettings

SAMPLE_DATA = ROOT / "sample_data"
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


def _uploads() -> tuple[list[tuple[str, Run]], tuple[str, Qrels] | None]:
    with st.sidebar.expander("Add your own runs and qrels"):
        st.caption("TREC run or qrels files, .gz, CSV, TSV or Parquet. Uploaded runs join the runs of the collection.")
        run_files = st.file_uploader("Runs", accept_multiple_files=True, key="upload_runs")
        qrels_file = st.file_uploader("Qrels (replace the collection's)", key="upload_qrels")
    runs, qrels = [], None
    for upload in run_files or []:
        data = upload.getvalue()
        key = f"upload:{loaders.digest(data)}"
        try:
            runs.append((key, loaders.upload(key, data, upload.name, "run")))
        except RankvizError as exc:
            st.sidebar.error("Run not loaded: " + md(exc))
    if qrels_file is not None:
        data = qrels_file.getvalue()
        key = f"upload:{loaders.digest(data)}"
        try:
            qrels = (key, loaders.upload(key, data, qrels_file.name, "qrels"))
        except RankvizError as exc:
            st.sidebar.error("Qrels not loaded: " + md(exc))
    return runs, qrels


def _accept_measure(text: str) -> bool:
    try:
        parse(text.replace("@K", "@10"))
        return True
    except MeasureError:
        return False


def frame() -> Context | None:
    url = UrlState()
    st.sidebar.title("rankviz")
    folders = collection_folders(_data_dirs())
    names = list(folders)
    if not names:
        st.error("No collection found: start with `streamlit run app.py -- --data DIR`.")
        return None
    default = DEFAULT_COLLECTION if DEFAULT_COLLECTION in names else names[0]
    chosen = url.choice("collection", names, default)
    name = st.sidebar.selectbox("Collection", names, index=names.index(chosen), key=widget_key("frame.collection", names))
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
    uploaded_runs, uploaded_qrels = _uploads()
    for key, run in uploaded_runs:
        run_name = run.name if run.name not in runs else f"{run.name} (upload)"
        runs[run_name] = run if run_name == run.name else dataclasses.replace(run, name=run_name)
        run_keys[run_name] = key
    if uploaded_qrels is not None:
        qrels_key, qrels = uploaded_qrels

    run_names = list(runs)
    selected = st.sidebar.multiselect(
        "Runs", run_names, default=url.choices("runs", run_names, run_names), key=widget_key("frame.runs", name, run_names)
    )
    offered = list(dict.fromkeys([*collection.config.measures, *TEMPLATES]))
    chosen_measures = url.choices("measures", offered, list(collection.config.measures), accept=_accept_measure)
    measure_names = st.sidebar.multiselect(
        "Measures",
        list(dict.fromkeys([*offered, *chosen_measures])),
        default=chosen_measures,
        accept_new_options=True,
        help="The collection's measures, every family at K, or type one: RR(rel=2)@5, nDCG(gain=exp)@20, ...",
        key=widget_key("frame.measures", name),
    )
    k = option_input(st.sidebar, s.K, url.option(s.K), key=widget_key("frame.k"), label="K (cutoff of the @K measures)")
    base = EvalSettings(rel=collection.config.rel, gmax=collection.config.gmax)
    rel = option_input(st.sidebar, s.REL, url.option(s.REL, base.rel), key=widget_key("frame.rel", name))
    gain = option_input(st.sidebar, s.GAIN, url.option(s.GAIN), key=widget_key("frame.gain"))
    gmax = option_input(st.sidebar, s.GMAX, url.option(s.GMAX, base.gmax), key=widget_key("frame.gmax", name))
    ties = option_input(st.sidebar, s.TIES, url.option(s.TIES) if url.raw("ties") != "random" else "trec_eval",
                        key=widget_key("frame.ties"), choices=FRAME_TIES)  # fmt: skip
    missing = option_input(st.sidebar, s.MISSING, url.option(s.MISSING), key=widget_key("frame.missing"), horizontal=False)
    groups = collection.groups if uploaded_qrels is None else None
    group_options = [NO_GROUPING, *(groups.columns if groups else [])]
    group_by = st.sidebar.selectbox(
        s.GROUP_BY.title,
        group_options,
        index=group_options.index(url.choice("group_by", group_options, NO_GROUPING)),
        help="A query attribute of the collection (query_groups.tsv, queries.tsv columns, topic_turn ids).",
        key=widget_key("frame.group_by", group_options),
    )
    weights = collection.weights.to_dict() if collection.weights is not None and uploaded_qrels is None else None
    aggregates = ["query", *(["macro"] if group_by != NO_GROUPING else []), *(["weights"] if weights is not None else [])]
    aggregate = option_input(st.sidebar, s.AGGREGATE, url.choice("aggregate", aggregates, "query"),
                             key=widget_key("frame.aggregate", aggregates), choices=aggregates, horizontal=False)  # fmt: skip
    url.write(collection=name, runs=selected, measures=measure_names, k=k, rel=rel, gain=gain, gmax=gmax, ties=ties,
              missing=missing, group_by=group_by, aggregate=aggregate)  # fmt: skip
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
    )


def open_page(key: str) -> Context:
    """Set the page up, build the frame, show the conventions in force; stop the script if the frame
    cannot be built (it has said why)."""
    if not navigating():  # Streamlit's pages/ discovery ran this page: hand over to the navigation
        navigate()
        st.stop()
    page = spec(key)
    st.set_page_config(page_title=f"{page.title} · rankviz", layout="wide")
    ctx = frame()
    if ctx is None:
        st.stop()
    for warning in ctx.url.warnings:
        st.warning(warning)
    ctx.url.immediate = True
    for line in ctx.coverage_messages():
        st.warning(md(line))
    thin = ctx.thinly_judged()
    judged = [f"top {ctx.k} judged: " + ", ".join(f"{name} {share:.0%}" for name, share in thin.items())] if thin else []
    st.caption(f"**{md(ctx.collection_name)}** · " + " · ".join(md(line) for line in [*ctx.conventions(), *judged]))
    return ctx
