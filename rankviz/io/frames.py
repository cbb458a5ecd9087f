"""Runs and qrels from Python objects: pandas DataFrames, ``{qid: {docid: value}}`` dicts (the shape
of pytrec_eval and ranx's ``to_dict()``), ranx ``Run`` / ``Qrels`` objects and ir_measures' named
tuples (``query_id, doc_id, score`` / ``relevance``). They go through the checks of files with
named columns (:func:`rankviz.io.named.columns_from_frame`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping

import numpy as np

from rankviz.errors import FormatError, OptionError
from rankviz.io.encoding import encode, encode_queries
from rankviz.io.model import Qrels, Run
from rankviz.io.named import columns_from_frame
from rankviz.io.readers import read_qrels, read_run


def run_from_frame(frame, *, name: str = "run") -> Run:
    """A run from a DataFrame with columns ``qid, docid, score`` (aliases as in CSV files;
    ``rank`` optional).

    Parameters
    ----------
    frame
        One row per retrieved document.
    name
        The run's name in every output.

    Returns
    -------
    Run
        The run, checked as every reader checks it."""
    columns = columns_from_frame(
        frame, f"DataFrame {name!r}", ("qid", "docid", "score"), ("rank",), "error"
    )
    score = columns["score"]
    rank = columns["rank"] if "rank" in columns else np.arange(1, len(score) + 1, dtype=np.float64)
    docid = columns["docid"]
    queries = encode_queries(columns["qid"])
    return Run(
        name=name,
        source=f"DataFrame {name!r}",
        query_ids=queries["query_ids"],
        qid_codes=queries["qid_codes"],
        query_id_strings=queries["query_id_strings"],
        query_id_index=queries["query_id_index"],
        docids=docid,
        score=score,
        rank_column=rank,
    )


def qrels_from_frame(frame, *, source: str = "DataFrame") -> Qrels:
    """Qrels from a DataFrame with columns ``qid, docid, rel`` (aliases as in CSV files).

    Parameters
    ----------
    frame
        One row per judgment.
    source
        What messages call it.

    Returns
    -------
    Qrels
        The judgments, checked as every reader checks them."""
    columns = columns_from_frame(frame, source, ("qid", "docid", "rel"), (), "qrels")
    return Qrels(**encode(columns["qid"], columns["docid"]), source=source, grade=columns["rel"])


def run_from_dict(scores: Mapping[str, Mapping[str, float]], *, name: str = "run") -> Run:
    """A run from ``{qid: {docid: score}}``.

    Parameters
    ----------
    scores
        Each query's documents and their scores (higher is better).
    name
        The run's name in every output.

    Returns
    -------
    Run
        The run."""
    return run_from_frame(_frame(scores, "score", f"dict {name!r}"), name=name)


def qrels_from_dict(grades: Mapping[str, Mapping[str, int]], *, source: str = "dict") -> Qrels:
    """Qrels from ``{qid: {docid: grade}}``.

    Parameters
    ----------
    grades
        Each query's documents and their integer grades (below 0: in the pool, unjudged).
    source
        What messages call it.

    Returns
    -------
    Qrels
        The judgments."""
    return qrels_from_frame(_frame(grades, "rel", source), source=source)


def as_run(value, *, name: str | None = None) -> Run:
    """A run from whatever holds it: a Run, a path, a DataFrame, a dict, a ranx Run or
    ir_measures' tuples.

    Parameters
    ----------
    value
        The run: a :class:`Run` (returned as it is, renamed when ``name`` is given), a path (read
        as :func:`read_run` reads it), a DataFrame with ``qid, docid, score``, ``{qid: {docid:
        score}}``, a ranx ``Run`` or an iterable of ir_measures' ``ScoredDoc`` tuples.
    name
        The run's name in every output (default: the file's stem, ranx's name, or ``run``).

    Returns
    -------
    Run
        The run, checked as every reader checks it."""
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
    # ir_measures ScoredDoc(query_id, doc_id, score), a list or its generator
    if isinstance(value, Iterable):
        return run_from_frame(
            _tuples(_fields(value, ("query_id", "doc_id", "score")), "score"), name=name or "run"
        )
    raise OptionError(f"cannot read a run from a {type(value).__name__}")


def as_qrels(value) -> Qrels:
    """Qrels from whatever holds them: Qrels, a path, a DataFrame, a dict, a ranx Qrels or
    ir_measures' tuples.

    Parameters
    ----------
    value
        The judgments: a :class:`Qrels` (returned as it is), a path (read as :func:`read_qrels`
        reads it), a DataFrame with ``qid, docid, rel``, ``{qid: {docid: grade}}``, a ranx
        ``Qrels`` or an iterable of ir_measures' ``Qrel`` tuples.

    Returns
    -------
    Qrels
        The judgments, checked as every reader checks them."""
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
        return qrels_from_frame(
            _tuples(_fields(value, ("query_id", "doc_id", "relevance")), "rel"),
            source="qrels tuples",
        )
    raise OptionError(f"cannot read qrels from a {type(value).__name__}")


def _fields(rows: Iterable, names: tuple[str, str, str]) -> list[tuple]:
    """The three named fields of each row (ir_measures' ScoredDoc or Qrel tuples); anything else is
    refused with what was expected, never an AttributeError from deep inside."""
    found = []
    for number, row in enumerate(rows, 1):
        try:
            found.append(tuple(getattr(row, field) for field in names))
        except AttributeError:
            raise OptionError(
                f"item {number} is a {type(row).__name__}, not a tuple with fields "
                f"{', '.join(names)} "
                "(ir_measures' ScoredDoc or Qrel)"
            ) from None
    return found


def _tuples(rows: list[tuple], value: str):
    import pandas as pd

    return pd.DataFrame(rows, columns=["qid", "docid", value])


def _frame(nested: Mapping, value: str, source: str):
    rows = [(q, d, v) for q, docs in nested.items() for d, v in docs.items()]
    if not rows:
        raise FormatError(source, 0, None, "empty: no (qid, docid) pair")
    return _tuples(rows, value)
