"""Check before you trust: the mistakes that change what a number means while every number still
computes (ids written two ways, query sets, depths and cutoffs that differ, candidates that hold no
relevant document, rank columns that contradict the scores), found before a number is shown.

Each finding has a code, a severity (``error``, ``warning``, ``note``), the run it concerns, a
count, up to five examples and what to do (:class:`Finding`); :func:`check` runs every check and
:class:`CheckReport` holds them, worst first, with the exit status a CI job gates on.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rankviz.analyses.checks.findings import SEVERITIES, CheckReport, Finding
from rankviz.analyses.checks.ids import document_findings, identical_id_findings, query_findings
from rankviz.analyses.checks.judgments import judgment_findings
from rankviz.analyses.checks.rankings import depth_findings, score_findings, table_findings
from rankviz.evaluation.run_facts import RunFacts
from rankviz.io.model import Qrels
from rankviz.measures import Measure
from rankviz.settings.eval_settings import EvalSettings

#: The top K whose judged share is checked by evaluate, compare and the app (``rankviz check -k``
#: sets it).
TOP_K = 10

#: Every code a check can give, with what it looks for (docs/check.md lists them too).
CODES = {
    "qid-mismatch": "run queries the qrels do not judge, judged queries the run lacks",
    "qid-near-miss": "query ids that match only once trimmed, case-folded, stripped of a prefix or "
    "leading zeros",
    "docid-near-miss": "retrieved ids that match judged ids only once normalised the same ways (or "
    "a #N suffix)",
    "identical-ids": "retrieved documents whose id is the query's",
    "low-judged-overlap": "a run whose top K hardly touches the judged documents",
    "depth-differs": "runs of different depths compared on measures that read past the shallower",
    "depth-below-cutoff": "a measure's cutoff above a run's depth",
    "unretrieved-relevant": "queries whose relevant documents no run retrieves at any depth",
    "rank-score-disagree": "a rank column that contradicts the score order",
    "all-tied": "queries whose retrieved scores are all equal",
    "no-relevant-query": "judged queries without a relevant document",
    "grade-scale": "grades the settings do not expect: above ERR's gmax, a threshold no grade "
    "reaches",
}


def check(
    facts: Mapping[str, RunFacts],
    qrels: Qrels,
    measures: Sequence[Measure],
    settings: EvalSettings | None = None,
    *,
    k: int = 10,
) -> CheckReport:
    """Every check of the runs whose :class:`~rankviz.evaluation.run_facts.RunFacts` are ``facts``
    (gathered with the top ``k``) against ``qrels`` for ``measures`` under ``settings``."""
    settings = settings or EvalSettings()
    findings = [
        *query_findings(facts, qrels, missing=settings.missing),
        *document_findings(facts, qrels),
        *identical_id_findings(facts, ignored=settings.ignore_identical_ids),
        *depth_findings(facts, measures, settings.depth),
        *table_findings(facts, qrels, k, settings.rel),
        *score_findings(facts),
        *judgment_findings(qrels, measures, settings),
    ]
    return CheckReport.of(findings)


__all__ = ["CODES", "SEVERITIES", "TOP_K", "CheckReport", "Finding", "check"]
