"""Who records in this session and whether they can: the name entries go under (the signed-in
identity, or a name typed once per browser), why nothing can be recorded now (a read-only record,
the lock, the person's role), and the owners' lock. Said on every page while the meeting is locked.
"""

from __future__ import annotations

import streamlit as st

from rankviz.app.meeting.kept import recorded
from rankviz.app.signin.visitors import NAME
from rankviz.app.widgets import browser
from rankviz.app.widgets.option_widgets import held
from rankviz.app.widgets.text import message
from rankviz.study import MeetingError, Role
from rankviz.study.record import LIMITS


def say(meeting) -> None:
    """At the top of every page: the record cannot be read, entries left out, the lock."""
    if meeting is None:
        return
    if meeting.problem:
        st.warning(
            message(
                "The meeting's record cannot be read, so the qrels file alone is in force: {}",
                meeting.problem,
            )
        )
    if meeting.left_out:
        shown = "; ".join(meeting.left_out[:3]) + (" …" if len(meeting.left_out) > 3 else "")
        st.warning(
            message(
                "{} entries of the meeting's record are left out: {}", len(meeting.left_out), shown
            )
        )
    if meeting.lock.locked:
        st.info(
            message(
                "The meeting is locked (by {} at {}): its record is read-only for everyone until "
                "an owner unlocks it.",
                meeting.lock.by,
                meeting.lock.at,
            )
        )


def person(meeting, box, *, compact: bool, ask_in=st) -> str:
    """Who this session is on the record, saying first why nothing can be recorded now if so: the
    identity of the sign-in, or the name typed in ``ask_in`` (asked once, then remembered by this
    browser; asked while the meeting is locked too, so that an owner unlocks it under a name)."""
    blocked = meeting.why_not_recording()
    if blocked and meeting.read_only:
        box.info(
            message(
                "Read only: {}. Every page computes with its judgments; nothing can be recorded. "
                "To record, start the app with --notes PATH naming a writable copy.",
                blocked,
            )
        )
        return ""
    if blocked:
        box.info(message("Nothing can be recorded here: {}.", blocked))
    if not meeting.visitor.signed_in:
        return _typed_name(ask_in, compact=compact)
    if not compact:
        box.caption(
            message(
                "You are {} ({} of this collection), the identity your sign-in gave.",
                meeting.visitor.name,
                meeting.visitor.role,
            )
        )
    return meeting.visitor.name


NAME_LABEL = "Your name (for the meeting's record; this browser remembers it)"


def _typed_name(container, *, compact: bool = False) -> str:
    """The name typed (``compact``: beside the judging grid at a projector, its label folded into
    the field's placeholder and help, so the tags and the note stay on the same screen)."""
    remembered = st.session_state.get(NAME) or browser.remembered_name()
    name = container.text_input(
        NAME_LABEL,
        value=None if held("meeting.name") else remembered,
        max_chars=LIMITS["name"],
        key="meeting.name",
        on_change=_named,
        placeholder="Your name, to judge (e.g. Ann)" if compact else "e.g. Ann",
        label_visibility="collapsed" if compact else "visible",
        help=NAME_LABEL if compact else None,
    ).strip()
    st.session_state[NAME] = name
    browser.remember_name(name)
    return name


def _named() -> None:
    """A name given: the keyboard goes on to the grades (the rerun draws the field anew, and the
    browser would leave the keyboard on the page)."""
    if (st.session_state.get("meeting.name") or "").strip():
        browser.focus_next(browser.GRADES, leaving=NAME_LABEL)


def lock_control(meeting, box, name: str) -> None:
    """An owner locks the meeting (read-only for everyone, the lock said on every page) or unlocks
    it; the record keeps who did it."""
    if meeting.visitor.role < Role.OWNER or meeting.read_only or meeting.problem:
        return
    locked = meeting.lock.locked
    label = "Unlock the meeting" if locked else "Lock the meeting"
    about = (
        "let judges record again"
        if locked
        else "make the record read-only for everyone (a finished meeting) until an owner unlocks it"
    )
    if box.button(label, key="meeting.lock", help=about, disabled=not name):
        try:
            meeting.writer().lock(not locked)
        except MeetingError as exc:
            st.error(message("Not done: {}", exc))
        else:
            recorded(f"The meeting is {'unlocked' if locked else 'locked'} by {name}.")
