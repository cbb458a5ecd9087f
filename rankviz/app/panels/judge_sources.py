"""The Judgments page's sources: the collection's qrels files and the meeting's record, split by who
made its entries, each read through the app's caches; and their comparison, cached per pair of
sources.

A source's ranking tables are cached under its own key (never the qrels in force's), so comparing
judges can never be served the numbers of other judgments.
"""

from __future__ import annotations

from rankviz.app.caches import compute, inputs
from rankviz.app.caches.cache import SHARED, file_key
from rankviz.app.caches.compute import settings_text
from rankviz.app.frame.context import Context
from rankviz.study import AgreementReport, Qrels
from rankviz.study.judges_opening import record_judges
from rankviz.study.record import is_source
from rankviz.study.studies import compare_judges

MEETING = "meeting"


def offered(ctx: Context) -> dict[str, str]:
    """Each source the page can compare, by name, with its kind: the collection's qrels files, then
    the meeting's record (all its grades in force; the people's; each source label's imports)."""
    found = {name: source.kind for name, source in ctx.collection.judges.items()}
    meeting = ctx.meeting
    # no grade of the record can be used
    if meeting is None or meeting.store is None or not meeting.judgments:
        return found
    found[MEETING] = "meeting"
    store = meeting.store
    labels = SHARED.get(
        ("record labels", str(meeting.path), meeting.version.content),
        lambda: sorted({j.by for j in store.judgments() if is_source(j.by)}),
    )
    if labels:
        found[f"{MEETING}:people"] = "human"
        found.update(
            {
                f"{MEETING}:{label}": label if label.startswith("llm:") else "human"
                for label in labels
            }
        )
    return found


def judgments(ctx: Context, name: str) -> tuple[Qrels, str]:
    """A source's qrels and their cache key (a file's content, or the record's identity and
    version)."""
    if name in ctx.collection.judges:
        path = ctx.collection.judges[name].path
        key = file_key(path)
        return inputs.qrels_file(key, str(path)), key
    meeting = ctx.meeting
    assert meeting is not None and meeting.store is not None, (
        "offered() lists the record's sources only when it has judgments"
    )
    store, who = meeting.store, name.removeprefix(MEETING).lstrip(":")
    key = f"record:{meeting.path}:{meeting.version.content}:{meeting.scale}:{who}"
    return SHARED.get(("record judges", key), lambda: record_judges(store, who, None).qrels), key


def report(ctx: Context, a: str, b: str) -> AgreementReport:
    """Source ``a`` (with the frame's runs, measures and settings) against source ``b``."""
    kinds = offered(ctx)
    qrels_a, key_a = judgments(ctx, a)
    qrels_b, key_b = judgments(ctx, b)
    under_a = ctx.judged_by(qrels_a, key_a)
    tests = ctx.test_settings()
    details = (key_b, a, b, settings_text(tests), tests.baseline, ctx.k)

    def build() -> AgreementReport:
        study = under_a.study()
        return compare_judges(
            study, qrels_b, names=(a, b), kinds=(kinds[a], kinds[b]), test=tests, k=ctx.k
        )

    return compute.report("agreement", under_a.key(), details, build)
