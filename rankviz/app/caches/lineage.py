"""The app's ranking tables, and the meeting's lineage: a judgment revises the newest results
for the queries it judged instead of computing everything again."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import streamlit as st

from rankviz.app.caches.cache import SHARED, give_back, shared
from rankviz.ranking.regrading import ordered
from rankviz.settings.eval_settings import RunCut
from rankviz.settings.tie_policy import TiePolicy
from rankviz.study import Evaluation, MeetingStore, Qrels, Run

if TYPE_CHECKING:
    from rankviz.study import RankingTable


@dataclass(frozen=True)
class Lineage:
    """Qrels that follow a meeting's record: the qrels file (``base``) with its judgments up to
    ``version``."""

    base: str
    version: int
    store: MeetingStore


#: (what, lineage base) -> (version, cache key, digest of the judgments up to version) of the newest
#: result built
_NEWEST: dict[tuple, tuple[int, tuple, str]] = {}


_NEWEST_LOCK = threading.Lock()


@st.cache_resource(
    show_spinner="Ordering the rankings…", max_entries=64, scope="session", on_release=give_back
)
def _ranking_session(
    run_key: str,
    qrels_key: str,
    ties: TiePolicy,
    cut: RunCut,
    _run: Callable[[], Run],
    _qrels: Qrels,
) -> RankingTable:
    return ordered(_run(), _qrels, ties, cut)


def ranking(
    run_key: str,
    qrels_key: str,
    ties: TiePolicy,
    cut: RunCut,
    run: Callable[[], Run],
    qrels: Qrels,
    *,
    regrade_from: tuple[str, Qrels] | None = None,
    lineage: Lineage | None = None,
) -> RankingTable:
    """One run's ranking table under a policy that builds its own order (the study asks for no
    other); ``run`` opens the run, called only when the table is not kept.

    ``regrade_from``: the key and qrels of a table these qrels only re-grade (the qrels file, when
    the meeting's judgments are in force): a new judgment then costs a re-grading, not a new
    ordering.
    ``lineage``: the record these qrels follow; the newest table of the lineage is then re-graded
    for the queries judged since alone (a judgment costs its query, not the run's millions of
    lines)."""
    if not shared(run_key, qrels_key):
        return _ranking_session(run_key, qrels_key, ties, cut, run, qrels)
    key = ("ranking", run_key, qrels_key, ties, cut)

    def build() -> RankingTable:
        what = ("ranking", run_key, ties, cut)
        newest = _newest(what, lineage) if ties.regradable else None
        opened = run()
        if newest is not None:  # a few queries re-graded: milliseconds, no spinner (a thread)
            table = ordered(opened, qrels, ties, cut, like=newest[0], changed=newest[1])
        else:
            with st.spinner(f"Ordering the rankings of {opened.name}…"):
                like = None
                if regrade_from is not None and regrade_from[0] != qrels_key and ties.regradable:
                    like = ranking(
                        run_key, regrade_from[0], ties, cut, lambda: opened, regrade_from[1]
                    )
                table = ordered(opened, qrels, ties, cut, like=like)
        _remember(what, lineage, key)
        return table

    return SHARED.get(key, build)


def orderer(
    run_keys: dict[str, str],
    qrels_key: str,
    keyed: Qrels,
    regrade_from: tuple[str, Qrels] | None,
    lineage: Lineage | None = None,
) -> Callable:
    """The study's orderer: each run's table from the cache, by its content key, for the qrels
    ``keyed`` (those ``qrels_key`` names). A twin study that shares it with other qrels (the
    meeting's report asks for the file's) gets its tables ordered for those, never this key's."""

    def order(
        name: str, run: Callable[[], Run], qrels: Qrels, ties: TiePolicy, cut: RunCut
    ) -> RankingTable:
        if qrels is not keyed:
            return ordered(run(), qrels, ties, cut)
        return ranking(
            run_keys[name],
            qrels_key,
            ties,
            cut,
            run,
            qrels,
            regrade_from=regrade_from,
            lineage=lineage,
        )

    return order


def _newest(what: tuple, lineage: Lineage | None) -> tuple[Any, set[str]] | None:
    """The newest result of ``what`` kept for an older version of the lineage's record, and the
    queries judged since it (None without one, or when a judgment it was built on has changed since:
    a record replaced by a copy or edited by hand is rebuilt, never revised)."""
    if lineage is None:
        return None
    with _NEWEST_LOCK:
        newest = _NEWEST.get((what, lineage.base))
    if newest is None or newest[0] >= lineage.version:
        return None
    previous = SHARED.peek(newest[1])
    if previous is None or lineage.store.judgments_digest(newest[0]) != newest[2]:
        return None
    return previous, lineage.store.queries_judged_after(newest[0], lineage.version)


def _remember(what: tuple, lineage: Lineage | None, key: tuple) -> None:
    """``key`` holds the newest result of ``what`` for the lineage's version."""
    if lineage is None:
        return
    with _NEWEST_LOCK:
        newer = _NEWEST.get((what, lineage.base), (-1,))[0] < lineage.version
    if not newer:
        return
    # read outside the lock: it touches the record
    digest = lineage.store.judgments_digest(lineage.version)
    with _NEWEST_LOCK:
        if _NEWEST.get((what, lineage.base), (-1,))[0] < lineage.version:
            _NEWEST[(what, lineage.base)] = (lineage.version, key, digest)


def revising(
    key: tuple,
    what: tuple,
    lineage: Lineage | None,
    build: Callable[[], Evaluation],
    revise: Callable[[Evaluation, set[str]], Evaluation | None],
) -> Callable[[], Evaluation]:
    """``build``, or with a lineage, the newest kept evaluation of ``what`` revised for the queries
    judged since."""
    if lineage is None:
        return build

    def revised() -> Evaluation:
        newest = _newest(what, lineage)
        result = revise(*newest) if newest is not None else None
        result = build() if result is None else result
        _remember(what, lineage, key)
        return result

    return revised
