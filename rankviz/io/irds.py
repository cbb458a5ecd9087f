"""Collections from ir_datasets (the optional extra ``rankviz[irds]``): ``irds:DATASET_ID`` wherever
a qrels file or a collection folder is accepted.

A dataset gives the qrels (written once as a TREC qrels file in the disk store, so every reader,
cache and engine treats them as a file), the query texts, the document texts through its docs
store (on demand), and its official measures (ir_datasets' documentation: DL 2019 passage's
``nDCG@10``, ``RR(rel=2)``, ``AP(rel=2)``) as the collection's measures, with the relevance level
they name as its threshold (the convention most often got wrong). A folder with ``runs/`` and
``irds = "DATASET_ID"`` in its collection.toml takes its qrels, queries and texts from the dataset.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from rankviz.errors import CollectionError, install_hint
from rankviz.io.docs import Progress

PREFIX = "irds:"


def is_irds(spec: object) -> bool:
    return isinstance(spec, str) and spec.startswith(PREFIX)


def dataset(dataset_id: str) -> Any:
    """The ir_datasets dataset, or a CollectionError saying what to install or that it is
    unknown."""
    try:
        import ir_datasets
    except ImportError:
        raise CollectionError(
            f"{PREFIX}{dataset_id} needs ir_datasets: {install_hint('irds')}"
        ) from None
    try:
        return ir_datasets.load(dataset_id)
    except KeyError:
        raise CollectionError(
            f"{PREFIX}{dataset_id}: ir_datasets knows no dataset of that id (ir_datasets list)"
        ) from None


def _fetched(what: str, dataset_id: str, read):
    """``read()``, with ir_datasets' failure to find (or download) the files said plainly."""
    # its downloader logs every retry: the one line below says it all
    logging.disable(logging.WARNING)
    try:
        return read()
    except CollectionError:
        raise
    except Exception as exc:  # ir_datasets raises what its downloader or reader meets
        said = str(exc).splitlines()[0] if str(exc) else ""
        raise CollectionError(
            f"{PREFIX}{dataset_id}: its {what} are not available here (not downloaded, or no "
            "network; "
            "offline, use a copy of the ir_datasets home folder and set IR_DATASETS_HOME to it): "
            f"{type(exc).__name__}: {said[:160]}"
        ) from None
    finally:
        logging.disable(logging.NOTSET)


def qrels_file(dataset_id: str, folder: Path) -> Path:
    """The dataset's qrels as a TREC qrels file under ``folder`` (written once, then reused)."""
    data = dataset(dataset_id)
    if not data.has_qrels():
        raise CollectionError(f"{PREFIX}{dataset_id} has no qrels")
    safe = (
        re.sub(r"[^A-Za-z0-9._-]+", "_", dataset_id)[:80]
        + "-"
        + hashlib.sha1(dataset_id.encode()).hexdigest()[:8]
    )
    path = folder / "irds" / safe / "qrels.txt"
    if path.is_file():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = _fetched(
        "qrels",
        dataset_id,
        lambda: [f"{q.query_id} 0 {q.doc_id} {int(q.relevance)}\n" for q in data.qrels_iter()],
    )
    temporary = path.with_suffix(".tmp")
    temporary.write_text("".join(lines), encoding="utf-8")
    temporary.replace(path)
    return path


def queries(dataset_id: str) -> dict[str, str]:
    data = dataset(dataset_id)
    if not data.has_queries():
        return {}
    return _fetched(
        "queries", dataset_id, lambda: {str(q.query_id): _text(q) for q in data.queries_iter()}
    )


def official(dataset_id: str) -> tuple[list[str], int | None]:
    """The dataset's official measures (empty when it names none) and the relevance level they
    use."""
    try:
        documentation = dataset(dataset_id).documentation() or {}
    except (AttributeError, KeyError):
        documentation = {}
    measures = [str(m) for m in documentation.get("official_measures", [])]
    levels = {int(level) for m in measures for level in re.findall(r"rel=(\d+)", m)}
    return measures, (max(levels) if levels else None)


class IrdsDocuments:
    """A dataset's document texts through its docs store, looked up by id on demand."""

    def __init__(self, dataset_id: str) -> None:
        self.dataset_id = dataset_id
        self.path = Path(f"{PREFIX}{dataset_id}")

    def ready(self) -> bool:
        return True

    def build(self, progress: Progress | None = None) -> Path:
        return self.path

    def get(self, doc_ids: Iterable[str], progress: Progress | None = None) -> dict[str, dict]:
        wanted = list(dict.fromkeys(str(d) for d in doc_ids))
        if not wanted:
            return {}
        store = _fetched(
            "documents", self.dataset_id, lambda: dataset(self.dataset_id).docs_store()
        )
        found = _fetched("documents", self.dataset_id, lambda: store.get_many(wanted))
        return {
            d: {"title": str(getattr(found[d], "title", "") or ""), "text": _text(found[d])}
            for d in wanted
            if d in found
        }


def has_docs(dataset_id: str) -> bool:
    return bool(dataset(dataset_id).has_docs())


def _text(item: Any) -> str:
    text = getattr(item, "text", None)
    return str(text if text is not None else item.default_text())


def home() -> Path:
    """Where the datasets' qrels are written as files: the store's folder, else a temporary one."""
    import os
    import tempfile

    from rankviz.io.store import store_folder

    return store_folder() or Path(tempfile.gettempdir()) / f"rankviz-{os.getuid()}"


def documents(dataset_id: str) -> IrdsDocuments | None:
    """The dataset's document texts, where it has them."""
    return IrdsDocuments(dataset_id) if dataset_id and has_docs(dataset_id) else None
