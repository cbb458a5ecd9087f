"""Collection folders: one layout opened the same way by the app, the CLI and the Python API.

::

    DIR/
      qrels.txt | qrels.tsv | qrels.parquet   judgments (required, unless the folder holds scores
                                               only)
      runs/*                                   runs, any supported format (at least one, unless
                                               the folder holds scores only)
      queries.tsv                              qid<TAB>text (optional; with a header, extra columns
      are query groups) query_groups.tsv                         qid plus categorical columns
      (optional) query_weights.tsv                        qid<TAB>weight (optional)
      docs.jsonl[.gz] | docs.tsv[.gz] | docs.parquet   document texts (optional, indexed at first
      use: rankviz.io.docs) qrels.NAME.txt                           more judgments of the same
      queries (optional): another
                                               assessor, an LLM judge (see rankviz.io.judges)
      collection.toml                          display name and defaults (optional)
      subtopics.txt                            diversity qrels, topic subtopic docno judgment
                                               (optional): ndeval's measures beside the others
      qrels_jg.txt                             judgment groups, qid group docno rel (optional):
                                               trec_eval's *_avgjg measures beside the others
      prefs.txt                                preferences, qid group subgroup docno level
                                               (optional): trec_eval's prefs_* measures
      scores.* | scores/*                      per-query scores of any evaluator (optional;
                                               rankviz.io.scores), measures beside the runs';
                                               without runs/, the folder's only numbers

``collection.toml`` keys: ``name``, ``description``, ``rel`` (relevance threshold of the binary
measures), ``gmax`` (ERR), ``measures`` (default list), ``source`` (one line of attribution),
``documents`` (where there is no ``docs.jsonl``: why, and where the texts are), ``grades``
(``[LOWEST, HIGHEST]``, the grades the meeting may give; by default from 0 to the highest grade the
qrels use, never above ``gmax``), and
an optional ``[protocol]`` table: ``group_by`` (a group column), ``default`` (the primary measure)
and ``primary`` (group -> measure), e.g. Hit@1 for one subtask and nDCG@10 for the rest; an optional
``[qrels]`` table: ``kind`` (of the qrels file: ``human`` by default) and one table per other
source,
``[qrels.NAME]`` with ``file`` and ``kind`` (``human``, ``llm:MODEL``, ``meeting``); an optional
``[scores]`` table: ``lower_is_better`` (names of scores where less is better) and
``[scores.range]`` (``NAME = [LOW, HIGH]``: a value outside is refused, naming its line).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from rankviz.errors import CollectionError
from rankviz.io import irds
from rankviz.io.docs import DOCS_NAMES, Documents, DocumentTexts
from rankviz.io.grades import Scale, grade_scale
from rankviz.io.groups import QueryGroups, read_weights
from rankviz.io.judges import FILE, QrelsSource
from rankviz.io.model import Qrels, Run
from rankviz.io.queries import collection_groups, read_queries

if TYPE_CHECKING:
    import pandas as pd
from rankviz.io.collection_config import CollectionConfig, beside_sentences, read_config
from rankviz.io.collection_layout import (
    BESIDE_FILES,
    MORE_QRELS,
    QRELS_NAMES,
    RUN_SUFFIXES_SKIPPED,
    refuse_links_out,
    score_paths,
    within,
)
from rankviz.io.readers import read_qrels, read_run, run_name_from_path
from rankviz.settings.eval_settings import DEFAULT_MEASURES, REL


@dataclass(frozen=True, eq=False)
class Collection:
    """A collection folder, validated; qrels and runs are read on demand.

    Parameters
    ----------
    path
        The folder.
    config
        Its ``collection.toml`` read (name, conventions, measures, access).
    qrels_path
        Its qrels file; None for a folder of per-query scores alone.
    run_paths
        Its runs, by name (``runs/``).
    queries
        Query texts by qid (``queries.tsv``).
    docs
        Document texts (``docs.*``), when it has them.
    groups
        Query groups (``query_groups.tsv``), when it has them.
    weights
        qid -> weight, from ``query_weights.tsv``.
    outside
        Runs left out because they link outside the folder.
    judges
        Its sources of judgments, the qrels file first.
    score_paths
        Files of per-query scores (``scores.*``, ``scores/*``), whose scores stand beside the runs'.
    beside_paths
        Its files of judgments beside the qrels, by kind (:data:`BESIDE_FILES`): diversity qrels
        for ndeval's measures, judgment groups for trec_eval's ``*_avgjg`` measures, preferences
        for its ``prefs_*`` measures.
    """

    path: Path
    config: CollectionConfig
    qrels_path: Path | None  # None: a folder of scores only
    run_paths: dict[str, Path]
    queries: dict[str, str] = field(default_factory=dict)
    docs: Documents | None = None
    groups: QueryGroups | None = None
    weights: pd.Series | None = None  # qid -> weight, from query_weights.tsv
    # runs left out because they link outside the folder (``confined``)
    outside: tuple[str, ...] = ()
    # its sources of judgments, the qrels file first
    judges: dict[str, QrelsSource] = field(default_factory=dict)
    # files of per-query scores (scores.* and scores/*), whose scores stand beside the runs'
    score_paths: tuple[Path, ...] = ()
    # its files of judgments beside the qrels, by kind (BESIDE_FILES)
    beside_paths: Mapping[str, Path] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def scores_only(self) -> bool:
        """Whether its numbers are per-query scores alone (no runs/ folder): what needs rankings or
        qrels is not asked of it."""
        return not self.run_paths and bool(self.score_paths)

    def beside_said(self) -> list[str]:
        """Each of its files of judgments beside the qrels in words, with what collection.toml's
        ``[beside]`` says of it (the diversity sample's subtopics: inferred, not judged), for every
        front end's conventions."""
        return beside_sentences(self.config, self.beside_paths)

    # its queries and texts stay out: a notebook shows one line, not 30,000 characters
    def __repr__(self) -> str:
        return (
            f"Collection({str(self.path)!r}, name={self.name!r}, runs={list(self.run_paths)!r}, "
            f"queries={len(self.queries)})"
        )

    def read_judges(self, name: str) -> Qrels:
        """The judgments of one of its sources (:attr:`judges`)."""
        if name not in self.judges:
            raise CollectionError(
                f"{self.path}: no source of judgments named {name!r}; sources: "
                f"{', '.join(self.judges)}"
            )
        return read_qrels(self.judges[name].path)

    def read_qrels(self) -> Qrels:
        if self.qrels_path is None:
            raise CollectionError(
                f"{self.path}: per-query scores only: no qrels (a question that needs them "
                "needs qrels.txt and runs/)"
            )
        return read_qrels(self.qrels_path)

    def grade_scale(self, qrels: Qrels) -> Scale:
        """The grades the collection's meeting may give (:func:`rankviz.io.grades.grade_scale`)."""
        return grade_scale(qrels.grade, gmax=self.config.gmax, given=self.config.grades)

    def run_path(self, name: str) -> Path:
        if name not in self.run_paths:
            raise CollectionError(
                f"{self.path}: no run named {name!r}; runs: {', '.join(self.run_paths)}"
            )
        return self.run_paths[name]

    def read_run(self, name: str) -> Run:
        return read_run(self.run_path(name), name=name)


def open_collection(path: str | os.PathLike, *, confined: bool = False) -> Collection:
    """Open and validate a collection folder; a CollectionError names whatever is missing or wrong.

    Parameters
    ----------
    path
        The folder: ``qrels.txt``, ``runs/``, optional ``collection.toml``, queries, groups,
        weights and other judgments (docs/collections.md).
    confined
        A server's collections: no file is read through a symbolic link that leads out of the
        folder. A run that does is left out (:attr:`Collection.outside` names it); any other file
        is an error. So a link planted in a served folder (``runs/x.run -> /etc/passwd``) shows
        nobody the file it points to.

    Returns
    -------
    Collection
        The folder's files, read on first use, and its configuration."""
    if irds.is_irds(str(path)):
        return _irds_collection(str(path).removeprefix(irds.PREFIX))
    root = Path(path)
    if not root.is_dir():
        raise CollectionError(
            f"{root}: not a folder (a collection is a folder with qrels.txt and runs/)"
        )
    if confined:
        refuse_links_out(root)
    config = read_config(root)
    qrels_path = next((root / n for n in QRELS_NAMES if (root / n).is_file()), None)
    runs_dir = root / "runs"
    scores = score_paths(root, confined)
    if scores and not runs_dir.is_dir():
        return _scores_collection(root, config, qrels_path, scores)
    if qrels_path is None and config.irds:
        qrels_path = irds.qrels_file(config.irds, irds.home())
    if qrels_path is None:
        raise CollectionError(
            f"{root}: no judgments; expected one of {', '.join(QRELS_NAMES)} (or "
            "irds = ID in collection.toml, or scores.* alone)"
        )
    if not runs_dir.is_dir():
        raise CollectionError(f"{root}: no runs/ folder")
    run_paths: dict[str, Path] = {}
    outside: list[str] = []
    for run_path in sorted(runs_dir.iterdir()):
        if (
            not run_path.is_file()
            or run_path.name.startswith(".")
            or run_path.name.lower().endswith(RUN_SUFFIXES_SKIPPED)
        ):
            continue
        if confined and not within(root, run_path):
            outside.append(f"runs/{run_path.name}")
            continue
        name = run_name_from_path(run_path.name)
        if name in run_paths:
            raise CollectionError(
                f"{runs_dir}: two runs would be named {name!r}: "
                f"{run_paths[name].name} and {run_path.name}"
            )
        run_paths[name] = run_path
    if not run_paths:
        raise CollectionError(f"{runs_dir}: no run files")
    queries_path = root / "queries.tsv"
    queries = (
        read_queries(queries_path)
        if queries_path.is_file()
        else irds.queries(config.irds)
        if config.irds
        else {}
    )
    docs_path = next((root / n for n in DOCS_NAMES if (root / n).is_file()), None)
    groups = collection_groups(root, queries)
    if config.protocol and (groups is None or config.protocol.group_by not in groups.columns):
        raise CollectionError(
            f"{root / 'collection.toml'}: [protocol] group_by {config.protocol.group_by!r} is not "
            "a group column"
        )
    weights_path = root / "query_weights.tsv"
    judges = _judges(root, qrels_path, config, confined)
    return Collection(
        path=root,
        config=config,
        qrels_path=qrels_path,
        run_paths=run_paths,
        queries=queries,
        docs=DocumentTexts(docs_path) if docs_path else irds.documents(config.irds),
        groups=groups,
        weights=read_weights(weights_path) if weights_path.is_file() else None,
        outside=tuple(outside),
        judges=judges,
        score_paths=scores,
        beside_paths={
            kind: root / name for kind, name in BESIDE_FILES.items() if (root / name).is_file()
        },
    )


def _scores_collection(
    root: Path, config: CollectionConfig, qrels_path: Path | None, score_paths: tuple[Path, ...]
) -> Collection:
    """A folder of per-query scores without runs: its scores, queries, groups and weights (a qrels
    file beside them is kept for its path alone: no ranking to judge)."""
    queries_path = root / "queries.tsv"
    queries = read_queries(queries_path) if queries_path.is_file() else {}
    weights_path = root / "query_weights.tsv"
    return Collection(
        path=root,
        config=config,
        qrels_path=qrels_path,
        run_paths={},
        queries=queries,
        groups=collection_groups(root, queries),
        weights=read_weights(weights_path) if weights_path.is_file() else None,
        score_paths=score_paths,
    )


def _judges(
    root: Path, qrels_path: Path, config: CollectionConfig, confined: bool
) -> dict[str, QrelsSource]:
    """The qrels file, the ``qrels.NAME.*`` files beside it and the sources collection.toml
    declares."""
    found = {FILE: QrelsSource(FILE, qrels_path, config.qrels_kind)}
    declared = {name: (file, kind) for name, file, kind in config.sources}
    for path in sorted(root.iterdir()):
        match = MORE_QRELS.match(path.name)
        if (
            match
            and path.is_file()
            and path != qrels_path
            and not any(f == path.name for f, _ in declared.values())
        ):
            found[match.group(1)] = QrelsSource(match.group(1), path, "")
    for name, (file, kind) in declared.items():
        path = root / file
        if not path.is_file() or path.parent != root:
            raise CollectionError(
                f"{root / 'collection.toml'}: [qrels.{name}] file {file!r} is "
                "not a file of the folder"
            )
        found[name] = QrelsSource(name, path, kind)
    # the folder's own files (an irds dataset's qrels are written by rankviz, elsewhere)
    for source in found.values():
        if confined and source.path.parent == root and not within(root, source.path):
            raise CollectionError(
                f"{root.name}/{source.path.name} links outside the collection folder, which a "
                "server does not follow"
            )
    return found


def _irds_collection(dataset_id: str) -> Collection:
    """``irds:DATASET_ID``: the dataset's qrels (as a file), queries, texts and official measures;
    no runs."""
    qrels_path = irds.qrels_file(dataset_id, irds.home())
    measures, rel = irds.official(dataset_id)
    config = CollectionConfig(
        name=f"{irds.PREFIX}{dataset_id}",
        source="ir_datasets",
        rel=rel or REL.default,
        measures=tuple(measures) or DEFAULT_MEASURES,
    )
    return Collection(
        path=qrels_path.parent,
        config=config,
        qrels_path=qrels_path,
        run_paths={},
        queries=irds.queries(dataset_id),
        docs=irds.documents(dataset_id),
        judges={FILE: QrelsSource(FILE, qrels_path, "human")},
    )
