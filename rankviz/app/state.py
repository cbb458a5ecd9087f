"""The view in the URL: plain validated strings in ``st.query_params``, the same on every page.

Every value a colleague should see (collection, runs, measures, settings, baseline, query, ...)
lives in the URL, so a shared link restores the screen. A bad or stale value falls back to the
default with a warning (its text escaped). Values are also remembered for the browser session: a
page switch starts from the new page's bare URL, and the remembered values are put back into it.
"""

from __future__ import annotations

import urllib.parse
from typing import Any

import streamlit as st

from rankviz.app.text import message
from rankviz.errors import OptionError
from rankviz.settings import Option

_MEMORY = "rankviz.url"


class UrlState:
    """Reads validated values from the URL (or the session's memory of it); collects the warnings."""

    def __init__(self) -> None:
        self.warnings: list[str] = []
        self.immediate = False  # once the frame has shown its warnings, a page's own show where they arise
        memory = st.session_state.setdefault(_MEMORY, {})
        for key, value in memory.items():
            if key not in st.query_params:
                st.query_params[key] = value

    def raw(self, key: str) -> str | None:
        return st.query_params.get(key)

    def warn(self, text: str) -> None:
        """A fallback warning (already escaped): collected while the frame is built, shown at once later."""
        if self.immediate:
            st.warning(text)
        else:
            self.warnings.append(text)

    def _fallback(self, key: str, value: str, default: object, why: str = "is not available here") -> None:
        self.warn(message("Link parameter {}={} " + why + "; showing {}.", key, repr(value), default))

    def option(self, option: Option, default: Any = None, *, key: str | None = None) -> Any:
        """The option's value from the URL, validated by the option; ``default`` (or the option's) otherwise."""
        key = key or option.name
        default = option.default if default is None else default
        value = self.raw(key)
        if value is None:
            return default
        try:
            return option.parse(value)
        except OptionError as exc:
            self.warn(message("Link parameter {}={}: {}; showing {}.", key, repr(value), str(exc), default))
            return default

    def choice(self, key: str, options: list[str], default: str) -> str:
        value = self.raw(key)
        if value is None or value in options:
            return default if value is None else value
        self._fallback(key, value, repr(default))
        return default

    def choices(self, key: str, options: list[str], default: list[str], *, accept=None) -> list[str]:
        """A comma-separated list; ``accept(value)`` may admit values that are not among ``options``."""
        value = self.raw(key)
        if value is None:
            return default
        items = [v for v in value.split(",") if v]
        picked = [v for v in items if v in options or (accept is not None and accept(v))]
        dropped = [v for v in items if v not in picked]
        if dropped:
            self.warn(message("Link parameter {}: {} not available here; left out.", key, ", ".join(map(repr, dropped))))
        return picked or default

    def write(self, **values: object) -> None:
        """Put values into the URL (and the session's memory); ``None`` removes a key."""
        memory = st.session_state.setdefault(_MEMORY, {})
        for key, value in values.items():
            if value is None:
                memory.pop(key, None)
                if key in st.query_params:
                    del st.query_params[key]
                continue
            text = ",".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)
            memory[key] = text
            if st.query_params.get(key) != text:
                st.query_params[key] = text

    @staticmethod
    def link(page: str, **values: str) -> str:
        """A relative link to another page carrying the current view with ``values`` changed."""
        state = {**st.query_params.to_dict(), **values}
        return f"{page}?{urllib.parse.urlencode(state)}"
