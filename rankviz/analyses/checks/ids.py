"""Checks of ids: queries the run and the qrels do not share, ids that match only once normalised
(``q12`` and ``12``, ``msmarco_passage_7`` and ``7``), documents retrieved under their query's
id."""

from __future__ import annotations

from collections.abc import Mapping

from rankviz._arrow import strings
from rankviz.analyses.checks.findings import EXAMPLES, Finding
from rankviz.evaluation.run_facts import RunFacts
from rankviz.io.id_forms import near_misses
from rankviz.io.id_keys import sorted_unique_ids
from rankviz.io.model import Qrels


def query_findings(facts: Mapping[str, RunFacts], qrels: Qrels, *, missing: str) -> list[Finding]:
    """``qid-mismatch`` and ``qid-near-miss`` of every run."""
    judged = qrels.query_ids
    found = []
    for name, run in facts.items():
        extra = sorted_unique_ids(run.unjudged).tolist()
        lacking = sorted_unique_ids(run.missing).tolist()
        misses = near_misses(strings(extra), strings(lacking))
        if misses:
            found.append(
                Finding(
                    "qid-near-miss",
                    "error",
                    f"{len(misses)} query id(s) of the run match judged queries only once "
                    "normalised (case, a prefix, leading zeros): each scores as an unanswered "
                    "query. Write the run's query ids as the qrels do.",
                    run=name,
                    count=len(misses),
                    examples=[f"{a} ~ {b}" for a, b in misses],
                    queries=frozenset(b for _, b in misses),
                )
            )
        if len(lacking) == len(judged):
            found.append(
                Finding(
                    "qid-mismatch",
                    "error",
                    f"the run answers none of the {len(judged)} judged queries ({run.queries} of "
                    "its own): every number of it is 0. Check that run and qrels belong to the "
                    "same topics.",
                    run=name,
                    count=len(judged),
                    examples=extra[:EXAMPLES],
                )
            )
            continue
        if lacking:
            effect = (
                "each scores 0 and counts in the mean (trec_eval -c)"
                if missing == "zero"
                else "they are left out of its mean (missing=skip)"
            )
            found.append(
                Finding(
                    "qid-mismatch",
                    "warning",
                    f"{len(lacking)} of the {len(judged)} judged queries have no ranking in this "
                    "run: "
                    f"{effect}.",
                    run=name,
                    count=len(lacking),
                    examples=lacking,
                    queries=frozenset(lacking),
                )
            )
        if extra:
            found.append(
                Finding(
                    "qid-mismatch",
                    "note",
                    f"{len(extra)} queries of the run are not judged: no measure reads them (as "
                    "trec_eval).",
                    run=name,
                    count=len(extra),
                    examples=extra,
                )
            )
    return found


def document_findings(facts: Mapping[str, RunFacts], qrels: Qrels) -> list[Finding]:
    """``docid-near-miss``: retrieved ids that match judged ids only once normalised (on an even
    sample of the lines of a large run: a systematic difference shows in any sample)."""
    found = []
    for name, run in facts.items():
        seen = run.documents(qrels.docid_forms)
        if not seen.near:
            continue
        sampled = (
            f" (of {seen.looked_at:,} lines looked at, an even sample of {run.lines:,})"
            if seen.looked_at < run.lines
            else ""
        )
        found.append(
            Finding(
                "docid-near-miss",
                "error" if seen.near > seen.as_written else "warning",
                f"{seen.near:,} retrieved lines name a judged document only once its id is "
                "normalised (case, a prefix such as doc: or msmarco_passage_, a #N segment suffix, "
                "leading zeros), against "
                f"{seen.as_written:,} that name "
                f"one as written{sampled}: those documents count as unjudged, so not relevant. "
                "Write the run's ids as the qrels do.",
                run=name,
                count=seen.near,
                examples=[f"{a} ~ {b}" for a, b in seen.examples],
            )
        )
    return found


def identical_id_findings(facts: Mapping[str, RunFacts], *, ignored: bool) -> list[Finding]:
    """``identical-ids``: documents retrieved for a query under that query's own id. Where queries
    are documents too (ArguAna, Quora) the query's own document comes first, and BEIR's rule drops
    it: a warning. Ids that meet by chance (query 171 and document 171 of Cranfield) rank anywhere:
    a note."""
    found = []
    for name, run in facts.items():
        if not run.identical:
            continue
        count, on_top = sum(n for _, n, _ in run.identical), sum(t for _, _, t in run.identical)
        first = on_top / count
        queries = sorted(q for q, _, _ in run.identical)
        if ignored:
            severity, message = (
                "note",
                (f"{count} retrieved documents have their query's id: dropped as asked."),
            )
        elif first >= 0.5:
            severity, message = (
                "warning",
                (
                    f"{count} retrieved documents have their query's id, {first:.0%} of them "
                    "ranked first: the queries are documents of the collection (as in ArguAna, "
                    "Quora, CQADupStack), and BEIR drops them (--ignore-identical-ids). Say which "
                    "rule your numbers follow."
                ),
            )
        else:
            severity, message = (
                "note",
                (
                    f"{count} retrieved documents have their query's id, {first:.0%} of them "
                    "ranked first: most likely two id spaces meeting by chance; if queries are "
                    "documents here, --ignore-identical-ids."
                ),
            )
        found.append(
            Finding(
                "identical-ids",
                severity,
                message,
                run=name,
                count=count,
                examples=queries,
                queries=frozenset(queries),
            )
        )
    return found
