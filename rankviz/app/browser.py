"""What the person's browser keeps for them: the name they judge under, across reloads, and a
warning before a reload or a closed tab throws away text they typed and did not apply.

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
    value = json.dumps(name).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
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
