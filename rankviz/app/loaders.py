"""Cached loaders and computations at the app's boundary, keyed on content, never on object ids.

A file is known by its path and its stamp (:func:`stamp`), so an edited,
replaced or re-copied file is read again; a collection's stamp covers every file it reads and the
listing of its folders, so an added run or an edited collection.toml is seen on the next rerun. An
upload is known by the SHA-256 of its bytes. Everything derived from an upload lives in
session-scoped caches, freed when the browser session ends. Cached functions take those keys (plus
the settings as text); the objects they need come as ``_underscored`` arguments, which Streamlit
does not hash, so a cache can never serve one run's numbers for another's.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd
import streamlit as st

from rankviz.evaluate import Evaluation, evaluate_tables
from rankviz.io.collection import Collection, open_collection
from rankviz.io.groups import QueryGroups
from rankviz.io.model import Qrels, Run
from rankviz.io.readers import read_qrels, read_run
from rankviz.measures import Measure
from rankviz.ranking import RankingTable, rank
from rankviz.settings import EvalSettings, TestSettings

Stamp = tuple[int, int, int, int]


def stamp(path: Path) -> Stamp:
    """Modification time (ns), size, inode and change time (ns). Tools that keep the modification
    time (``rsync -t``, ``cp -p``, ``tar x``) still set the change time, which no tool can set back,
    so any rewrite of the content changes the stamp."""
    info = path.stat()
    return info.st_mtime_ns, info.st_size, info.st_ino, info.st_ctime_ns


def folder_stamp(root: Path) -> tuple:
    """The stamps of every file of a collection folder and of its runs/ folder (the listing included)."""
    entries = []
    for folder in (root, root / "runs"):
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        for name in names:
            try:
                entries.append((str(folder / name), stamp(folder / name)))
            except OSError:  # a broken symlink or a file removed meanwhile: part of the state too
                entries.append((str(folder / name), None))
    return tuple(entries)


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def file_key(path: Path) -> str:
    return f"file:{path}:{stamp(path)}"


@st.cache_resource(show_spinner="Opening the collection…", max_entries=32)
def collection(path: str, stamp: tuple) -> Collection:
    return open_collection(path)


@st.cache_resource(show_spinner="Reading the judgments…", max_entries=16)
def qrels_file(key: str, path: str) -> Qrels:
    return read_qrels(path)


@st.cache_resource(show_spinner="Reading the run…", max_entries=64)
def run_file(key: str, path: str, name: str) -> Run:
    return read_run(path, name=name)


@st.cache_resource(show_spinner="Reading the upload…", max_entries=16, scope="session")
def upload(key: str, _data: bytes, filename: str, kind: str) -> Run | Qrels:
    return read_run(_data, filename=filename) if kind == "run" else read_qrels(_data, filename=filename)


def _shared(*keys: str) -> bool:
    """Whether results built from these inputs may be shared by every session (no upload among them)."""
    return not any(k.startswith("upload:") for k in keys)


@st.cache_resource(show_spinner="Ordering the rankings…", max_entries=256)
def _ranking_shared(run_key: str, qrels_key: str, ties: str, _run: Run, _qrels: Qrels) -> RankingTable:
    return rank(_run, _qrels, ties=ties)


@st.cache_resource(show_spinner="Ordering the rankings…", max_entries=64, scope="session")
def _ranking_session(run_key: str, qrels_key: str, ties: str, _run: Run, _qrels: Qrels) -> RankingTable:
    return rank(_run, _qrels, ties=ties)


def ranking(run_key: str, qrels_key: str, ties: str, run: Run, qrels: Qrels) -> RankingTable:
    """One run's ranking table under a tie policy (random orders are drawn from trec_eval's)."""
    ties = "trec_eval" if ties == "random" else ties
    build = _ranking_shared if _shared(run_key, qrels_key) else _ranking_session
    return build(run_key, qrels_key, ties, run, qrels)


@st.cache_resource(show_spinner="Computing the measures…", max_entries=512)
def _evaluation_shared(
    run_keys: tuple[str, ...], qrels_key: str, measures: tuple[str, ...], settings: tuple, grouping: str, _inputs: tuple
) -> Evaluation:
    return _evaluate(*_inputs)


@st.cache_resource(show_spinner="Computing the measures…", max_entries=128, scope="session")
def _evaluation_session(
    run_keys: tuple[str, ...], qrels_key: str, measures: tuple[str, ...], settings: tuple, grouping: str, _inputs: tuple
) -> Evaluation:
    return _evaluate(*_inputs)


def _evaluate(tables, measures, settings, groups, weights) -> Evaluation:
    return evaluate_tables(tables, measures, settings, groups=groups, weights=weights)


def evaluation(
    run_keys: Sequence[str],
    qrels_key: str,
    tables: Mapping[str, RankingTable],
    measures: Sequence[Measure],
    settings: EvalSettings,
    *,
    grouping: str,
    groups: QueryGroups | None,
    weights: Mapping[str, float] | None,
) -> Evaluation:
    """An evaluation of the given tables; ``grouping`` names the groups and weights in force (their
    source's key), which the result depends on."""
    key = (tuple(run_keys), qrels_key, tuple(map(str, measures)), tuple(sorted(settings.to_text().items())), grouping)
    build = _evaluation_shared if _shared(*run_keys, qrels_key) else _evaluation_session
    return build(*key, _inputs=(dict(tables), list(measures), settings, groups, weights))


# --- analyses (small results, keyed on the content of their inputs) ---------------------------


@st.cache_data(max_entries=256, show_spinner="Testing…")
def comparison(values: pd.DataFrame, measure: str, settings: tuple, baseline: str) -> pd.DataFrame:
    """:func:`rankviz.analyses.comparisons.compare_runs` on a queries x runs matrix."""
    from rankviz.analyses.comparisons import compare_runs

    return compare_runs(values, TestSettings.from_text(dict(settings), baseline=baseline), measure=measure)


@st.cache_data(max_entries=64, show_spinner="Testing each group…")
def comparison_by_group(values: pd.DataFrame, groups: pd.Series, measure: str, settings: tuple, baseline: str) -> pd.DataFrame:
    from rankviz.analyses.comparisons import compare_by_group

    return compare_by_group(values, groups, TestSettings.from_text(dict(settings), baseline=baseline), measure=measure)


@st.cache_data(max_entries=64, show_spinner="Testing under each tie policy…")
def verdict_changes(matrices: dict[str, pd.DataFrame], measure: str, settings: tuple, baseline: str) -> pd.DataFrame:
    from rankviz.analyses.ties import verdict_changes as changes

    return changes(matrices, measure, TestSettings.from_text(dict(settings), baseline=baseline))


def test_key(settings: TestSettings) -> tuple:
    """A test's settings as a cache key (the baseline goes separately)."""
    return tuple(sorted(settings.to_text().items()))


@st.cache_resource(max_entries=32, show_spinner="Comparing the measures…")
def _metric_report(run_keys: tuple, qrels_key: str, measures: tuple, settings: tuple, task, k: int, test: str, grouping: str,
                   _inputs: tuple):  # fmt: skip
    from rankviz.analyses.metric_choice import metric_report

    tables, measure_list, eval_settings, groups, weights = _inputs
    return metric_report(
        tables, measure_list, eval_settings, task=task, top_k=k, test=test, rng=0, groups=groups, weights=weights
    )


def metric_report(ctx, task, test: str):
    """The Metric choice report of the frame's runs and measures (seeded: the page is reproducible)."""
    tables = {policy: ctx.tables(ties=policy) for policy in ("trec_eval", "pessimistic", "optimistic")}
    key = (
        tuple(ctx.run_keys[n] for n in ctx.selected),
        ctx.qrels_key,
        tuple(map(str, ctx.measures)),
        tuple(sorted(ctx.settings.to_text().items())),
        task,
        ctx.k,
        test,
        ctx.grouping,
    )
    return _metric_report(*key, _inputs=(tables, list(ctx.measures), ctx.settings, ctx.groups, ctx.weights))
