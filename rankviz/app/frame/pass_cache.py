"""The numbers every page starts from, taken in one pass per run
(:data:`rankviz.study.passes.RUN_PASS`) and kept on disk, so a restarted server shows the
Overview without reading a run again: which numbers of a frame come from the passes, the passes
taken, and the evaluation assembled from them."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from rankviz.app.caches import cluster, compute, inputs
from rankviz.app.caches.cache import SHARED
from rankviz.app.caches.compute import settings_text
from rankviz.app.frame.frame_inputs import FrameInputs
from rankviz.ranking.regrading import fresh
from rankviz.settings.tie_policy import EXPECTED
from rankviz.study import FROM_PASSES, RUN_PASS, TOP_K, Evaluation
from rankviz.study.run_pass import RunPass


def passing(frame: FrameInputs, names: list[str] | None = None) -> bool:
    """Whether the frame's numbers of these runs come from one pass per run
    (:mod:`rankviz.study.run_pass`): not with an upload among them (kept per session), nor under
    the meeting's judgments (a judgment revises the newest numbers instead), nor under random
    ties (drawn for all runs at once)."""
    return (
        frame.ranked
        and frame.key(names).shared
        and frame.lineage() is None
        and not frame.settings.ties.sampled
    )


def facts_k(frame: FrameInputs) -> int | None:
    """The checks' K when the qrels in force are those the checks compare with (the file), else
    None."""
    meeting = frame.meeting
    return TOP_K if meeting is None or frame.qrels_key == meeting.file_key else None


def passes(
    frame: FrameInputs,
    names: list[str] | None = None,
    progress: Callable[[int, int], None] | None = None,
    arrived: Callable[[str, RunPass], None] | None = None,
) -> dict[str, RunPass]:
    """Each run's pass under the frame's measures and settings (see :func:`passing`), taken once
    per run, qrels and settings and kept on disk: ``progress(done, total)`` and
    ``arrived(name, pass)`` as the missing ones finish."""
    names = names or frame.selected
    checks_k = facts_k(frame)
    # each table dropped after its pass
    study = dataclasses.replace(frame.study(names), orderer=fresh)
    # not how means are taken
    counted = settings_text(frame.settings.replace(aggregate="query", group_by=None))
    measures = tuple(m.key for m in frame.measures)
    keys = {
        n: (frame.run_keys[n], frame.qrels_key, measures, counted, frame.k, checks_k) for n in names
    }

    def here(name: str) -> RunPass:
        return study.ask(RUN_PASS, name, k=frame.k, facts_k=checks_k)

    take: Callable[[str], RunPass] = here
    at_once = None
    address = inputs.scheduler()
    if address is not None:
        paths = frame.collection.run_paths
        take, at_once = cluster.taker(address, study, paths, frame.k, checks_k)
    return compute.run_passes(keys, take, progress, arrived, at_once=at_once)


def assembled(frame: FrameInputs, names: list[str], *, chance: bool = False) -> Evaluation:
    """The evaluation (or chance level) of ``names`` from their passes, kept under the frame's
    key."""
    key = frame.key(
        names, settings=frame.settings.replace(ties=EXPECTED) if chance else frame.settings
    )

    def build() -> Evaluation:
        found = passes(frame, names)
        return frame.study(names).ask(FROM_PASSES, [(n, found[n]) for n in names], chance=chance)

    return SHARED.get(
        ("chance" if chance else "evaluation", "passes", dataclasses.astuple(key)), build
    )
