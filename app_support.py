"""The app's boundary with rankviz: cached loaders, URL state and the settings every page reads.

This is the only module besides the pages that imports streamlit (the ``rankviz`` package never
does). Heavy objects (runs, ranking tables) are cached as resources and never mutated; small
tables (per-query values) as data.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import streamlit as st

from rankviz import compare
from rankviz.evaluate import Conventions
from rankviz.io.collection import Collection, open_collection
from rankviz.io.readers import Qrels, Run, read_qrels, read_run
from rankviz.measures import Measure, make, parse
from rankviz.ranking import RankingTable, rank

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

    def tables(self, names: list[str] | None = None, ties: str | None = None) -> dict[str, RankingTable]:
        return {n: ranking(self.runs[n], self.qrels, ties or self.ties) for n in (names or self.selected)}

    def matrix(self, measure: Measure, names: list[str] | None = None, ties: str | None = None) -> pd.DataFrame:
        return matrix(tuple(self.tables(names, ties).values()), str(measure), self.missing)

    def conventions(self) -> list[str]:
        lines = Conventions(ties=self.ties, missing=self.missing).describe()
        lines.append(f"relevant: grade >= {self.rel} (binary measures)")
        lines.append(f"nDCG gain: {'grade (linear, trec_eval)' if self.gain == 'linear' else '2^grade - 1 (exp, gdeval)'}")
        lines.append(f"ERR: R = (2^g - 1) / 2^{self.gmax} (gmax = {self.gmax})")
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


