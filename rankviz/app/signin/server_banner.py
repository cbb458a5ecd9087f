"""What every page says about the server it runs on: whether it listens beyond this machine."""

from __future__ import annotations

import streamlit as st

from rankviz.app.signin import visitors
from rankviz.app.widgets.text import message
from rankviz.study import served


def open_to_all() -> None:
    """A banner on every page while the server listens beyond its machine without sign-in."""
    address = str(st.get_option("server.address") or "every interface")
    if not served.loopback(address) and not visitors.required():
        st.warning(message("This server is " + served.OPEN_TO_ALL + ".", address=address))
