"""The app's boundary with rankviz: cached loaders, URL state and the settings every page reads.

This is the only module besides the pages that imports streamlit (the ``rankviz`` package never
does). Heavy objects (runs, ranking tables) are cached as resources and never mutated; small
tables (per-query values) as data.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import os
import sys
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import streamlit as st

from rankviz import compare
from rankviz import ties as ties_module
from rankviz.errors import RankvizError
from rankviz.evaluate import Conventions
from rankviz.groups import QueryGroups, aggregate, coverage, group_of
from rankviz.io.collection import Collection, open_collection
from rankviz.io.readers import Qrels, Run, read_qrels, read_run
from rankviz.measures import Measure, make, parse
from rankviz.metric_choice import MetricReport, Task
from rankviz.metric_choice import metric_report as build_metric_report
from rankviz.ranking import TIE_POLICIES, RankingTable, rank
from rankviz.significance import CORRECTIONS, TESTS, ZERO_METHODS, compare_by_group, compare_runs
from rankviz.ties import random_means

FRAME_TIE_POLICIES = [p for p in TIE_POLICIES if p != "random"]  # the frame's policies are deterministic
NO_GROUPING = "(none)"

SAMPLE_DATA = Path(__file__).parent / "sample_data"
DEFAULT_COLLECTION = "cranfield"
UPLOADED = "uploaded files"
MEASURE_CHOICES = ("MRR", "MRR@K", "Hits@K", "MAP", "NDCG", "NDCG@K", "ERR@K", "P@K", "R@K")
DEFAULT_MEASURES = ("MRR@K", "Hits@K", "MAP", "NDCG@K", "ERR@K")
MAX_UPLOAD_MB = 1024


def build_measure(choice: str, *, k: int, rel: int, gain: str, gmax: int) -> Measure:
    """The canonical measure for a UI choice under the settings in force."""
    family, _, cutoff = choice.partition("@")
    name = {"MRR": "RR", "MAP": "AP", "NDCG": "nDCG"}.get(family, family)
    params = {"rel": rel} if name in ("RR", "Hits", "AP", "P", "R") else {"gain": gain} if name == "nDCG" else {"gmax": gmax}
    return make(name, k if cutoff else None, **params)


# --- cached loaders ---------------------------------------------------------------------------


@st.cache_resource(show_spinner="Opening the collection…")
def load_collection(path: str, stamp: float) -> Collection:
    return open_collection(path)


@st.cache_resource(show_spinner="Reading the judgments…", max_entries=8)
def load_qrels_file(path: str, stamp: float) -> Qrels:
    return read_qrels(path)


@st.cache_resource(show_spinner="Reading the run…", max_entries=64)
def load_run_file(path: str, name: str, stamp: float) -> Run:
    return read_run(path, name=name)


@st.cache_resource(show_spinner="Reading the upload…", max_entries=32)
def load_upload(digest: str, data: bytes, filename: str, kind: str) -> Run | Qrels:
    return read_run(data, filename=filename) if kind == "run" else read_qrels(data, filename=filename)


@st.cache_resource(show_spinner="Ordering the rankings…", max_entries=256, hash_funcs={Run: id, Qrels: id})
def ranking(run: Run, qrels: Qrels, ties: str) -> RankingTable:
    return rank(run, qrels, ties=ties)


@st.cache_data(max_entries=64, hash_funcs={RankingTable: id})
def random_trial_means(
    tables: tuple[RankingTable, ...],
    measure: str,
    missing: str,
    trials: int,
    seed: int,
    aggregate: str = "query",
    groups: pd.Series | None = None,
    weights: pd.Series | None = None,
) -> pd.DataFrame:
    """Per run: the mean under each of ``trials`` random tie orders (trials x runs), as the frame averages."""
    return random_means(
        {t.run_name: t for t in tables},
        parse(measure),
        trials=trials,
        rng=seed,
        missing=missing,
        aggregate=aggregate,
        groups=groups,
        weights=weights,
    )


@st.cache_data(max_entries=128, show_spinner="Testing…")
def significance_table(
    values: pd.DataFrame,
    measure: str,
    baseline: str,
    test: str,
    correction: str,
    pairs: str,
    resamples: int,
    seed: int,
    zero_method: str = "wilcox",
) -> pd.DataFrame:
    """:func:`rankviz.significance.compare_runs` on a queries x runs matrix (keyed on its content)."""
    return compare_runs(
        values,
        measure=measure,
        baseline=baseline,
        test=test,
        correction=correction,
        pairs=pairs,
        n_resamples=resamples,
        rng=seed,
        zero_method=zero_method,
    )


@st.cache_data(max_entries=64, show_spinner="Testing under each tie policy…")
def verdict_changes(matrices: dict[str, pd.DataFrame], measure: str, settings: SignificanceSettings) -> pd.DataFrame:
    """:func:`rankviz.ties.verdict_changes` with the page's significance settings."""
    return ties_module.verdict_changes(
        matrices,
        measure=measure,
        baseline=settings.baseline,
        test=settings.test,
        correction=settings.correction,
        alpha=settings.alpha,
        n_resamples=settings.resamples,
        rng=settings.seed,
        zero_method=settings.zero_method,
    )


@st.cache_data(max_entries=32, show_spinner="Comparing the measures…", hash_funcs={RankingTable: id})
def metric_report(
    default: tuple[RankingTable, ...],
    pessimistic: tuple[RankingTable, ...],
    optimistic: tuple[RankingTable, ...],
    measures: tuple[str, ...],
    rel: int,
    task: Task,
    missing: str,
    alpha: float,
    test: str,
    aggregate: str,
    groups: pd.Series | None,
    weights: pd.Series | None,
) -> MetricReport:
    """:func:`rankviz.metric_choice.metric_report` on the frame's runs (seeded: the page is reproducible)."""
    tables = {
        policy: {t.run_name: t for t in group}
        for policy, group in (("trec_eval", default), ("pessimistic", pessimistic), ("optimistic", optimistic))
    }
    return build_metric_report(
        tables,
        [parse(m) for m in measures],
        rel=rel,
        task=task,
        top_k=task.top_k or 10,
        alpha=alpha,
        test=test,
        missing=missing,
        rng=0,
        aggregate=aggregate,
        groups=groups,
        weights=weights,
    )


@st.cache_data(max_entries=64, show_spinner="Testing each group…")
def significance_by_group(
    values: pd.DataFrame, groups: pd.Series, measure: str, baseline: str, test: str, correction: str, resamples: int, seed: int
) -> pd.DataFrame:
    """:func:`rankviz.significance.compare_by_group` (keyed on the matrix and the groups' content)."""
    return compare_by_group(
        values, groups, measure=measure, baseline=baseline, test=test, correction=correction, n_resamples=resamples, rng=seed
    )


@dataclass(frozen=True)
class SignificanceSettings:
    """The significance test in force, shared by the Overview marks and the Significance page (URL keys)."""

    baseline: str
    test: str
    correction: str
    alpha: float
    resamples: int
    seed: int
    zero_method: str = "wilcox"

    def describe(self) -> str:
        correction = "family-wise (Tukey HSD)" if self.test == "tukey" else f"{self.correction} correction"
        return f"{self.test} test against {self.baseline}, {correction}, alpha = {self.alpha}"


ALPHAS = ["0.01", "0.05", "0.1"]


def significance_settings(ctx: Context) -> SignificanceSettings:
    """Read the significance settings from the URL (validated; defaults t, holm, 0.05, first run)."""
    url = ctx.url
    return SignificanceSettings(
        baseline=url.choice("baseline", ctx.selected, ctx.selected[0]),
        test=url.choice("test", list(TESTS), "t"),
        correction=url.choice("correction", list(CORRECTIONS), "holm"),
        alpha=float(url.choice("alpha", ALPHAS, "0.05")),
        resamples=url.integer("resamples", 100, 100_000, 10_000),
        seed=url.integer("seed", 0, 2**31 - 1, 0),
        zero_method=url.choice("zero_method", list(ZERO_METHODS), "wilcox"),
    )


@st.cache_data(max_entries=512, hash_funcs={RankingTable: id})
def matrix(tables: tuple[RankingTable, ...], measure: str, missing: str) -> pd.DataFrame:
    """Queries x runs values of one measure for the given ranking tables."""
    return compare.per_query_matrix({t.run_name: t for t in tables}, parse(measure), missing=missing)


def stamp(path: Path) -> float:
    """Modification time and size, so an edited file is read again."""
    info = path.stat()
    return info.st_mtime + info.st_size * 1e-12


# --- URL state -----------------------------------------------------------------------------------


class UrlState:
    """Plain validated strings in ``st.query_params``; bad or stale values fall back with a warning."""

    def __init__(self) -> None:
        self.warnings: list[str] = []

    def choice(self, key: str, options: list[str], default: str) -> str:
        value = st.query_params.get(key)
        if value is None or value in options:
            return default if value is None else value
        self.warnings.append(f"Link parameter {key}={value!r} is not available here; showing {default!r}.")
        return default

    def choices(self, key: str, options: list[str], default: list[str]) -> list[str]:
        value = st.query_params.get(key)
        if value is None:
            return default
        picked = [v for v in value.split(",") if v in options]
        dropped = [v for v in value.split(",") if v not in options]
        if dropped:
            self.warnings.append(f"Link parameter {key}: {', '.join(map(repr, dropped))} not available here; left out.")
        return picked or default

    def integer(self, key: str, low: int, high: int, default: int) -> int:
        value = st.query_params.get(key)
        if value is None:
            return default
        if value.isdigit() and low <= int(value) <= high:
            return int(value)
        self.warnings.append(f"Link parameter {key}={value!r} must be a whole number from {low} to {high}; using {default}.")
        return default

    def number(self, key: str, low: float, high: float, default: float) -> float:
        value = st.query_params.get(key)
        if value is None:
            return default
        try:
            number = float(value)
        except ValueError:
            number = float("nan")
        if low <= number <= high:
            return number
        self.warnings.append(f"Link parameter {key}={value!r} must be a number from {low} to {high}; using {default}.")
        return default

    @staticmethod
    def link(page: str, **values: str) -> str:
        """A relative link to another page carrying the current state with ``values`` changed."""
        state = {**st.query_params.to_dict(), **values}
        return f"{page}?{urllib.parse.urlencode(state)}"

    @staticmethod
    def write(**values: object) -> None:
        for key, value in values.items():
            text = ",".join(value) if isinstance(value, (list, tuple)) else str(value)
            if st.query_params.get(key) != text:
                st.query_params[key] = text


# --- the settings every page reads ------------------------------------------------------------


@dataclass
class Context:
    """What the frame decided: data, runs, measures and conventions in force."""

    collection_name: str
    qrels: Qrels
    runs: dict[str, Run]
    selected: list[str]
    measures: list[Measure]
    k: int
    rel: int
    gain: str
    gmax: int
    ties: str
    missing: str
    queries: dict[str, str] = field(default_factory=dict)
    collection: Collection | None = None
    url: UrlState = field(default_factory=UrlState)
    groups: QueryGroups | None = None
    group_by: str | None = None
    aggregate: str = "query"
    weights: pd.Series | None = None

    def group_of(self, qids) -> pd.Series | None:
        """Each query's group under the frame's "group by" (None without grouping)."""
        return None if self.group_by is None else group_of(self.groups, self.group_by, qids)

    def overall(self, values: pd.DataFrame) -> pd.Series:
        """Each run's mean under the frame's aggregate (queries, groups or weights)."""
        return aggregate(values, how=self.aggregate, groups=self.group_of(values.index), weights=self.weights)

    def coverage_messages(self) -> list[str]:
        if self.group_by is None:
            return []
        return coverage(self.groups.frame.index, self.qrels.query_ids).messages(self.groups.source)

    def tables(self, names: list[str] | None = None, ties: str | None = None) -> dict[str, RankingTable]:
        return {n: ranking(self.runs[n], self.qrels, ties or self.ties) for n in (names or self.selected)}

    def matrix(self, measure: Measure, names: list[str] | None = None, ties: str | None = None) -> pd.DataFrame:
        return matrix(tuple(self.tables(names, ties).values()), str(measure), self.missing)

    def conventions(self) -> list[str]:
        lines = Conventions(ties=self.ties, missing=self.missing).describe()
        lines.append(f"relevant: grade >= {self.rel} (binary measures)")
        lines.append(f"nDCG gain: {'grade (linear, trec_eval)' if self.gain == 'linear' else '2^grade - 1 (exp, gdeval)'}")
        lines.append(f"ERR: R = (2^g - 1) / 2^{self.gmax} (gmax = {self.gmax})")
        if self.group_by is not None:
            lines.append(f"queries grouped by {self.group_by}")
        lines.append(
            {
                "query": "overall mean over queries",
                "macro": f"overall mean over the groups of {self.group_by} (macro)",
                "weights": "overall mean weighted by query_weights.tsv",
            }[self.aggregate]
        )
        return lines


def context() -> Context:
    ctx = st.session_state.get("rankviz_context")
    if ctx is None:
        st.error("The settings are not loaded; open the app from its main page.")
        st.stop()
    return ctx


def collection_folders(extra: list[str]) -> dict[str, Path]:
    """Sample collections plus folders given with --data, by display key."""
    found = {p.name: p for p in sorted(SAMPLE_DATA.iterdir()) if (p / "runs").is_dir()} if SAMPLE_DATA.is_dir() else {}
    for folder in extra:
        path = Path(folder).expanduser().resolve()
        found[path.name if path.name not in found else str(path)] = path
    return found


def upload_digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def max_upload_bytes() -> int:
    return int(os.environ.get("RANKVIZ_MAX_UPLOAD_MB", MAX_UPLOAD_MB)) * 1024 * 1024


# --- the frame: sidebar settings shared by every page ---------------------------------------


def _data_dirs() -> list[str]:
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--data", action="append", default=[])
    known, _ = parser.parse_known_args(sys.argv[1:])
    return known.data


def _uploads() -> tuple[list, object]:
    with st.sidebar.expander("Add your own runs and qrels"):
        st.caption("TREC run or qrels files, .gz, CSV, TSV or Parquet. Uploaded runs join the runs of the collection.")
        run_files = st.file_uploader("Runs", accept_multiple_files=True, key="upload_runs")
        qrels_file = st.file_uploader("Qrels (replace the collection's)", key="upload_qrels")
    runs, qrels = [], None
    for upload in run_files or []:
        data = upload.getvalue()
        if len(data) > max_upload_bytes():
            st.sidebar.error(f"{upload.name}: larger than the upload limit of {max_upload_bytes() // 2**20} MB.")
            continue
        try:
            runs.append(load_upload(upload_digest(data), data, upload.name, "run"))
        except RankvizError as exc:
            st.sidebar.error(f"Run not loaded: {exc}")
    if qrels_file is not None:
        data = qrels_file.getvalue()
        try:
            qrels = load_upload(upload_digest(data), data, qrels_file.name, "qrels")
        except RankvizError as exc:
            st.sidebar.error(f"Qrels not loaded: {exc}")
    return runs, qrels


def widget_key(name: str, *context: object) -> str:
    """A stable key for a widget whose default comes from the URL.

    Without a key, Streamlit derives a widget's identity from its arguments, so a default that
    follows the URL changes the identity after every change and the next change is lost. The key
    includes the options (``context``), so new options (another collection, other runs) start a
    fresh widget from the URL's value.
    """
    return f"{name}:{hashlib.sha1(repr(context).encode()).hexdigest()[:12]}"


def url_selectbox(ctx: Context, container, label: str, options: list[str], param: str, page: str, **kwargs) -> str:
    """A selectbox whose value lives in the URL as ``param`` (first option by default), with a stable key."""
    index = options.index(ctx.url.choice(param, options, options[0]))
    return container.selectbox(label, options, index=index, key=widget_key(f"{page}.{param}", options), **kwargs)


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
    try:
        collection = load_collection(str(folders[name]), stamp(folders[name]))
        qrels = load_qrels_file(str(collection.qrels_path), stamp(collection.qrels_path))
        runs = {n: load_run_file(str(p), n, stamp(p)) for n, p in collection.run_paths.items()}
    except RankvizError as exc:
        st.error(f"The collection {name!r} cannot be opened: {exc}")
        return None
    st.sidebar.caption(collection.config.description or str(folders[name]))
    uploaded_runs, uploaded_qrels = _uploads()
    for run in uploaded_runs:
        run_name = run.name if run.name not in runs else f"{run.name} (upload)"
        runs[run_name] = run if run_name == run.name else dataclasses.replace(run, name=run_name)
    if uploaded_qrels is not None:
        qrels = uploaded_qrels

    run_names = list(runs)
    selected = st.sidebar.multiselect(
        "Runs", run_names, default=url.choices("runs", run_names, run_names), key=widget_key("frame.runs", name, run_names)
    )
    measure_choices = st.sidebar.multiselect(
        "Measures",
        MEASURE_CHOICES,
        default=url.choices("measures", list(MEASURE_CHOICES), list(DEFAULT_MEASURES)),
        key=widget_key("frame.measures"),
    )
    k = st.sidebar.number_input("K (cutoff)", 1, 1000, url.integer("k", 1, 1000, 10), key=widget_key("frame.k"))
    rel = st.sidebar.number_input(
        "Relevant from grade",
        1,
        10,
        url.integer("rel", 1, 10, collection.config.rel),
        help="Binary measures (MRR, Hits, MAP, P, R) count grade >= this as relevant.",
        key=widget_key("frame.rel", name),
    )
    gain = st.sidebar.radio(
        "nDCG gain",
        ["linear", "exp"],
        index=["linear", "exp"].index(url.choice("gain", ["linear", "exp"], "linear")),
        horizontal=True,
        help="linear: the grade (trec_eval); exp: 2^grade - 1 (gdeval)",
        key=widget_key("frame.gain"),
    )
    gmax = st.sidebar.number_input(
        "ERR gmax", 1, 10, url.integer("gmax", 1, 10, collection.config.gmax), key=widget_key("frame.gmax", name)
    )
    ties = st.sidebar.selectbox(
        "Tie policy",
        FRAME_TIE_POLICIES,
        index=FRAME_TIE_POLICIES.index(url.choice("ties", FRAME_TIE_POLICIES, "trec_eval")),
        help="Order of documents with equal scores; expected = exact mean over all orders. Random orders are on the Ties page.",
        key=widget_key("frame.ties"),
    )
    missing = st.sidebar.selectbox(
        "Queries missing from a run",
        ["zero", "skip"],
        index=["zero", "skip"].index(url.choice("missing", ["zero", "skip"], "zero")),
        format_func=lambda v: {"zero": "score 0 (trec_eval -c)", "skip": "leave out of the mean"}[v],
        key=widget_key("frame.missing"),
    )
    groups = collection.groups if uploaded_qrels is None else None
    group_options = [NO_GROUPING, *(groups.columns if groups else [])]
    group_by = st.sidebar.selectbox(
        "Group queries by",
        group_options,
        index=group_options.index(url.choice("group_by", group_options, NO_GROUPING)),
        help="A query attribute of the collection (query_groups.tsv, queries.tsv columns, topic_turn ids).",
        key=widget_key("frame.group_by", group_options),
    )
    weights = collection.weights if uploaded_qrels is None else None
    aggregates = ["query", *(["macro"] if group_by != NO_GROUPING else []), *(["weights"] if weights is not None else [])]
    aggregate = st.sidebar.selectbox(
        "Mean over",
        aggregates,
        index=aggregates.index(url.choice("aggregate", aggregates, "query")),
        format_func=lambda v: {"query": "queries (each once)", "macro": "groups (each once)", "weights": "weighted queries"}[v],
        key=widget_key("frame.aggregate", aggregates),
    )
    url.write(
        collection=name,
        runs=selected,
        measures=measure_choices,
        k=k,
        rel=rel,
        gain=gain,
        gmax=gmax,
        ties=ties,
        missing=missing,
        group_by=group_by,
        aggregate=aggregate,
    )
    if len(selected) < 1 or not measure_choices:
        st.warning("Choose at least one run and one measure in the sidebar.")
        return None
    measures = [build_measure(c, k=int(k), rel=int(rel), gain=gain, gmax=int(gmax)) for c in measure_choices]
    try:
        ctx = Context(
            collection_name=collection.config.name,
            qrels=qrels,
            runs=runs,
            selected=selected,
            measures=measures,
            k=int(k),
            rel=int(rel),
            gain=gain,
            gmax=int(gmax),
            ties=ties,
            missing=missing,
            queries=collection.queries if uploaded_qrels is None else {},
            collection=collection,
            url=url,
            groups=groups if group_by != NO_GROUPING else None,
            group_by=None if group_by == NO_GROUPING else group_by,
            aggregate=aggregate,
            weights=weights,
        )
    except RankvizError as exc:
        st.error(str(exc))
        return None
    return ctx


def show_frame() -> Context | None:
    """Render the frame, store its context for the pages and show the conventions in force."""
    ctx = frame()
    if ctx is None:
        return None
    st.session_state["rankviz_context"] = ctx
    for warning in ctx.url.warnings + ctx.coverage_messages():
        st.warning(warning)
    st.caption(f"**{ctx.collection_name}** · " + " · ".join(ctx.conventions()))
    return ctx
