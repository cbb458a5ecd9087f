"""Who is using this session: a person signed in through the server's OpenID Connect provider
(Streamlit's ``st.login``, configured by an ``[auth]`` section in the server's secrets: ``rankviz
app --auth FILE``), or, without sign-in, whoever uses the app, under the name they type.

With sign-in, a visitor who is not signed in sees the sign-in and nothing else; a signed-in person
sees only the collections whose ``[access]`` lists them (:mod:`rankviz.io.access`), and records
under the identity the provider vouches for, read from ``st.user`` on every run: nothing a page
sends (a widget's value, the link) can change it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from rankviz.app import inputs
from rankviz.app.cache import SHARED, file_key
from rankviz.app.kept import NAME
from rankviz.app.text import message
from rankviz.errors import RankvizError
from rankviz.study import Access, Role, served
from rankviz.study.record import SIGNED_IN, TYPED

#: what a server says only to its administrator (streamlit's log, on the server's console)
_LOG = logging.getLogger("rankviz.app")


@dataclass(frozen=True)
class Visitor:
    """Who records in this session: ``name`` (the provider's e-mail address, or the typed name,
    "" until one is typed), how it is known (``via``) and the role on the collection shown."""

    name: str
    via: str
    role: Role

    @property
    def signed_in(self) -> bool:
        return self.via == SIGNED_IN


def required() -> bool:
    """Whether this server signs people in (its secrets hold an ``[auth]`` section)."""
    try:
        return bool(st.secrets.load_if_toml_exists() and "auth" in st.secrets)
    except (FileNotFoundError, RankvizError):  # no secrets at all: no sign-in
        return False


def providers() -> list[str | None]:
    """The providers to offer: each ``[auth.NAME]`` with a client id, else the one ``[auth]``."""
    section = st.secrets["auth"]
    named = [key for key, value in section.items() if hasattr(value, "get")]
    return [key for key in named if section[key].get("client_id")] or [None]


def email() -> str:
    """The signed-in person's e-mail address as the roles compare it, "" when the provider did
    not vouch for one (:func:`refused`)."""
    return served.vouched_address(st.user)[0]


def refused() -> str:
    """Why this sign-in gives no identity ("" when it gives one), for the page
    (:func:`rankviz.study.served.vouched_address`)."""
    problem = served.vouched_address(st.user)[1]
    return message("{}", problem) if problem else ""


def gate(paths: list[str], default: str) -> None:
    """Before any page: with sign-in, a visitor not signed in sees the sign-in and nothing else
    (every page's address, ``paths``, shows the sign-in; no page is listed); a signed-in person
    sees who they are and a sign-out in the sidebar."""
    if not required():
        return
    if not st.user.is_logged_in:
        pages = [
            st.Page(_sign_in, title="Sign in", url_path=path, default=path == default)
            for path in paths
        ]
        st.navigation(pages, position="hidden").run()
        st.stop()
    if problem := refused():
        st.error(problem)
        if st.button("Sign out", key="signin.refused"):
            st.logout()
        st.stop()
    who = st.sidebar.container()
    who.text(f"Signed in as {email()}")  # plain text: the address copies as it is typed
    if who.button("Sign out", key="signin.out"):
        st.logout()


def _sign_in() -> None:
    st.set_page_config(page_title="Sign in · rankviz", layout="centered")
    st.title("rankviz")
    st.write("This server shows its collections to the people it knows: sign in to go on.")
    for provider in providers():
        label = "Sign in" + (f" with {provider}" if provider else "")
        if st.button(label, key=f"signin.{provider}", type="primary"):
            st.login(provider)  # None: the one provider of [auth]


def visitor(access: Access) -> Visitor:
    """This session's person on a collection of ``access``: signed in (their role from the lists),
    or, without sign-in, the owner of their own app under the name typed (kept by the session)."""
    if required():
        return Visitor(email(), SIGNED_IN, access.role(email()))
    return Visitor(str(st.session_state.get(NAME, "")).strip(), TYPED, Role.OWNER)


def collections() -> dict[str, Path]:
    """The collections this session may see, by name: every served one without sign-in; with it,
    those whose ``[access]`` gives the person a role (a collection whose settings cannot be read
    is listed, and says why when opened, without showing anything)."""
    folders = inputs.collection_folders(inputs.data_dirs())
    if not required():
        return folders
    shown = {}
    for name, folder in folders.items():
        try:
            role = _access(folder).role(email())
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
    if required():
        try:
            role = _access(folder).role(email())
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
