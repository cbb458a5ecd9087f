"""Read runs and relevance judgments from paths or bytes, in any supported format.

TREC files (:mod:`rankviz.io.trec`, plain or gzip) unless the name says ``.csv``, ``.parquet`` or a
``.tsv`` whose header names the columns (:mod:`rankviz.io.named`). Every reader returns the same
:class:`~rankviz.io.model.Run` / :class:`~rankviz.io.model.Qrels`, or raises a
:class:`~rankviz.errors.FormatError` naming the file, the line and the reason.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np
import pyarrow as pa

from rankviz.errors import OptionError, shell_quoted
from rankviz.io.encoding import encode, encode_queries
from rankviz.io.model import Qrels, Run
from rankviz.io.named import COLUMN_ALIASES, read_named
from rankviz.io.sources import Source, first_line, label_of, sniff
from rankviz.io.trec import read_trec

DUPLICATE_POLICIES = ("error", "first")

__all__ = [
    "DUPLICATE_POLICIES",
    "Qrels",
    "Run",
    "read_qrels",
    "read_run",
    "run_name_from_path",
    "run_names",
    "unique_names",
]


def run_name_from_path(path: str) -> str:
    """``bm25.run.gz`` -> ``bm25``: drop ``.gz`` and then one further extension; a name the file
    system's encoding cannot decode (a Latin-1 name from an old archive) as a shell prints it
    (``$'caf\\351'``), so that every output can print it."""
    base = os.path.basename(str(path))
    if base.endswith(".gz"):
        base = base[:-3]
    stem, dot, _ext = base.rpartition(".")
    return shell_quoted(stem if dot and stem else base)


def run_names(paths: Sequence[str | os.PathLike]) -> list[str]:
    """A unique name per run file: its base name (:func:`run_name_from_path`), or where two files
    share one, the shortest trailing part of their paths that tells them apart (``a/run.txt`` and
    ``b/run.txt`` are ``a/run`` and ``b/run``). The same file named twice is an error."""
    texts = [os.path.normpath(os.fspath(p)) for p in paths]
    seen: dict[str, str] = {}
    for text in texts:
        real = os.path.realpath(text)
        if real in seen:
            raise OptionError(
                f"{text}: the same run file is given twice (as {seen[real]} and {text})"
            )
        seen[real] = text
    names = [run_name_from_path(t) for t in texts]
    for name in set(names):
        clashing = [i for i, n in enumerate(names) if n == name]
        if len(clashing) < 2:
            continue
        parts = {i: os.path.abspath(texts[i]).split(os.sep) for i in clashing}
        tried = [
            {i: "/".join(p[-depth - 1 : -1] + [name]) for i, p in parts.items()}
            for depth in range(1, len(max(parts.values(), key=len)))
        ]
        # run.txt beside run.txt.gz: the file names
        tried.insert(0, {i: p[-1] for i, p in parts.items()})
        tried.append({i: "/".join(p) for i, p in parts.items()})
        chosen = next(t for t in tried if len(set(t.values())) == len(clashing))
        for i in clashing:
            names[i] = chosen[i]
    unique_names(names)
    return names


def unique_names(names: Sequence[str], what: str = "run") -> None:
    """Refuse two runs (or other named inputs) going by the same name: their numbers would be
    confused."""
    repeated = sorted({n for n in names if list(names).count(n) > 1})
    if repeated:
        raise OptionError(
            f"{what} names must be unique, or their numbers would be mixed up; "
            f"repeated: {', '.join(repeated)}"
        )


def read_run(
    source: Source,
    *,
    name: str | None = None,
    filename: str | None = None,
    duplicates: str = "error",
) -> Run:
    """Read a run from a path or from bytes.

    Format by extension: ``.csv``, ``.parquet``, ``.tsv`` with a header naming ``qid`` and
    ``docid``; anything else is TREC (``.gz`` read transparently). The rank column is kept but does
    not decide the order.

    Parameters
    ----------
    source
        A path, or the file's bytes.
    name
        The run's name in every output (default: the file's stem).
    filename
        The name messages and the format follow when ``source`` is bytes.
    duplicates
        ``"error"`` (default, as trec_eval) refuses a docid listed twice for one query; ``"first"``
        keeps its first line.

    Returns
    -------
    Run
        The run; a FormatError names the file, the line and what is wrong."""
    if duplicates not in DUPLICATE_POLICIES:
        raise OptionError(
            f"duplicates must be one of {', '.join(DUPLICATE_POLICIES)}, not {duplicates!r}"
        )
    label = label_of(source, filename)
    run_name = name if name is not None else run_name_from_path(label)
    kind = _table_kind(source, label)
    if kind == "trec":
        columns, queries = read_trec(source, label, "run", duplicates=duplicates)
    else:
        columns = read_named(source, label, kind, ("qid", "docid", "score"), ("rank",), duplicates)
        queries = encode_queries(columns["qid"])
    return run_from_columns(columns, queries, name=run_name, label=label)


def run_from_columns(columns: dict, queries: dict, *, name: str, label: str) -> Run:
    """A run from a reader's columns and encoded query ids. The columns are handed over: the dict is
    emptied, so that what the run does not keep (the query id strings) is freed at once."""
    score = np.asarray(columns["score"], dtype=np.float64)
    rank = columns.get("rank")
    if rank is None:
        rank = np.arange(1, len(score) + 1, dtype=np.float64)
    elif isinstance(rank, np.ndarray):
        rank = rank.astype(np.float64, copy=False)
    docids = columns["docid"]
    keys = columns.get("docid_keys")
    columns.clear()
    pa.default_memory_pool().release_unused()  # the parse buffers, back to the system
    return Run(
        name=name,
        source=label,
        query_ids=queries["query_ids"],
        qid_codes=queries["qid_codes"],
        query_id_strings=queries["query_id_strings"],
        query_id_index=queries["query_id_index"],
        docids=docids,
        score=score,
        rank_column=rank,
        docid_keys=keys,
    )


def read_qrels(source: Source, *, filename: str | None = None) -> Qrels:
    """Read relevance judgments (TREC ``qid iter docid rel``, or named-column CSV/TSV/Parquet).

    Column 2 of TREC qrels is ignored (real files mix ``0`` and ``Q0``). Grades are integers and may
    be negative. The same pair judged twice with the same grade is kept once; with different
    grades it is an error.

    Parameters
    ----------
    source
        A path, or the file's bytes.
    filename
        The name messages and the format follow when ``source`` is bytes.

    Returns
    -------
    Qrels
        The judgments; a FormatError names the file, the line and what is wrong."""
    label = label_of(source, filename)
    kind = _table_kind(source, label)
    queries = None
    if kind == "trec":
        columns, queries = read_trec(source, label, "qrels", duplicates="qrels")
    else:
        columns = read_named(source, label, kind, ("qid", "docid", "rel"), (), "qrels")
    return Qrels(
        **encode(columns["qid"], columns["docid"], queries=queries),
        source=label,
        grade=np.asarray(columns["rel"], dtype=np.int64),
    )


def _table_kind(source: Source, label: str) -> str:
    lower = label.lower()
    if lower.endswith(".gz"):
        lower = lower[:-3]
    if lower.endswith(".parquet"):
        return "parquet"
    if lower.endswith(".csv"):
        return "csv"
    if lower.endswith(".tsv"):
        head = first_line(sniff(source, label)).decode("utf-8", errors="replace")
        names = {f.strip().lower() for f in head.split("\t")}
        if names & set(COLUMN_ALIASES["qid"]) and names & set(COLUMN_ALIASES["docid"]):
            return "tsv"
    return "trec"
