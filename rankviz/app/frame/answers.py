"""The answers a page gets kept under keys of their own, where the study's question would be
computed again for less than its inputs change: the runs each one beats (from the paired tests the
Significance page keeps), the checks (the runs' facts kept apart from the meeting's judgments), the
meeting's report (of two studies), the runs too thinly judged (from the passes), and a figure.
Every other answer is :meth:`Context.ask <rankviz.app.frame.context.Context.ask>`'s."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pandas as pd

from rankviz.app.caches import compute
from rankviz.app.caches.compute import settings_text
from rankviz.app.frame import pass_cache
from rankviz.app.frame.context import Context
from rankviz.settings.eval_settings import EvalSettings
from rankviz.settings.significance_settings import TestSettings
from rankviz.settings.tie_policy import TREC_EVAL
from rankviz.study import (
    BEATS,
    CHECK,
    FACTS,
    JUDGED_WARNING,
    MEETING_REPORT,
    PAIRED_TESTS,
    THINLY_JUDGED,
    THINLY_JUDGED_IN,
    TOP_K,
    CheckReport,
    judged_share_measures,
)


def beats(ctx: Context, tests: TestSettings) -> pd.DataFrame:
    """Runs x measures: the selected runs each one is significantly better than (every pair
    tested, the tests kept as the Significance page's all-pairs heatmap keeps them)."""
    every = tests.replace(pairs="all")
    tables = {str(m): ctx.ask(PAIRED_TESTS, m, every) for m in ctx.measures}
    return ctx.study().ask(BEATS, tests, tables=tables)


def figure(ctx: Context, names: list[str], details: tuple, build: Callable[[], Any]) -> Any:
    """A figure of these runs' results (``details``: what else it shows), built once per key: a
    chart of thousands of queries is not built again on every rerun (Next, a note, a judgment
    elsewhere)."""
    return compute.report("figure", ctx.key(names), details, build)


def check(ctx: Context) -> CheckReport:
    """The checks of the selected runs (:data:`~rankviz.study.check_questions.CHECK`) against the
    qrels file: how runs and qrels fit does not move with the meeting's judgments, nor with K or
    the measures, so the runs' facts are gathered once and a judgment or a new K costs a few
    milliseconds."""
    source = ctx.with_qrels("file")
    counted = EvalSettings(
        rel=ctx.settings.rel,
        depth=ctx.settings.depth,
        ignore_identical_ids=ctx.settings.ignore_identical_ids,
    )  # what the facts depend on
    key = dataclasses.replace(source.key(settings=counted), measures=(), grouping="")
    if pass_cache.passing(ctx) and pass_cache.facts_k(ctx) is not None:  # the passes gathered them
        found = pass_cache.passes(ctx).items()
        facts = {n: p.facts for n, p in found if p.facts is not None}
    else:
        facts = compute.report("facts", key, (TOP_K,), lambda: source.study().ask(FACTS, TOP_K))
    return compute.report(
        "checks", source.key(), (TOP_K,), lambda: source.study().ask(CHECK, TOP_K, facts=facts)
    )


def meeting_report(ctx: Context, pair: tuple[str, str]):
    """What the meeting decided (:data:`~rankviz.study.meeting_questions.MEETING_REPORT`): the
    selected runs with the meeting's judgments against the qrels file alone, of the ``pair`` the
    meeting discussed (baseline, run), cached on the record's identity and version."""
    meeting = ctx.meeting
    if meeting is None or meeting.store is None:
        raise ValueError("no meeting's record to report on")
    with_record, file_only = ctx.with_qrels("meeting"), ctx.with_qrels("file")
    tests = ctx.test_settings()
    details = (settings_text(tests), pair, meeting.identity, meeting.version)
    store = meeting.store

    def build():
        study, file_study = with_record.study(), file_only.study()
        return study.ask(MEETING_REPORT, store, file_study=file_study, test=tests, pair=pair)

    return compute.report("meeting", with_record.key(), details, build)


def thinly_judged(ctx: Context) -> dict[str, float]:
    """The selected runs whose top K the qrels judge less than the warning share, with that
    share: from the passes; under the meeting's judgments from Judged@K and NumRet@K of each
    query, revised for the judged queries alone where the tables would be re-graded whole (a
    quarter of a second per rerun for two MS MARCO-sized runs); else kept under the frame's key
    (the frame's banner and the Overview ask it on every rerun)."""
    if not ctx.ranked:
        return {}
    if pass_cache.passing(ctx):
        found = pass_cache.passes(ctx)
        return {n: p.judged for n, p in found.items() if p.judged < JUDGED_WARNING}
    if ctx.lineage() is not None:  # revised per judgment, as every number of the frame
        ties = TREC_EVAL if ctx.settings.ties.sampled else None
        counts = ctx.evaluation(ties=ties, measures=judged_share_measures(ctx.k))
        return ctx.study().ask(THINLY_JUDGED_IN, ctx.k, counts)
    return compute.report(
        "thinly_judged", ctx.key(), (ctx.k,), lambda: ctx.study().ask(THINLY_JUDGED, ctx.k)
    )
