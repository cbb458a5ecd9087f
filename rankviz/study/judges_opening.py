"""A source of judgments named on the command line, opened: a qrels file, a collection folder's
qrels file or one of its sources (``DIR:NAME``), a meeting record's grades in force (all, the
people's, or one source label's). What ``rankviz agreement`` compares and ``--correct-with``
corrects with."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rankviz.errors import OptionError
from rankviz.io.collection import open_collection
from rankviz.io.frames import qrels_from_frame
from rankviz.io.irds import is_irds
from rankviz.io.judges import FILE, is_source_label
from rankviz.io.meeting import MeetingStore
from rankviz.io.model import Qrels
from rankviz.io.readers import read_qrels


@dataclass(frozen=True)
class Judges:
    """One source of judgments opened (:func:`open_judges`): its qrels, name and kind, and the
    collection folder it belongs to (None for a plain file or record)."""

    qrels: Qrels
    name: str
    kind: str
    folder: Path | str | None = None  # a collection folder, or irds:DATASET_ID


def open_judges(spec: str | Path) -> Judges:
    """A source of judgments named on the command line: a qrels file; a collection folder (its qrels
    file), ``DIR:NAME`` (one of its sources, :attr:`~rankviz.io.collection.Collection.judges`) or
    ``DIR:meeting`` (its record); a record ``FILE.sqlite``. A record's judgments are its grades in
    force; ``...:people`` keeps the entries people made, ``...:llm:NAME`` those imported with that
    source label (``rankviz judgments import --source llm:NAME``)."""
    text = str(spec)
    if is_irds(text):
        collection = open_collection(text)
        return Judges(collection.read_qrels(), text, "human", text)
    location, selector = text, ""
    while not Path(location).exists() and ":" in location:
        location, _, rest = location.rpartition(":")
        selector = f"{rest}:{selector}".rstrip(":") if selector else rest
    path = Path(location)
    if not path.exists():
        raise OptionError(
            f"{text}: no such file or folder (a qrels file, a collection folder, "
            "DIR:SOURCE or a .sqlite record)"
        )
    if path.is_dir():
        collection = open_collection(path)
        if selector == "meeting" or selector.startswith("meeting:"):
            scale = collection.grade_scale(collection.read_qrels())
            return record_judges(
                MeetingStore(path, create=False, scale=scale),
                selector.removeprefix("meeting").lstrip(":"),
                path,
            )
        source = collection.judges.get(selector or FILE)
        if source is None:
            raise OptionError(
                f"{text}: {path.name} has no source of judgments named {selector!r}; "
                "it has "
                f"{', '.join(collection.judges)} and meeting"
            )
        return Judges(read_qrels(source.path), source.path.name, source.kind, path)
    if path.suffix == ".sqlite":
        return record_judges(MeetingStore(path, create=False), selector, None)
    if selector:
        raise OptionError(f"{text}: only a collection folder or a .sqlite record takes :SOURCE")
    return Judges(read_qrels(path), path.name, "", None)


def record_judges(store: MeetingStore, who: str, folder: Path | None) -> Judges:
    """A record's judgments in force: all (``who`` ""), the people's (``people``: entries not made
    under a source label) or a source label's (``llm:NAME``)."""
    if who and who != "people" and not is_source_label(who):
        raise OptionError(
            f"{store.path.name}:{who}: choose people or a source label such as llm:umbrela"
        )
    judges = (
        None
        if not who
        else (lambda by: not is_source_label(by))
        if who == "people"
        else (lambda by: by == who)
    )
    import pandas as pd

    grades, _ = store.latest_checked(judges=judges)
    if not grades:
        raise OptionError(
            f"{store.path.name}{':' + who if who else ''}: the record holds no such judgments"
        )
    frame = pd.DataFrame(
        [(q, d, g) for (q, d), g in grades.items()], columns=["qid", "docid", "rel"]
    )
    name = f"meeting:{who}" if who else "meeting"
    kind = (
        who
        if who.startswith("llm:")
        else "human"
        if who.startswith("human:") or who == "people"
        else "meeting"
    )
    return Judges(
        qrels_from_frame(frame, source=f"{store.path}{':' + who if who else ''}"),
        name,
        kind,
        folder,
    )
