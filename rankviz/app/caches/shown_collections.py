"""The collections this session may see (every served one without sign-in; with it, those whose
``[access]`` gives the signed-in person a role), their titles, and why one cannot be opened, said
to whoever may know it. The collections' settings are read again only when they change.
"""

from __future__ import annotations

import logging
from pathlib import Path

import streamlit as st

from rankviz.app.caches import inputs
from rankviz.app.caches.cache import SHARED, file_key
from rankviz.app.signin import visitors
from rankviz.app.widgets.text import message
from rankviz.errors import RankvizError
from rankviz.study import Access, Role, served

#: what a server says only to its administrator (streamlit's log, on the server's console)
_LOG = logging.getLogger("rankviz.app")


def collections() -> dict[str, Path]:
    """The collections this session may see, by name: every served one without sign-in; with it,
    those whose ``[access]`` gives the person a role (a collection whose settings cannot be read
    is listed, and says why when opened, without showing anything)."""
    folders = inputs.collection_folders(inputs.data_dirs())
    if not visitors.required():
        return folders
    shown = {}
    for name, folder in folders.items():
        try:
            role = _access(folder).role(visitors.email())
        except RankvizError:
            role = Role.VIEWER
        if role is not Role.NONE:
            shown[name] = folder
    return shown


def cannot_open(name: str, folder: Path, reason: str, *, say=None) -> None:
    """Why a served collection cannot be opened (a collection.toml that does not parse, a broken
    qrels file): always in the server's log; on the page to whoever may know it, the app's own
    user without sign-in or the collection's owners with it; anyone else reads that it is not
    available (where its settings cannot be read, neither can its owners: the log alone has it).
    ``say``: how the page says it (``st.error`` by default)."""
    shown = say or st.error
    _LOG.warning("the collection %s (%s) cannot be opened: %s", name, folder, reason)
    if visitors.required():
        try:
            role = _access(folder).role(visitors.email())
        except RankvizError:
            role = Role.NONE  # its [access] cannot be read: nobody is known as its owner
        if role < Role.OWNER:
            shown(message("The collection {} is not available.", name))
            return
    shown(
        message("The collection {} cannot be opened: {}", name, served.served_text(reason, folder))
    )


def title(folder: Path) -> str:
    """A collection's name from its collection.toml, read again only when that file changes."""
    settings = folder / "collection.toml"
    key = file_key(settings) if settings.is_file() else f"none:{folder}"
    return SHARED.get(("title", key), lambda: served.collection_title(folder))


def _access(folder: Path) -> Access:
    """A collection's [access], read again only when its collection.toml changes."""
    settings = folder / "collection.toml"
    key = file_key(settings) if settings.is_file() else f"none:{folder}"
    return SHARED.get(("access", key), lambda: served.collection_access(folder))
