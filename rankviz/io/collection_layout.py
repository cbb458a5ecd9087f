"""What a collection folder holds, by name: the files every reader looks for, whether a folder
holds any of them, and which of them a server may read (none through a link out of the folder).
:func:`rankviz.io.collection.open_collection` opens them."""

from __future__ import annotations

import os
import re
from pathlib import Path

from rankviz.errors import CollectionError
from rankviz.io.docs import DOCS_NAMES

QRELS_NAMES = ("qrels.txt", "qrels.tsv", "qrels.parquet", "qrels.txt.gz")
RUN_SUFFIXES_SKIPPED = (".md", ".json", ".toml", ".yaml", ".yml")
#: the files of judgments beside the qrels a folder may keep, by kind (what Qrels.beside holds):
#: diversity qrels (rankviz.measures.diversity), trec_eval's judgment groups
#: (rankviz.measures.judgment_groups) and its preferences (rankviz.measures.preferences)
BESIDE_FILES = {"subtopics": "subtopics.txt", "groups": "qrels_jg.txt", "prefs": "prefs.txt"}
MORE_QRELS = re.compile(r"^qrels\.([A-Za-z0-9_-]+)\.(txt\.gz|txt|tsv|parquet)$")


def holds_collection(path: str | os.PathLike) -> bool:
    """Whether a folder holds any of a collection's files (qrels, runs/, scores, collection.toml):
    what a server given an empty or unrelated folder refuses before it serves nothing."""
    root = Path(path)
    return (
        any((root / n).is_file() for n in QRELS_NAMES)
        or (root / "runs").is_dir()
        or (root / "collection.toml").is_file()
        or bool(score_paths(root, False))
    )


#: what a collection folder holds, in one sentence (an error that finds none says it)
COLLECTION_FILES = (
    "a collection folder holds its qrels (qrels.txt, .tsv, .parquet or .txt.gz) and a runs/ "
    "folder of run files; or per-query scores (scores.*, scores/) alone; or a collection.toml "
    "naming an ir_datasets id (docs/collections.md)"
)


def score_paths(root: Path, confined: bool) -> tuple[Path, ...]:
    """``scores.*`` beside the qrels and every file of ``scores/`` (not hidden), in name order;
    on a server, none that links out of the folder."""
    found = [p for p in sorted(root.glob("scores.*")) if p.is_file()]
    if (root / "scores").is_dir():
        found += [
            p
            for p in sorted((root / "scores").iterdir())
            if p.is_file() and not p.name.startswith(".")
        ]
    for path in found:
        if confined and not within(root, path):
            raise CollectionError(
                f"{root.name}/{path.relative_to(root)} links outside the collection folder, which "
                "a server does not follow"
            )
    return tuple(found)


def within(root: Path, path: Path) -> bool:
    """Whether ``path``, links followed, stays inside ``root`` (links followed too)."""
    return path.resolve().is_relative_to(root.resolve())


def refuse_links_out(root: Path) -> None:
    """A CollectionError for any file of the layout but the runs that leads out of ``root``."""
    names = [
        *QRELS_NAMES,
        *DOCS_NAMES,
        "collection.toml",
        "queries.tsv",
        "query_groups.tsv",
        "query_groups.csv",
        "query_weights.tsv",
        *BESIDE_FILES.values(),
        "runs",
    ]
    for name in names:
        if (root / name).exists() and not within(root, root / name):
            raise CollectionError(
                f"{root.name}/{name} links outside the collection folder, which "
                "a server does not follow"
            )
