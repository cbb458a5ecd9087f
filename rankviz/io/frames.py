"""Runs and qrels from Python objects: pandas DataFrames, ``{qid: {docid: value}}`` dicts (the shape
of pytrec_eval and ranx's ``to_dict()``), ranx ``Run`` / ``Qrels`` objects and ir_measures' named
tuples (``query_id, doc_id, score`` / ``relevance``). They go through the same checks as files:
a missing column, an empty id, a non-finite score, a fractional grade or a duplicate pair is an error.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping

import numpy as np
import pyarrow as pa

from rankviz.errors import FormatError, OptionError
from rankviz.io.model import Qrels, Run, docid_numbers, encode, encode_queries, pair_keys
from rankviz.io.named import COLUMN_ALIASES
from rankviz.io.readers import read_qrels, read_run
from rankviz.io.trec import GRADE_RANGE


def run_from_frame(frame, *, name: str = "run") -> Run:
    """A run from a DataFrame with columns ``qid, docid, score`` (aliases as in CSV files; ``rank`` optional)."""
    columns = _columns(frame, ("qid", "docid", "score"), ("rank",), f"DataFrame {name!r}")
    return _run(columns, name, f"DataFrame {name!r}")


def qrels_from_frame(frame, *, source: str = "DataFrame") -> Qrels:
    """Qrels from a DataFrame with columns ``qid, docid, rel`` (aliases as in CSV files)."""
    columns = _columns(frame, ("qid", "docid", "rel"), (), source)
    return _qrels(columns, source)


def run_from_dict(scores: Mapping[str, Mapping[str, float]], *, name: str = "run") -> Run:
    """A run from ``{qid: {docid: score}}``."""
    qid, docid, score = _flatten(scores)
    return _run({"qid": qid, "docid": docid, "score": np.asarray(score, dtype=np.float64)}, name, f"dict {name!r}")


def qrels_from_dict(grades: Mapping[str, Mapping[str, int]], *, source: str = "dict") -> Qrels:
    """Qrels from ``{qid: {docid: grade}}``."""
    qid, docid, grade = _flatten(grades)
    return _qrels({"qid": qid, "docid": docid, "rel": grade}, source)


def as_run(value, *, name: str | None = None) -> Run:
    """A :class:`Run` from a Run, a path, a DataFrame, a dict, a ranx Run or ir_measures' tuples."""
    if isinstance(value, Run):
        return value
    if isinstance(value, (str, os.PathLike, bytes)):
        return read_run(value, name=name)
    if type(value).__name__ == "DataFrame":
        return run_from_frame(value, name=name or "run")
    if isinstance(value, Mapping):
        return run_from_dict(value, name=name or "run")
    if hasattr(value, "to_dict"):  # ranx.Run
        return run_from_dict(value.to_dict(), name=name or getattr(value, "name", None) or "run")
    if isinstance(value, Iterable):  # ir_measures ScoredDoc(query_id, doc_id, score)
        rows = [(r.query_id, r.doc_id, r.score) for r in value]
        return run_from_dict(_nest(rows), name=name or "run")
    raise OptionError(f"cannot read a run from a {type(value).__name__}")


def as_qrels(value) -> Qrels:
    """:class:`Qrels` from Qrels, a path, a DataFrame, a dict, a ranx Qrels or ir_measures' tuples."""
    if isinstance(value, Qrels):
        return value
    if isinstance(value, (str, os.PathLike, bytes)):
        return read_qrels(value)
    if type(value).__name__ == "DataFrame":
        return qrels_from_frame(value)
    if isinstance(value, Mapping):
        return qrels_from_dict(value)
    if hasattr(value, "to_dict"):  # ranx.Qrels
        return qrels_from_dict(value.to_dict(), source="ranx Qrels")
    if isinstance(value, Iterable):  # ir_measures Qrel(query_id, doc_id, relevance)
        return qrels_from_dict(_nest([(r.query_id, r.doc_id, r.relevance) for r in value]), source="qrels tuples")
    raise OptionError(f"cannot read qrels from a {type(value).__name__}")


def _nest(rows) -> dict:
    nested: dict = {}
    for qid, docid, value in rows:
        docs = nested.setdefault(str(qid), {})
        if str(docid) in docs and docs[str(docid)] != value:
            raise FormatError("tuples", 0, f"{qid} {docid}", "docid appears twice for the query with different values")
        docs[str(docid)] = value
    return nested


def _flatten(nested: Mapping) -> tuple[list[str], list[str], list]:
    qid, docid, value = [], [], []
    for q, docs in nested.items():
        for d, v in docs.items():
            qid.append(str(q))
            docid.append(str(d))
            value.append(v)
    if not qid:
        raise FormatError("dict", 0, None, "empty: no (qid, docid) pair")
    return qid, docid, value


def _columns(frame, required: tuple[str, ...], optional: tuple[str, ...], source: str) -> dict:
    lower = {str(c).strip().lower(): c for c in frame.columns}
    out = {}
    for canonical in required + optional:
        match = next((lower[a] for a in COLUMN_ALIASES[canonical] if a in lower), None)
        if match is None and canonical in required:
            accepted = ", ".join(COLUMN_ALIASES[canonical])
            raise FormatError(source, 0, None, f"missing column {canonical!r} (accepted names: {accepted})")
        if match is not None:
            column = frame[match]
            out[canonical] = column.astype(str).tolist() if canonical in ("qid", "docid") else column.to_numpy()
    if not len(frame):
        raise FormatError(source, 0, None, "empty: no rows")
    return out


def _check_ids(columns: dict, source: str) -> None:
    for name in ("qid", "docid"):
        for i, text in enumerate(columns[name]):
            if not text.strip():
                raise FormatError(source, 0, None, f"row {i + 1}: empty {name}")


def _run(columns: dict, name: str, source: str) -> Run:
    _check_ids(columns, source)
    try:
        score = np.asarray(columns["score"], dtype=np.float64)
    except (TypeError, ValueError):
        raise FormatError(source, 0, None, "scores must be numbers") from None
    bad = np.flatnonzero(~np.isfinite(score))
    if len(bad):
        raise FormatError(source, 0, None, f"row {bad[0] + 1}: score {columns['score'][bad[0]]!r} is not a finite number")
    qid, docid = pa.array(columns["qid"], pa.string()), pa.array(columns["docid"], pa.string())
    queries = encode_queries(qid)
    keys = np.sort(pair_keys(queries["qid_codes"], docid, None))
    if np.any(keys[1:] == keys[:-1]):
        raise FormatError(source, 0, None, "a docid appears twice for one query")
    rank = np.asarray(columns["rank"], np.float64) if "rank" in columns else np.arange(1, len(score) + 1, dtype=np.float64)
    return Run(name=name, source=source, **queries, docids=docid, score=score, rank=rank, docid_numbers=docid_numbers(docid))


def _qrels(columns: dict, source: str) -> Qrels:
    _check_ids(columns, source)
    try:
        grade = np.asarray(columns["rel"], dtype=np.float64)
    except (TypeError, ValueError):
        raise FormatError(source, 0, None, "grades must be integers") from None
    bad = np.flatnonzero(~np.isfinite(grade) | (grade % 1 != 0) | (grade < GRADE_RANGE[0]) | (grade > GRADE_RANGE[1]))
    if len(bad):
        raise FormatError(source, 0, None, f"row {bad[0] + 1}: grade {columns['rel'][bad[0]]!r} is not an integer in range")
    qid, docid = pa.array(columns["qid"], pa.string()), pa.array(columns["docid"], pa.string())
    encoded = encode(qid, docid)
    keys = pair_keys(encoded["qid_codes"], docid, None)
    _, first, counts = np.unique(keys, return_index=True, return_counts=True)
    if (counts > 1).any():
        raise FormatError(source, 0, None, "the same (qid, docid) is judged twice")
    return Qrels(**encoded, source=source, grade=grade.astype(np.int64))
