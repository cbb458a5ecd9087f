"""The meeting's record of a collection and the qrels in force, as the app serves them.

What is in force is decided by :mod:`rankviz.study.in_force` (the command line's ``--qrels`` takes
the same road); this module opens the record read-only, offers the choices at the top of the page
(``qrels=`` in the link) and keeps what the decision builds in the app's caches, keyed on content:
the qrels files' keys and the record's content digest.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import streamlit as st

from rankviz.app.caches import inputs
from rankviz.app.caches.cache import SHARED, digest, file_key
from rankviz.app.signin import visitors
from rankviz.app.widgets.option_widgets import url_option
from rankviz.app.widgets.text import said
from rankviz.app.widgets.url_state import UrlState
from rankviz.study import (
    GRADE_RANGE,
    Collection,
    GradeError,
    Lock,
    MeetingError,
    MeetingStore,
    Qrels,
    RecordVersion,
    Role,
    Scale,
    in_force,
    served,
)
from rankviz.study.in_force import FILE, MEETING, QRELS_IN_FORCE, InForce, RecordQrels
from rankviz.study.opening import record_scale
from rankviz.study.record import Writer


@dataclass
class Meeting:
    """The collection's meeting record: where it lives, what it holds, which qrels are in force."""

    path: Path
    store: MeetingStore | None  # None until the first entry (reading never creates the file)
    problem: str  # why the record cannot be read, else ""
    version: RecordVersion
    file_qrels: Qrels
    file_key: str
    record: RecordQrels | None = None  # the qrels file with the record in force, once it judges
    merged_key: str = ""
    chosen: InForce | None = None  # the qrels in force (None: the file, undecided yet)
    correction: InForce | None = None  # people's judgments correcting them (correct_with=)
    scale: Scale = GRADE_RANGE  # the grades the collection's meeting may give
    # which record the store is (a replaced record is another, however its ids run)
    identity: str = ""
    collection: str | None = None  # the collection the record belongs to
    read_only: str = ""  # why nothing can be recorded (a read-only record or folder), else ""
    # who records in this session, read from the sign-in (or the typed name) on every run
    visitor: visitors.Visitor = visitors.Visitor("", "", Role.NONE)
    lock: Lock = Lock(False, "", "", "")

    @property
    def mode(self) -> str:
        return self.chosen.mode if self.chosen is not None else FILE

    @property
    def default_mode(self) -> str:
        return in_force.default_mode(record_judges=self.record is not None)

    @property
    def merged(self) -> Qrels | None:
        """The qrels file with the meeting's judgments in force (None while the record judges
        nothing)."""
        return self.record.qrels if self.record is not None else None

    @property
    def judgments(self) -> int:
        return self.record.judgments if self.record is not None else 0

    @property
    def same_queries(self) -> bool:
        return self.record.same_queries if self.record is not None else True

    @property
    def left_out(self) -> tuple[str, ...]:
        return self.record.left_out if self.record is not None else ()

    def in_force(self) -> str:
        """The sentence every front end says about the qrels in force
        (:func:`rankviz.study.in_force.sentence`)."""
        said = (
            self.chosen.sentence
            if self.chosen is not None
            else in_force.sentence(FILE, self.file_qrels, judgments=self.judgments)
        )
        if self.correction is not None:
            said += f"; each mean corrected by {self.correction.sentence} (PPI++, on the Overview)"
        return said

    def writer(self) -> Writer:
        """This session's person recording in the store (created at the first entry): each entry
        under their name, refused (a MeetingError says why) when their role or the lock does not
        allow it."""
        store = self.store or MeetingStore(self.path, scale=self.scale, collection=self.collection)
        return Writer(store, self.visitor.name, self.visitor.via, self.visitor.role)

    def why_not_recording(self) -> str:
        """Why this session cannot record now (a read-only record, the lock, the person's role),
        else "" (a name still to type is asked where entries are made)."""
        if self.read_only:
            return self.read_only
        if self.lock.locked:
            return f"the meeting is locked (by {self.lock.by}) until an owner unlocks it"
        if self.visitor.role < Role.JUDGE:
            return f"you are a {self.visitor.role} of this collection: you see, you do not record"
        return ""


def open_meeting(folder: Path, collection: Collection, qrels: Qrels, qrels_key: str) -> Meeting:
    """The collection's meeting record and the qrels with its judgments in force (when it has some).
    A record that cannot be read leaves the qrels file in force, with the reason (never a broken
    page)."""
    path = inputs.notes_path(folder)
    try:
        scale = record_scale(qrels, collection)
    except GradeError as exc:  # collection.toml's grades above its gmax: nothing can be recorded
        return Meeting(path, None, said(exc), RecordVersion.empty(), qrels, qrels_key)
    owner = collection.config.name
    store, problem, read_only = served.open_record(path, scale, owner)
    meeting = Meeting(
        path,
        store,
        problem,
        RecordVersion.empty(),
        qrels,
        qrels_key,
        scale=scale,
        collection=owner,
        read_only=read_only,
        visitor=visitors.visitor(collection.config.access),
    )
    if store is None:
        return meeting
    try:
        meeting.version, meeting.identity = store.version(), store.identity()
        meeting.lock = store.lock_state()
        if meeting.version.judgments:
            content = meeting.version.content
            meeting.record = SHARED.get(
                record_key(meeting), lambda: in_force.with_record(qrels, store)
            )
            meeting.merged_key = f"{qrels_key}+meeting:{path}:{scale}:{content}"
    except (MeetingError, OSError) as exc:
        meeting.store, meeting.problem = None, served.record_problem(exc, path)
        meeting.record = None
    return meeting


def record_key(meeting: Meeting) -> tuple:
    """The cache key of the collection's qrels file with the record's judgments in force: the
    file's key, the record and its content, the grades it may hold."""
    where = str(meeting.store.path) if meeting.store is not None else str(meeting.path)
    return ("meeting qrels", meeting.file_key, where, meeting.version.content, meeting.scale)


def choose(
    url: UrlState, collection: Collection, meeting: Meeting
) -> tuple[str, str, Any, str | None]:
    """The qrels in force asked for (``qrels=``; the study that opens decides them: the meeting's
    judgments once there are some, else the file), their cache key, where the page's conventions
    line goes (the choice sits beside that line, so one query still fits a 1280x720 screen; None
    when there is nothing to choose), and people's judgments that correct an LLM's in force
    (``correct_with=``, offered once a source is in force; None: no correction)."""
    default = meeting.default_mode
    offered = in_force.offered(collection, record_judges=meeting.record is not None)
    mode, top, correct = default, None, None
    # where the meeting can record, the choice's place is kept from the start: the first judgment
    # brings the meeting's choice in without moving the page (the judging grid stays put)
    may_record = not meeting.problem and not meeting.read_only
    if len(offered) > 1 or may_record:  # at the top of the page: in projector mode too
        top, beside = st.columns([4, 1], vertical_alignment="center")
        if len(offered) > 1:
            mode = url_option(
                url,
                beside,
                QRELS_IN_FORCE,
                "frame",
                default=default,
                choices=offered,
                context=(offered,),
                horizontal=True,
            )
            people = in_force.correctors(collection, mode, record_judges=meeting.record is not None)
            if people:
                choices = [in_force.UNCORRECTED, *people]
                picked = url_option(
                    url,
                    beside,
                    in_force.CORRECT_WITH,
                    "frame",
                    choices=choices,
                    context=(mode, choices),
                    horizontal=True,
                )
                correct = None if picked == in_force.UNCORRECTED else picked
        else:
            beside.radio(
                QRELS_IN_FORCE.title,
                offered,
                horizontal=True,
                disabled=True,
                key="frame.qrels.waiting",
                help="The meeting's judgments join the choices once it has recorded one.",
            )
    key = qrels_key_of(mode, collection, meeting)
    if correct is not None:  # a draw kept in the record changes which queries correct
        drawn = meeting.store.draw() if meeting.store is not None else None
        draw_key = digest((drawn or "").encode())
        key += f"+corrected by:{qrels_key_of(correct, collection, meeting)}:{draw_key}"
    return mode, key, top, correct


def qrels_key_of(mode: str, collection: Collection, meeting: Meeting) -> str:
    """The cache key of the qrels a choice puts in force, from the keys of what they are made of."""
    if mode == FILE:
        return meeting.file_key
    if mode == MEETING:
        return meeting.merged_key
    path = collection.judges[in_force.source_of(mode) or FILE].path
    return (
        f"{meeting.file_key}+filled:{file_key(path)}"
        if mode != in_force.source_of(mode)
        else file_key(path)
    )
