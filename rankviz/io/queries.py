"""A collection folder's queries: their texts (``queries.tsv``) and the groups its files and ids
give them (``query_groups.tsv``, extra columns of ``queries.tsv``, ``topic_turn`` ids)."""

from __future__ import annotations

from pathlib import Path

from rankviz.errors import FormatError
from rankviz.io.groups import QueryGroups, derived_groups, read_groups


def collection_groups(root: Path, queries: dict[str, str]) -> QueryGroups | None:
    """Groups from query_groups.tsv, then extra columns of queries.tsv, then topic_turn ids."""
    found = []
    for name in ("query_groups.tsv", "query_groups.csv"):
        if (root / name).is_file():
            found.append(read_groups(root / name))
    queries_path = root / "queries.tsv"
    if queries_path.is_file() and _has_header(queries_path):
        try:
            found.append(read_groups(queries_path))
        except FormatError as exc:
            if "no group column" not in exc.reason:
                raise
    derived = derived_groups(queries)
    if derived is not None:
        found.append(derived)
    if not found:
        return None
    merged = found[0]
    for more in found[1:]:
        merged = merged.merged(more)
    return merged


def _has_header(path: Path) -> bool:
    with open(path, encoding="utf-8", errors="replace") as handle:
        return handle.readline().split("\t", 1)[0].strip().lower() in ("qid", "query_id")


def read_queries(path: Path) -> dict[str, str]:
    """``qid<TAB>text`` lines; a first line ``qid<TAB>...`` is taken as a header."""
    queries: dict[str, str] = {}
    with open(path, encoding="utf-8", errors="strict") as handle:
        try:
            for line_no, line in enumerate(handle, start=1):
                line = line.rstrip("\r\n")
                if not line.strip():
                    continue
                qid, tab, text = line.partition("\t")
                if not tab:
                    raise FormatError(str(path), line_no, line, "expected 'qid<TAB>text'")
                if line_no == 1 and qid.strip().lower() in ("qid", "query_id"):
                    continue
                queries[qid.strip()] = text.split("\t", 1)[0].strip()
        except UnicodeDecodeError:
            raise FormatError(str(path), 0, None, "not UTF-8 text") from None
    return queries
