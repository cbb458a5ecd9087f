"""Which qrels are in force, decided once for every front end.

A collection offers its qrels file (``file``), the file with the meeting's judgments in force
(``meeting``, latest wins), another of its sources alone (``NAME``: ``qrels.NAME.txt``) or the file
with its holes filled by one (``file+NAME``, the file wins where both judge). :meth:`Study.open
<rankviz.study.study.Study.open>` puts one in force for the command line (``--qrels``) and the
API; the app asks the same functions through its caches (``qrels=`` in its links). :func:`sentence`
is what every front end says about it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from rankviz.errors import OptionError
from rankviz.io.collection import Collection
from rankviz.io.groups import QueryGroups
from rankviz.io.judges import FILE, filled, merged_qrels
from rankviz.io.meeting import MeetingStore
from rankviz.io.model import Qrels
from rankviz.io.readers import read_qrels
from rankviz.settings.options import Option

MEETING = "meeting"

QRELS_IN_FORCE = Option(
    "qrels",
    FILE,
    "the judgments every number is computed with: file (the collection's qrels file), meeting (the "
    "file with the meeting's judgments in force, latest wins), NAME (another source of the "
    "collection, qrels.NAME.txt, alone) or file+NAME (the file with its holes filled by NAME)",
    label="Qrels in force",
)


#: No correction: the numbers of the judgments in force alone.
UNCORRECTED = "none"

CORRECT_WITH = Option(
    "correct_with",
    UNCORRECTED,
    "people's judgments that correct an LLM's in force (--correct-with): none, file, meeting or "
    "another source; each mean is then the LLM's corrected by the queries people judged (PPI++)",
    label="Corrected by",
)


@dataclass(frozen=True)
class RecordQrels:
    """The qrels file with a meeting's record in force (latest wins), and what the record holds."""

    qrels: Qrels
    judgments: int  # the pairs the record judges
    same_queries: bool  # the record judges no query the file does not: every order stays the file's
    left_out: tuple[str, ...]  # entries no qrels file can hold (outside the grades, unreadable)


@dataclass(frozen=True)
class InForce:
    """The qrels in force: which (``mode``), the qrels, and the sentence every front end shows."""

    mode: str
    qrels: Qrels
    sentence: str
    record: RecordQrels | None = None


def with_record(file_qrels: Qrels, store: MeetingStore) -> RecordQrels:
    """``file_qrels`` with the record's judgments in force; the entries it leaves out, with why."""
    grades, left_out = store.latest_checked()
    merged = merged_qrels(file_qrels, grades)
    same = set(merged.query_ids) == set(file_qrels.query_ids)
    return RecordQrels(merged, len(grades), same, tuple(left_out))


#: The group of the queries the meeting has not tagged.
UNTAGGED = "(untagged)"


def tag_groups(store: MeetingStore, qrels: Qrels) -> QueryGroups | None:
    """The meeting's tags as the query attribute ``tag`` (a query's tags joined, the untagged
    queries of ``qrels`` as :data:`UNTAGGED`), or None while nothing is tagged: what
    ``group_by="tag"`` reads on every front end."""
    import pandas as pd  # not on the drop-ins' road

    tags = store.tag_groups()
    if not tags:
        return None
    qids = list(dict.fromkeys([*map(str, qrels.query_ids), *tags]))
    frame = pd.DataFrame(
        {"tag": [tags.get(q, UNTAGGED) for q in qids]}, index=pd.Index(qids, name="qid")
    )
    return QueryGroups(frame, "the meeting's tags")


def sources(collection: Collection | None) -> list[str]:
    """The collection's sources of judgments besides its qrels file."""
    return [name for name in collection.judges if name != FILE] if collection is not None else []


def offered(collection: Collection | None, *, record_judges: bool) -> list[str]:
    """Every choice of qrels in force, the file first; ``meeting`` when the record judges
    something."""
    others = sources(collection)
    meeting = [MEETING] if record_judges else []
    return [FILE, *meeting, *others, *(f"{FILE}+{name}" for name in others)]


def correctors(collection: Collection | None, mode: str, *, record_judges: bool) -> list[str]:
    """What may correct the judgments in force under ``mode``: nothing unless ``mode`` puts
    another source (an LLM's) in force; then every other choice that leaves that source out."""
    judge = source_of(mode)
    if judge is None:
        return []
    return [c for c in offered(collection, record_judges=record_judges) if source_of(c) != judge]


def default_mode(*, record_judges: bool) -> str:
    """The meeting's judgments once there are some, else the file."""
    return MEETING if record_judges else FILE


def source_of(mode: str) -> str | None:
    """The source a ``NAME`` or ``file+NAME`` choice names (None for ``file`` and ``meeting``)."""
    return None if mode in (FILE, MEETING) else mode.removeprefix(f"{FILE}+")


def source_qrels(
    file_qrels: Qrels,
    collection: Collection,
    mode: str,
    *,
    read: Callable[[Path], Qrels] = read_qrels,
) -> tuple[Qrels, str]:
    """The qrels of a ``NAME`` or ``file+NAME`` choice and what to call the source.

    Parameters
    ----------
    file_qrels
        The collection's qrels file, read.
    collection
        The collection whose source ``mode`` names.
    mode
        ``NAME`` (the source alone) or ``file+NAME`` (the file with its holes filled by it).
    read
        How a source's file is read (the app passes its cache).

    Returns
    -------
    The qrels, and the source's file name with its kind.
    """
    name = source_of(mode)
    if name is None or name not in sources(collection):
        raise OptionError(_unknown(mode, collection))
    source = collection.judges[name]
    other = read(source.path)
    called = f"{source.path.name} ({source.kind or 'kind not said'})"
    return (other if mode == name else filled(file_qrels, other)), called


def sentence(mode: str, file_qrels: Qrels, *, judgments: int = 0, called: str = "") -> str:
    """The one sentence every front end says about the qrels in force.

    ``judgments``: the pairs the meeting's record judges (said under ``file`` too, as not applied);
    ``called``: the source of a ``NAME`` or ``file+NAME`` choice (:func:`source_qrels`)."""
    name = Path(str(file_qrels.source)).name
    if mode == MEETING:
        return f"qrels: {name} with the meeting's {judgments:,} judgments in force (latest wins)"
    if mode.startswith(f"{FILE}+"):
        return f"qrels: {name} with its holes filled by {called} (the file wins where both judge)"
    if mode != FILE:
        return f"qrels: {called}, not the collection's qrels file"
    extra = f" (the meeting's {judgments:,} judgments not applied)" if judgments else ""
    return f"qrels: {name}{extra}"


def decide(
    mode: str,
    file_qrels: Qrels,
    *,
    collection: Collection | None = None,
    record: RecordQrels | None = None,
    source: Callable[[str], tuple[Qrels, str]] | None = None,
) -> InForce:
    """The qrels in force under ``mode``.

    Parameters
    ----------
    mode
        ``file``, ``meeting``, ``NAME`` or ``file+NAME`` (:data:`QRELS_IN_FORCE`).
    file_qrels
        The collection's qrels file (or the qrels file given).
    collection
        The collection whose sources ``NAME`` may name (None: a plain qrels file).
    record
        The file with the meeting's record in force (:func:`with_record`); needed for ``meeting``.
    source
        ``mode -> (qrels, called)`` for a source (default :func:`source_qrels`; the app's is
        cached).

    Returns
    -------
    The mode, the qrels and the sentence that says which they are.
    """
    judgments = record.judgments if record is not None else 0
    if mode == FILE:
        return InForce(mode, file_qrels, sentence(mode, file_qrels, judgments=judgments), record)
    if mode == MEETING:
        if record is None:
            raise OptionError(
                "qrels=meeting needs the meeting's record: a collection folder (or --judgments DB)"
            )
        said = sentence(mode, file_qrels, judgments=judgments)
        return InForce(mode, record.qrels, said, record)
    if collection is None or source_of(mode) not in sources(collection):
        raise OptionError(_unknown(mode, collection))
    qrels, called = (
        source(mode) if source is not None else source_qrels(file_qrels, collection, mode)
    )
    return InForce(mode, qrels, sentence(mode, file_qrels, called=called), record)


def _unknown(mode: str, collection: Collection | None) -> str:
    choices: Sequence[str] = offered(collection, record_judges=True)
    return f"qrels={mode[:60]!r}: choose one of {', '.join(choices)}"
