"""What the person's browser keeps for them: the name they judge under, across reloads, a warning
before a reload or a closed tab throws away text they typed and did not apply, and where the
keyboard goes next in the meeting's walk (name, grades, tag, note, Next).

A Streamlit session ends with a reload; the name would have to be typed again, and the judging grid
stays closed until it is. The browser keeps it in a cookie of this server (read back through
``st.context.cookies`` when the next session starts), never in the link a person shares. The name
is written into the page's script as a JSON string with ``<``, ``>`` and ``&`` escaped: data, never
markup or code.
"""

from __future__ import annotations

import json
from urllib.parse import unquote

import streamlit as st

COOKIE = "rankviz_name"
_FOCUS = "rankviz.focus_next"  # (to, from): where the keyboard goes once this run is drawn
_WALKING = "rankviz.keyboard_walk"
#: the meeting's walk by keyboard: its controls' labels, in the order a person goes through them
GRADES = "Grades by keyboard (docid grade, ...)"
NEW_TAG = "New tag"
NOTE = "Note on this query"
NEXT = "Next"
_WRITTEN = "rankviz.name_cookie"  # the name this session last wrote into the cookie
_GUARDED = "rankviz.unsent_guard"
#: A text field shows "Press Ctrl+Enter to apply" (or "Press Enter to apply") while what is typed
#: has not reached the server: leaving the page then asks first, as the browser does for any unsaved
#: form.
_GUARD = """<script>
if (!window.rankvizUnsentGuard) {
  window.rankvizUnsentGuard = true;
  window.addEventListener("beforeunload", (event) => {
    const pending = [...document.querySelectorAll('[data-testid="InputInstructions"]')]
      .some((element) => element.textContent.includes("to apply"));
    if (pending) { event.preventDefault(); event.returnValue = ""; }
  });
}
</script>"""


def remembered_name() -> str:
    """The name this browser judged under last (empty when none)."""
    value = st.context.cookies.get(COOKIE)
    # none where no browser sent one (a test)
    return unquote(value).strip() if isinstance(value, str) else ""


def remember_name(name: str) -> None:
    """Keep ``name`` in this browser for its next sessions (an empty name forgets it)."""
    if st.session_state.get(_WRITTEN, remembered_name()) == name:
        return
    st.session_state[_WRITTEN] = name
    value = _js_string(name)
    lifetime = 365 * 24 * 3600 if name else 0
    script = (
        f"<script>document.cookie = '{COOKIE}=' + encodeURIComponent({value}) + "
        f"'; path=/; max-age={lifetime}; SameSite=Strict';</script>"
    )
    st.html(script, unsafe_allow_javascript=True)


def guard_unsent_typing() -> None:
    """Once per session: a reload or a closed tab asks first while typed text has not been
    applied."""
    if not st.session_state.get(_GUARDED):
        st.session_state[_GUARDED] = True
        st.html(_GUARD, unsafe_allow_javascript=True)


def focus_next(label: str, *, leaving: str) -> None:
    """Once this run (or the next, from a callback) is drawn, the keyboard goes from the control
    labelled ``leaving`` (the step just done) to the one labelled ``label`` (a field's aria-label,
    a button's text): the next step has it, with no Tab back from the top of the page."""
    st.session_state[_FOCUS] = (label, leaving)


def move_focus() -> None:
    """Send the pending :func:`focus_next`: a script that waits until the run has drawn the page
    and the control is there and enabled, then gives it the keyboard (at most 15 s), unless the
    person went on by then: pressed a mouse button (the page never moves under a pointer), or has
    the keyboard somewhere else than the step just done."""
    pending = st.session_state.pop(_FOCUS, None)
    if pending is None:
        return
    label, leaving = pending
    st.html(
        "<script>(() => { const label = "
        + _js_string(label)
        + "; const leaving = "
        + _js_string(leaving)
        + """; const since = Date.now(), until = since + 15000;
  if (!window.rankvizPointing) {  // the last press of a mouse or a finger: the person's own move
    window.rankvizPointing = true;
    document.addEventListener("pointerdown", () => { window.rankvizPointedAt = Date.now(); }, true);
  }
  const done = () => document.querySelector('[data-testid="stApp"]')
    ?.getAttribute("data-test-script-state") === "notRunning";
  const find = () => [...document.querySelectorAll("input, textarea, button")].find((e) =>
    !e.disabled && (e.getAttribute("aria-label") === label || e.innerText.trim() === label));
  const tick = () => {
    if ((window.rankvizPointedAt || 0) >= since) return;
    if (done()) {
      const active = document.activeElement;
      const from = active?.getAttribute("aria-label") || active?.innerText?.trim();
      if (active && active !== document.body && from !== leaving) return;
      const found = find();
      if (found) {
        found.focus({ preventScroll: true });
        found.scrollIntoView({ block: "nearest" });
        return;
      }
    }
    if (Date.now() < until) setTimeout(tick, 50);
  };
  tick(); })();</script>""",
        unsafe_allow_javascript=True,
    )


def walk_by_keyboard(steps: list[str]) -> None:
    """Once per session: Enter in an empty field of ``steps`` (labels, in the walk's order) moves
    the keyboard to the next step's field, so that a person done with grades goes on to the tag,
    and done with tags to the note, without going round the page."""
    if st.session_state.get(_WALKING) == steps:
        return
    st.session_state[_WALKING] = steps
    following = dict(zip(steps, steps[1:], strict=False))
    st.html(
        "<script>(() => { window.rankvizWalk = "
        + _js_string(json.dumps(following))
        + """; if (window.rankvizWalking) return; window.rankvizWalking = true;
  document.addEventListener("keydown", (event) => {
    const field = event.target;
    const to = JSON.parse(window.rankvizWalk)[field?.getAttribute?.("aria-label")];
    if (event.key !== "Enter" || !to || field.value !== "" || event.shiftKey || event.ctrlKey)
      return;
    const next = [...document.querySelectorAll("input, textarea")].find((e) =>
      !e.disabled && e.getAttribute("aria-label") === to);
    if (next) { event.preventDefault(); next.focus(); }
  }, true); })();</script>""",
        unsafe_allow_javascript=True,
    )


def _js_string(text: str) -> str:
    """``text`` as a JavaScript string literal inside a script element: data, never markup."""
    return json.dumps(text).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
