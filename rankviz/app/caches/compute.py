"""The app's computations: :class:`~rankviz.study.study.Study` calls, cached at the app's
boundary.

Each result is kept under a :class:`Key`, the content keys of its inputs and its settings as text.
Results built from files go to the shared cache (every session reuses them); results built from an
upload stay in session-scoped caches. Under the meeting's qrels a new judgment revises the newest
evaluation kept for the queries it judged (:class:`Lineage`) instead of computing everything again.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import astuple, dataclass
from typing import Any

import pandas as pd
import streamlit as st

from rankviz.app.caches.cache import SHARED, code_stamp, give_back, passes_store, shared
from rankviz.app.caches.lineage import Lineage, revising
from rankviz.study import CHANCE, CHANCE_REVISED, Evaluation, Study, Ties
from rankviz.study.run_pass import RunPass


@dataclass(frozen=True)
class Key:
    """What a result depends on, as plain text: the runs' and the qrels' content keys, the measures
    as written canonically, the settings as text, and the key of the groups and weights in force."""

    runs: tuple[str, ...]
    qrels: str
    measures: tuple[str, ...]
    settings: tuple[tuple[str, str], ...]
    grouping: str

    @property
    def shared(self) -> bool:
        return shared(*self.runs, self.qrels)


def settings_text(settings) -> tuple[tuple[str, str], ...]:
    """Settings (evaluation or test) as a cache key."""
    return tuple(sorted(settings.to_text().items()))


# --- ranking tables
# ----------------------------------------------------------------------------------


# --- evaluations
# -------------------------------------------------------------------------------------


@st.cache_resource(
    show_spinner="Computing the measures…", max_entries=128, scope="session", on_release=give_back
)
def _session_result(kind: str, key: tuple, _build: Callable[[], Any]) -> Any:
    return _build()


def evaluation(
    key: Key,
    study: Study,
    names: Sequence[str],
    *,
    lineage: Lineage | None = None,
    ties: Ties | None = None,
    chance: bool = False,
) -> Evaluation:
    """:meth:`Study.evaluation` of ``names`` (under ``ties``, else the study's policy), or with
    ``chance`` their chance level (:data:`~rankviz.study.chance_levels.CHANCE`: each run's values
    were its documents of each query in a random order), which ``key`` describes in full; under
    the meeting's qrels revised for the queries a judgment changed (``lineage``)."""
    kind = "chance" if chance else "evaluation"

    def build() -> Evaluation:
        return study.ask(CHANCE, names) if chance else study.evaluation(names, ties=ties)

    def revise(old: Evaluation, queries: set[str]) -> Evaluation | None:
        if chance:
            return study.ask(CHANCE_REVISED, old, queries, names)
        return study.revised(old, queries, names, ties)

    if not key.shared:
        return _session_result(kind, astuple(key), _build=build)
    full = (kind, astuple(key))
    what = (kind, key.runs, *astuple(key)[2:])
    return SHARED.get(full, revising(full, what, lineage, build, revise))


def on_order(kind: str, key: tuple, build: Callable[[], Any]) -> Any:
    """An answer about the runs' order alone (rank-biased overlap); ``key``: the runs' keys, the
    key of what decides their order, the policy and the question's arguments (a judgment that
    only re-grades keeps it)."""
    if not shared(*key[0], key[1]):
        return _session_result(kind, key, _build=build)
    return SHARED.get((kind, key), build)


# --- one pass per run
# --------------------------------------------------------------------------------

#: Runs passed at once: each holds its run and its table while it is taken (about 1 GB for an MS
#: MARCO-sized run), and NumPy and Arrow release the interpreter for most of the work. One on two
#: cores, where Arrow's reader already takes both: the Overview of 20 MS MARCO-sized runs took the
#: same wall time with two (15-16 s), more CPU (26.8-28.5 CPU-s against 26.2-26.9), a higher peak
#: (2.2 GB against 1.9) and showed its first means later (1.5 s against 1.1):
#: ``python bench/bench_app_scale.py --pass-workers 1|2``.
PASS_WORKERS = max(1, min(2, (os.cpu_count() or 1) // 2))


def run_passes(
    keys: Mapping[str, tuple],
    take: Callable[[str], RunPass],
    progress: Callable[[int, int], None] | None = None,
    arrived: Callable[[str, RunPass], None] | None = None,
    *,
    at_once: Callable[[], int] | None = None,
) -> dict[str, RunPass]:
    """Each run's pass (:mod:`rankviz.study.run_pass`) under its key (everything it depends on, as
    plain values): from memory, else from the disk store (a restarted server), else ``take(name)``,
    a few runs at a time (``at_once()``, asked when a run is missing, else :data:`PASS_WORKERS`).
    ``progress(done, total)`` and ``arrived(name, pass)`` are called here, in the page's thread, as
    runs finish."""
    disk = passes_store()

    def on_disk(name: str) -> RunPass | None:
        arrays = disk.get(repr((code_stamp(), keys[name]))) if disk is not None else None
        try:
            return None if arrays is None else RunPass.from_arrays(arrays)
        except (ValueError, KeyError, TypeError):
            return None  # of another format, or damaged: taken again

    def load(name: str) -> RunPass:
        def build() -> RunPass:
            kept = on_disk(name)  # another session may have kept it meanwhile
            if kept is not None:
                return kept
            made = take(name)
            if disk is not None:
                disk.put(repr((code_stamp(), keys[name])), made.to_arrays())
            return made

        return SHARED.get(("pass", keys[name]), build)

    found = {name: SHARED.peek(("pass", key)) for name, key in keys.items()}
    for name in [name for name, value in found.items() if value is None]:
        kept = on_disk(name)  # before any pass is taken: a restarted server takes none
        if kept is not None:
            found[name] = _kept(("pass", keys[name]), kept)
    missing = [name for name, value in found.items() if value is None]
    if missing:
        if progress is not None:
            progress(0, len(missing))
        workers = at_once() if at_once is not None else PASS_WORKERS
        with ThreadPoolExecutor(min(workers, len(missing))) as pool:
            futures = {pool.submit(load, name): name for name in missing}
            try:
                for done, future in enumerate(as_completed(futures), start=1):
                    found[futures[future]] = future.result()
                    if progress is not None:
                        progress(done, len(missing))
                    if arrived is not None:
                        arrived(futures[future], found[futures[future]])
            except BaseException:
                for future in futures:
                    future.cancel()
                raise
    return {name: value for name, value in found.items() if value is not None}


def _kept(key: tuple, value: RunPass) -> RunPass:
    """``value`` kept in memory under ``key`` (or the one kept there first)."""
    return SHARED.get(key, lambda: value)


# --- analyses (small results, keyed on the content of their inputs)
# ---------------------------------


@st.cache_data(max_entries=256, show_spinner="Testing…")
def _on_values(kind: str, content: str, details: tuple, _ask: Callable[[], Any]) -> Any:
    return _ask()


def on_values(kind: str, values: pd.DataFrame, details: tuple, _ask: Callable[[], Any]) -> Any:
    """A small answer about a queries x runs matrix (paired tests, effect sizes), kept under the
    matrix's content and ``details`` (plain values): a judgment that leaves a measure's values as
    they were costs nothing here."""
    return _on_values(kind, values_digest(values), details, _ask=_ask)


def values_digest(values: pd.DataFrame) -> str:
    """The content of a queries x runs matrix of numbers as a digest: its queries, its runs and
    every value's bytes (Streamlit's own hashing of a frame costs several times more)."""
    import numpy as np

    numbers = np.ascontiguousarray(values.to_numpy(dtype=np.float64))
    digest = hashlib.blake2b(digest_size=16)
    digest.update(repr((values.index.tolist(), values.columns.tolist())).encode())
    digest.update(numbers.tobytes())
    return digest.hexdigest()


@st.cache_resource(max_entries=32, show_spinner="Computing the report…")
def _report(kind: str, key: tuple, details: tuple, _build: Callable[[], Any]) -> Any:
    return _build()


def report(kind: str, key: Key, details: tuple, build: Callable[[], Any]) -> Any:
    """A study's report (``kind``: ties, unjudged, metrics) of the inputs ``key`` describes, with
    the report's own parameters as ``details`` (plain values)."""
    return _report(kind, astuple(key), details, _build=build)
