"""Checks of the judgments against the conventions in force: queries without a relevant document,
grades the settings do not expect."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from rankviz.analyses.checks.findings import Finding
from rankviz.io.model import Qrels
from rankviz.measures import Measure
from rankviz.settings.eval_settings import EvalSettings


def judgment_findings(
    qrels: Qrels, measures: Sequence[Measure], settings: EvalSettings
) -> list[Finding]:
    """``no-relevant-query`` and ``grade-scale``."""
    found: list[Finding] = []
    if not len(qrels.grade):
        return found
    top = int(qrels.grade.max())
    thresholds = sorted(
        {int(m.number("rel")) for m in measures if any(p.name == "rel" for p in m.family.params)}
        | {settings.rel}
    )
    unreachable = [t for t in thresholds if t > top]
    if unreachable:
        found.append(
            Finding(
                "grade-scale",
                "error",
                f"no judgment reaches the relevance threshold {unreachable[0]} (the highest grade "
                "is "
                f"{top}): every binary "
                "measure is 0 for every run. Lower the threshold (--rel) or check the qrels.",
                count=len(unreachable),
                examples=[f"rel={t}" for t in unreachable],
            )
        )
    for measure in measures:
        if any(p.name == "gmax" for p in measure.family.params) and top > measure.number("gmax"):
            above = int((qrels.grade > measure.number("gmax")).sum())
            found.append(
                Finding(
                    "grade-scale",
                    "error",
                    f"{above} judgments have a grade above {measure}'s gmax of "
                    f"{measure.number('gmax'):g} (up to {top}): "
                    "its stopping probabilities would pass 1. Set gmax to the collection's highest "
                    "grade (--gmax).",
                    count=above,
                    examples=[str(measure)],
                )
            )
    relevant = np.bincount(
        qrels.qid_codes[qrels.grade >= settings.rel], minlength=len(qrels.query_ids)
    )
    empty = [str(q) for q in np.asarray(qrels.query_ids)[relevant == 0]]
    if empty:
        found.append(
            Finding(
                "no-relevant-query",
                "note",
                f"{len(empty)} judged queries have no document of grade {settings.rel} or more: "
                "every run scores 0 on them under every measure (trec_eval counts them; they lower "
                "every mean alike and tell no run apart).",
                count=len(empty),
                examples=empty,
                queries=frozenset(empty),
            )
        )
    return found
