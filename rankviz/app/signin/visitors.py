"""Who is using this session: a person signed in through the server's OpenID Connect provider
(Streamlit's ``st.login``, configured by an ``[auth]`` section in the server's secrets: ``rankviz
app --auth FILE``), or, without sign-in, whoever uses the app, under the name they type.

With sign-in, a visitor who is not signed in sees the sign-in and nothing else; a signed-in person
sees only the collections whose ``[access]`` lists them (:mod:`rankviz.io.access`), and records
under the identity the provider vouches for, read from ``st.user`` on every run: nothing a page
sends (a widget's value, the link) can change it.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from rankviz.app.widgets.text import message
from rankviz.errors import RankvizError
from rankviz.study import Access, Role, served
from rankviz.study.record import SIGNED_IN, TYPED

#: the session state's key of the name a person types when the server signs nobody in
NAME = "rankviz.meeting_name"


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
