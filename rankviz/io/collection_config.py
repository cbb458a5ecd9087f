"""A collection's collection.toml, read and checked: its conventions, measures, grades, sources."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from rankviz.errors import CollectionError, OptionError
from rankviz.io import irds
from rankviz.io.access import Access, read_access
from rankviz.io.grades import GRADE_RANGE
from rankviz.io.judges import FILE, KIND
from rankviz.io.score_rules import ScoreRules, rules_of_table
from rankviz.settings.eval_settings import DEFAULT_MEASURES, GMAX, REL


@dataclass(frozen=True)
class Protocol:
    """A benchmark protocol (``[protocol]`` in collection.toml): per group of ``group_by``, its
    primary measure."""

    group_by: str
    default: str
    primary: dict[str, str]

    def measure_for(self, group: str) -> str:
        return self.primary.get(group, self.default)


@dataclass(frozen=True)
class Reproduction:
    """Which runs reproduce which (``[reproduction]`` in collection.toml): the original baseline
    and advanced run, and their reproductions, in the same order."""

    original: tuple[str, str]
    reproduced: tuple[str, str]


@dataclass(frozen=True)
class CollectionConfig:
    """The defaults a collection declares; every one is shown in the UI where it applies."""

    name: str
    description: str = ""
    source: str = ""
    rel: int = 1
    gmax: int = 4
    measures: tuple[str, ...] = DEFAULT_MEASURES
    protocol: Protocol | None = None
    documents: str = ""  # why the folder has no document texts, and where they are
    # the grades the meeting may give (None: those the qrels use, from 0)
    grades: tuple[int, int] | None = None
    qrels_kind: str = "human"  # the kind of the qrels file's judgments
    irds: str = ""  # an ir_datasets id: the qrels, queries and texts the folder does not have
    sources: tuple[tuple[str, str, str], ...] = ()  # other sources declared: (name, file, kind)
    access: Access = Access()  # who may see and judge it on a server with sign-in ([access])
    scores: ScoreRules = ScoreRules()  # its scores' directions and ranges ([scores])
    # which runs reproduce which ([reproduction]); None: the collection declares none
    reproduction: Reproduction | None = None
    # what its judgments beside the qrels are, by kind ([beside]: subtopics = "inferred by ...")
    beside: Mapping[str, str] = field(default_factory=dict)


CONFIG_BYTES = 64 * 1024


def read_config(root: Path) -> CollectionConfig:
    path = root / "collection.toml"
    if not path.is_file():
        return CollectionConfig(name=root.name)
    try:
        text = path.read_text(encoding="utf-8")
        if len(text) > CONFIG_BYTES:
            raise CollectionError(
                f"{path}: larger than {CONFIG_BYTES // 1024} KiB; a collection's "
                "settings fit in a few lines"
            )
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise CollectionError(f"{path}: not valid TOML ({exc})") from None
    except RecursionError:  # tomllib recurses once per level of nesting
        raise CollectionError(f"{path}: nested too deeply to be a collection's settings") from None
    known = {
        "name",
        "description",
        "source",
        "rel",
        "gmax",
        "measures",
        "protocol",
        "documents",
        "grades",
        "qrels",
        "irds",
        "access",
        "scores",
        "reproduction",
        "beside",
    }
    unknown = sorted(set(data) - known)
    if unknown:
        raise CollectionError(
            f"{path}: unknown keys {', '.join(unknown)} (known: {', '.join(sorted(known))})"
        )
    try:
        dataset = _text(data, "irds", "")
        official, level = irds.official(dataset) if dataset else ([], None)
        measures = data.get("measures", official or list(DEFAULT_MEASURES))
        if (
            not isinstance(measures, list)
            or not measures
            or not all(isinstance(m, str) for m in measures)
        ):
            raise OptionError('measures must be a list of measure names, e.g. ["nDCG@10", "AP"]')
        config = CollectionConfig(
            name=_text(data, "name", root.name),
            description=_text(data, "description", ""),
            source=_text(data, "source", ""),
            rel=REL.check(data.get("rel", level or REL.default)),
            gmax=GMAX.check(data.get("gmax", GMAX.default)),
            measures=tuple(measures),
            protocol=_read_protocol(data.get("protocol")),
            documents=_text(data, "documents", ""),
            grades=_grades(data.get("grades")),
            irds=dataset,
            access=read_access(data.get("access")),
            scores=rules_of_table(data.get("scores", {})),
            reproduction=_reproduction(data.get("reproduction")),
            beside=_beside(data.get("beside", {})),
            **_qrels_table(data.get("qrels", {})),
        )
    except (TypeError, ValueError) as exc:
        raise CollectionError(f"{path}: {exc}") from None
    return config


def _grades(value: object) -> tuple[int, int] | None:
    """``grades = [LOW, HIGH]``: the lowest and the highest grade the meeting may give."""
    if value is None:
        return None
    if (
        not isinstance(value, list)
        or len(value) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
        or value[0] > value[1]
        or value[0] < GRADE_RANGE[0]
        or value[1] > GRADE_RANGE[1]
    ):
        raise OptionError(
            "grades must be [LOWEST, HIGHEST], two whole numbers, e.g. grades = [0, 4]"
        )
    return value[0], value[1]


#: each kind of judgments beside the qrels in words, and the measures that read it
BESIDE_WORDS = {
    "subtopics": "subtopic judgments (ndeval's diversity measures)",
    "groups": "judgment groups (trec_eval's *_avgjg measures)",
    "prefs": "preference judgments (trec_eval's prefs_* measures)",
}


def beside_sentences(config: CollectionConfig, paths: Mapping[str, Path]) -> list[str]:
    """Each file of judgments beside the qrels in words, with what ``[beside]`` says of it."""
    return [
        f"{BESIDE_WORDS[kind]}: {path.name}"
        + (f" ({config.beside[kind]})" if kind in config.beside else "")
        for kind, path in paths.items()
    ]


def _beside(table: object) -> dict[str, str]:
    """``[beside]``: what each kind of judgments beside the qrels is (``subtopics``, ``groups``,
    ``prefs``), said wherever they are in force: ``subtopics = "inferred by clustering, not
    judged"``."""
    kinds = tuple(BESIDE_WORDS)
    if (
        not isinstance(table, dict)
        or set(table) - set(kinds)
        or not all(isinstance(v, str) for v in table.values())
    ):
        raise OptionError(
            "[beside] says in words what a kind of judgments beside the qrels is "
            f'({", ".join(kinds)} = "..."), e.g. subtopics = "inferred by clustering the '
            'relevant texts, not judged"'
        )
    return dict(table)


def _reproduction(table: object) -> Reproduction | None:
    """``[reproduction]``: ``original = [BASELINE, ADVANCED]`` and ``reproduced = [BASELINE,
    ADVANCED]``, four different run names."""
    if table is None:
        return None
    pairs = (table.get("original"), table.get("reproduced")) if isinstance(table, dict) else ()
    if (
        not isinstance(table, dict)
        or set(table) != {"original", "reproduced"}
        or not all(
            isinstance(p, list) and len(p) == 2 and all(isinstance(n, str) for n in p)
            for p in pairs
        )
        or len({*table["original"], *table["reproduced"]}) != 4
    ):
        raise OptionError(
            '[reproduction] takes original = ["BASELINE", "ADVANCED"] and reproduced = '
            '["BASELINE", "ADVANCED"]: four different runs of the collection'
        )
    return Reproduction(tuple(table["original"]), tuple(table["reproduced"]))


def _qrels_table(table: object) -> dict:
    """``[qrels]``: ``kind`` of the qrels file, and ``[qrels.NAME]`` tables with ``file`` and
    ``kind``."""
    if not isinstance(table, dict):
        raise OptionError(
            "[qrels] must be a table: kind = ..., and [qrels.NAME] tables with file and kind"
        )
    sources = []
    for name, value in table.items():
        if name == "kind":
            continue
        wellformed = (
            isinstance(value, dict)
            and not set(value) - {"file", "kind"}
            and isinstance(value.get("file"), str)
        )
        if not re.fullmatch(r"[A-Za-z0-9_-]+", name) or name == FILE or not wellformed:
            raise OptionError(
                f'[qrels.{name}] needs file = "..." (and kind); names are letters, '
                f"digits, _ and -, not {FILE!r}"
            )
        sources.append((name, value["file"], _kind(value.get("kind", ""))))
    return {"qrels_kind": _kind(table.get("kind", "human")), "sources": tuple(sources)}


def _kind(value: object) -> str:
    if not isinstance(value, str) or not KIND.match(value):
        raise OptionError(f"a source's kind is human, meeting or llm:NAME, not {value!r}")
    return value


def _text(data: dict, key: str, default: str) -> str:
    value = data.get(key, default)
    if not isinstance(value, str):
        raise OptionError(f"{key} must be a string")
    return value


def _read_protocol(table: dict | None) -> Protocol | None:
    if table is None:
        return None
    if (
        not isinstance(table, dict)
        or not {"group_by", "default"} <= set(table)
        or set(table) - {"group_by", "default", "primary"}
    ):
        raise ValueError(
            "[protocol] takes group_by, default and an optional primary table (group = measure)"
        )
    primary = table.get("primary", {})
    if not isinstance(primary, dict):
        raise ValueError("[protocol] primary must be a table of group = measure")
    return Protocol(
        str(table["group_by"]), str(table["default"]), {str(k): str(v) for k, v in primary.items()}
    )


def access_of(folder: Path) -> Access:
    """The ``[access]`` of a collection folder's collection.toml (none: every signed-in person
    judges; an ir_datasets collection has none)."""
    return read_config(folder).access if (folder / "collection.toml").is_file() else Access()


def title_of(folder: Path) -> str:
    """A collection folder's name as its collection.toml gives it (the folder's name without one,
    or when the file cannot be read: the collection says why when opened)."""
    try:
        return read_config(folder).name or folder.name
    except CollectionError:
        return folder.name
