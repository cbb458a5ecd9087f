"""Checks of ids: queries the run and the qrels do not share, ids that match only once normalised
(``q12`` and ``12``, ``msmarco_passage_7`` and ``7``), documents retrieved under their query's id."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from rankviz._arrow import booleans, from_numpy, strings, take_sorted, to_numpy
from rankviz.analyses.checks.findings import EXAMPLES, Finding
from rankviz.io.model import Qrels, Run

#: What every id goes through before two are compared (both sides alike): case, leading zeros.
_BASE = ((r"^0+([0-9]+)$", r"\1"),)
#: What one way of writing an id may add that the other lacks: a passage's segment suffix (doc#3), a
#: word prefix before a number (q12, doc:7, msmarco_passage_7), or both. Never dropped from both
#: sides: KILT_7 and MARCO_D7 are two collections' documents, not one document written two ways.
_SUFFIX = (r"^(.*)#[0-9]+$", r"\1")
_PREFIX = (r"^[a-z][a-z_]*[:_\-]?([0-9]+)$", r"\1")
_ADDITIONS = ((_SUFFIX,), (_PREFIX,), (_SUFFIX, _PREFIX))


#: Lines of a run past which an even sample of this many decides whether to normalise every distinct id
#: (a systematic difference shows in any sample; normalising millions of ids costs seconds).
SAMPLE = 100_000


def _rewritten(keys, rules):
    for pattern, replacement in rules:
        keys = pc.replace_substring_regex(keys, pattern, replacement)
    return keys


def normalised(ids: pa.Array | pa.ChunkedArray) -> pa.Array | pa.ChunkedArray:
    """Each id trimmed, lower-cased, without leading zeros."""
    return _rewritten(pc.utf8_lower(pc.utf8_trim_whitespace(ids)), _BASE)


def near_misses(unmatched: pa.Array, targets: pa.Array) -> list[tuple[str, str]]:
    """(unmatched id, the target it matches once normalised), for every unmatched id that does: equal
    but for case or leading zeros, or once a prefix or suffix only one of the two carries is dropped."""
    if not len(unmatched) or not len(targets):
        return []
    keys, target_keys = normalised(unmatched), normalised(targets)
    match = np.full(len(unmatched), -1, dtype=np.int64)  # the target each unmatched id matches

    def note(found: np.ndarray) -> None:
        fresh = (match < 0) & (found >= 0)
        match[fresh] = found[fresh]

    def index_in(values, value_set) -> np.ndarray:
        return to_numpy(pc.index_in(values, value_set=value_set), fill=-1).astype(np.int64)

    note(index_in(keys, target_keys))
    for rules in _ADDITIONS:
        note(index_in(keys, _rewritten(target_keys, (*rules, *_BASE))))  # the target carries the addition
        shorter = _rewritten(keys, (*rules, *_BASE))  # this id carries it
        note(np.where(booleans(pc.not_equal(shorter, keys)), index_in(shorter, target_keys), -1))
    rows = np.flatnonzero(match >= 0)
    names, wanted = unmatched.take(from_numpy(rows)).to_pylist(), targets.take(from_numpy(match[rows])).to_pylist()
    return [(str(a), str(b)) for a, b in zip(names, wanted, strict=True)]


def query_findings(runs: Mapping[str, Run], qrels: Qrels, *, missing: str) -> list[Finding]:
    """``qid-mismatch`` and ``qid-near-miss`` of every run."""
    judged = set(map(str, qrels.query_ids))
    found = []
    for name, run in runs.items():
        answered = set(map(str, run.query_ids))
        extra, lacking = sorted(answered - judged), sorted(judged - answered)
        misses = near_misses(strings(extra), strings(lacking))
        if misses:
            found.append(Finding(
                "qid-near-miss", "error",
                f"{len(misses)} query id(s) of the run match judged queries only once normalised (case, a prefix, "
                "leading zeros): each scores as an unanswered query. Write the run's query ids as the qrels do.",
                run=name, count=len(misses), examples=[f"{a} ~ {b}" for a, b in misses],
                queries=frozenset(b for _, b in misses),
            ))  # fmt: skip
        if not answered & judged:
            found.append(Finding(
                "qid-mismatch", "error",
                f"the run answers none of the {len(judged)} judged queries ({len(answered)} of its own): every number "
                "of it is 0. Check that run and qrels belong to the same topics.",
                run=name, count=len(judged), examples=sorted(answered)[:EXAMPLES],
            ))  # fmt: skip
            continue
        if lacking:
            effect = ("each scores 0 and counts in the mean (trec_eval -c)" if missing == "zero"
                      else "they are left out of its mean (missing=skip)")  # fmt: skip
            found.append(Finding(
                "qid-mismatch", "warning",
                f"{len(lacking)} of the {len(judged)} judged queries have no ranking in this run: {effect}.",
                run=name, count=len(lacking), examples=lacking, queries=frozenset(lacking),
            ))  # fmt: skip
        if extra:
            found.append(Finding(
                "qid-mismatch", "note",
                f"{len(extra)} queries of the run are not judged: no measure reads them (as trec_eval).",
                run=name, count=len(extra), examples=extra,
            ))  # fmt: skip
    return found


def document_findings(runs: Mapping[str, Run], qrels: Qrels) -> list[Finding]:
    """``docid-near-miss``: retrieved ids that match judged ids only once normalised. A run of more
    lines than :data:`SAMPLE` is first probed on an even sample of its lines (a systematic difference
    shows in any sample); only a probe that finds near misses has every distinct id normalised."""
    found = []
    for name, run in runs.items():
        counted = _near_misses_of(run, qrels, sample=len(run) > SAMPLE)
        if counted is not None and counted[0]:
            counted = _near_misses_of(run, qrels, sample=False)
        if counted is None or not counted[0]:
            continue
        misses, exact = counted
        found.append(Finding(
            "docid-near-miss", "error" if len(misses) > exact else "warning",
            f"{len(misses)} retrieved document ids match judged ids only once normalised (case, a prefix such as "
            f"doc: or msmarco_passage_, a #N segment suffix, leading zeros), against {exact} that match as written: "
            "those documents count as unjudged, so not relevant. Write the run's ids as the qrels do.",
            run=name, count=len(misses), examples=[f"{a} ~ {b}" for a, b in misses],
        ))  # fmt: skip
    return found


def _near_misses_of(run: Run, qrels: Qrels, *, sample: bool) -> tuple[list[tuple[str, str]], int] | None:
    """(near misses, distinct ids judged as written) among the run's distinct ids, or of an even
    sample of its lines; None for an empty run."""
    docids = run.docids
    if not len(docids):
        return None
    if sample:
        docids = take_sorted(docids, np.linspace(0, len(docids) - 1, SAMPLE).astype(np.int64))
    retrieved = pc.unique(docids)
    if isinstance(retrieved, pa.ChunkedArray):
        retrieved = retrieved.combine_chunks()
    target = qrels.doc_ids.cast(retrieved.type)
    is_judged = booleans(pc.is_in(retrieved, value_set=target))
    misses = near_misses(retrieved.take(from_numpy(np.flatnonzero(~is_judged))), target)
    return misses, int(is_judged.sum())


def identical_id_findings(runs: Mapping[str, Run], *, ignored: bool) -> list[Finding]:
    """``identical-ids``: documents retrieved for a query under that query's own id. Where queries are
    documents too (ArguAna, Quora) the query's own document comes first, and BEIR's rule drops it: a
    warning. Ids that meet by chance (query 171 and document 171 of Cranfield) rank anywhere: a note."""
    found = []
    for name, run in runs.items():
        rows = np.flatnonzero(run.identical_ids())
        if not len(rows):
            continue
        codes = run.qid_codes[rows]
        best = np.full(len(run.query_ids), -np.inf)
        inside = np.isin(run.qid_codes, codes)
        np.maximum.at(best, run.qid_codes[inside], run.score[inside])
        first = float(np.mean(run.score[rows] >= best[codes]))  # the share ranked first (its query's top score)
        queries = sorted(set(map(str, run.query_ids[codes])))
        if ignored:
            severity, message = "note", f"{len(rows)} retrieved documents have their query's id: dropped as asked."
        elif first >= 0.5:
            severity, message = (
                "warning",
                (
                    f"{len(rows)} retrieved documents have their query's id, {first:.0%} of them ranked first: the queries "
                    "are documents of the collection (as in ArguAna, Quora, CQADupStack), and BEIR drops them "
                    "(--ignore-identical-ids). Say which rule your numbers follow."
                ),
            )
        else:
            severity, message = (
                "note",
                (
                    f"{len(rows)} retrieved documents have their query's id, {first:.0%} of them ranked first: most "
                    "likely two id spaces meeting by chance; if queries are documents here, --ignore-identical-ids."
                ),
            )
        found.append(Finding("identical-ids", severity, message, run=name, count=len(rows), examples=queries,
                             queries=frozenset(queries)))  # fmt: skip
    return found
