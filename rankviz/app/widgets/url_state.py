"""The view in the URL: plain validated strings in ``st.query_params``, the same on every page.

Every value a colleague should see (collection, runs, measures, settings, baseline, query, depth,
document, ...) lives in the URL, so a shared link restores the screen. A bad or stale value falls
back to the default with a warning (its text escaped). Values are also remembered for the browser
session: a page switch starts from the new page's bare URL, and the remembered values are put back
into it, so every page shows the settings the others set.

The URL also wins over the widgets: when it holds a value this session did not write (browser Back
or Forward, a link opened, the address edited), the widgets bound to that value
(:meth:`UrlState.keyed`) start again from it instead of keeping their own state, so Back undoes a
change.
"""

from __future__ import annotations

import urllib.parse
from typing import Any

import streamlit as st

from rankviz.app.widgets.option_widgets import widget_key
from rankviz.app.widgets.text import message, said
from rankviz.errors import OptionError
from rankviz.settings.options import Option

_MEMORY = "rankviz.url"
_UNSET = object()
_PAGE = "rankviz.page"


class UrlState:
    """Reads validated values from the URL (or the session's memory of it); collects the warnings.

    ``page``: the page being shown. Arriving from another page, the remembered values fill in what
    its URL lacks; on the same page, a value missing from the URL was removed (Back) and stays out.
    """

    def __init__(self, page: str = "") -> None:
        self.warnings: list[str] = []
        self._repeated: set[str] = set()
        # once the frame has shown its warnings, a page's own show where they arise
        self.immediate = False
        memory = st.session_state.setdefault(_MEMORY, {})
        switched = st.session_state.get(_PAGE) != page
        st.session_state[_PAGE] = page
        given = st.query_params.to_dict()
        if switched:
            for key, value in memory.items():
                if key not in given:
                    st.query_params[key] = value
            self.changed = {key for key, value in given.items() if memory.get(key) != value}
        else:
            self.changed = {
                key for key in set(given) | set(memory) if memory.get(key) != given.get(key)
            }
            for key in self.changed - set(given):
                memory.pop(key, None)
        for key in self.changed & set(given):
            memory[key] = given[key]

    def key(self, param: str, page: str, *context: object, value: Any = _UNSET) -> str:
        """The key of the widget that shows ``param`` on ``page`` (see :meth:`keyed`)."""
        return self.keyed(param, widget_key(f"{page}.{param}", *context), value)

    def keyed(self, param: str, key: str, value: Any = _UNSET) -> str:
        """``key`` for the widget showing ``param``. When the URL changed ``param`` from outside
        (Back, a link), the widget is set to ``value`` (what the URL says, as the widget's value),
        or with no value given, its state is dropped: either way it shows the URL, not what it
        showed before."""
        if param in self.changed:
            if value is _UNSET:
                st.session_state.pop(key, None)
            else:
                st.session_state[key] = value  # the browser's widget shows it too
        return key

    def raw(self, key: str) -> str | None:
        """The URL's value of ``key``; given more than once, the last one, and a warning says so."""
        given = st.query_params.get_all(key)
        if len(given) > 1 and key not in self._repeated:
            self._repeated.add(key)
            self.warn(
                message(
                    "Link parameter {} is given {} times; using the last, {}.",
                    key,
                    len(given),
                    repr(given[-1]),
                )
            )
        return given[-1] if given else None

    def warn(self, text: str) -> None:
        """A fallback warning (already escaped): collected while the frame is built, shown at once
        later."""
        if self.immediate:
            st.warning(text)
        else:
            self.warnings.append(text)

    def fallback(
        self, key: str, value: str, default: object, why: str = "is not available here"
    ) -> None:
        self.warn(
            message("Link parameter {}={} " + why + "; showing {}.", key, repr(value), default)
        )

    def option(self, option: Option, default: Any = None, *, key: str | None = None) -> Any:
        """The option's value from the URL, validated by the option; ``default`` (or the option's)
        otherwise."""
        key = key or option.name
        default = option.default if default is None else default
        value = self.raw(key)
        if value is None:
            return default
        try:
            return option.parse(value)
        except OptionError as exc:
            self.warn(
                message(
                    "Link parameter {}={}: {}; showing {}.", key, repr(value), said(exc), default
                )
            )
            return default

    def choice(self, key: str, options: list[str], default: str) -> str:
        value = self.raw(key)
        if value is None or value in options:
            return default if value is None else value
        self.fallback(key, value, repr(default))
        return default

    def choices(
        self,
        key: str,
        options: list[str],
        default: list[str],
        *,
        accept=None,
        missing=None,
        repeats: bool = False,
        spelled=None,
    ) -> list[str]:
        """A comma-separated list; ``accept(value)`` may admit values that are not among
        ``options``;
        ``missing(values)`` says (escaped) why values were left out, instead of the plain warning.
        A value given twice is one choice, unless ``repeats`` (a list whose repeats the page refuses
        itself). ``spelled(items)``: the items as the page writes them (other spellings read)."""
        value = self.raw(key)
        if value is None:
            return default
        items = [v for v in value.split(",") if v]
        items = spelled(items) if spelled is not None else items
        items = items if repeats else list(dict.fromkeys(items))
        picked = [v for v in items if v in options or (accept is not None and accept(v))]
        dropped = [v for v in items if v not in picked]
        if dropped:
            self.warn(
                missing(dropped)
                if missing
                else message(
                    "Link parameter {}: {} not available here; left out.",
                    key,
                    ", ".join(map(repr, dropped)),
                )
            )
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
