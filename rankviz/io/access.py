"""Who may do what with a collection on a server with sign-in: ``[access]`` in collection.toml.

Three lists of e-mail addresses or ``*@domain`` patterns (``*`` alone: every signed-in person):
``viewers`` see every page and number, ``judges`` also record grades, tags and notes, ``owners``
also import and undo judgments, and lock and unlock the meeting. Each role includes the ones
before it; a person on several lists has the highest. Without ``[access]`` every signed-in person
judges; without sign-in (one person on their own machine) whoever uses the app owns it.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from enum import IntEnum


class Role(IntEnum):
    """What a person may do with one collection, each role including the ones before it."""

    NONE = 0  # not listed: sees nothing of the collection
    VIEWER = 1
    JUDGE = 2
    OWNER = 3

    def __str__(self) -> str:
        return self.name.lower()


#: What each kind of change to the meeting's record needs.
NEEDS = {
    "judge": Role.JUDGE,
    "import": Role.OWNER,
    "undo": Role.OWNER,
    "lock": Role.OWNER,
    "unlock": Role.OWNER,
    "draw": Role.OWNER,
}
LISTS = ("viewers", "judges", "owners")
_DOMAIN = re.compile(r"(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]*[a-z0-9])?")
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def mail_address(raw: object) -> str:
    """An e-mail address as the roles compare it, as the mail standards do: one ``@``, the domain
    case-folded as ASCII (an internationalised domain in its ``xn--`` form), the local part's ASCII
    letters lower-cased and nothing else folded. ``str.lower`` would fold the KELVIN SIGN of
    ``\u212aate@example.org`` into kate's address; such an address is refused instead, as is
    anything that is not one address (a list, two ``@``, spaces). Raises ValueError saying why."""
    if not isinstance(raw, str):
        raise ValueError(f"the e-mail address given is not one address but a {type(raw).__name__}")
    text = raw.strip()
    local, _, domain = text.rpartition("@")
    if text.count("@") != 1 or not local or not domain:
        raise ValueError(f"{text!r} is not one e-mail address (one @ between a name and a domain)")
    if any(c.isspace() or unicodedata.category(c).startswith("C") for c in text):
        raise ValueError(f"{text!r} holds spaces or control characters: not an e-mail address")
    domain = domain.translate(_ASCII_LOWER)
    if not _DOMAIN.fullmatch(domain):
        raise ValueError(
            f"{text!r}: its domain is not letters, digits, dots and hyphens (an internationalised "
            "domain is written in its xn-- form)"
        )
    if unicodedata.normalize("NFKC", local) != local:
        raise ValueError(
            f"{text!r}: its name holds compatibility characters (such as U+212A KELVIN SIGN) that "
            "would read as another address"
        )
    return f"{local.translate(_ASCII_LOWER)}@{domain}"


def _pattern(text: str) -> str:
    """An ``[access]`` entry in the form :func:`mail_address` gives: ``*``, ``*@domain`` or an
    address. Raises ValueError."""
    if text.strip() == "*":
        return "*"
    if text.strip().startswith("*@"):
        return "*@" + mail_address("x" + text.strip()[1:]).partition("@")[2]
    return mail_address(text)


def _matches(pattern: str, address: str) -> bool:
    if pattern == "*":
        return True
    if pattern.startswith("*@"):
        return address.partition("@")[2] == pattern[2:]
    return address == pattern


@dataclass(frozen=True)
class Access:
    """A collection's ``[access]`` lists (as :func:`mail_address` writes them); ``declared``:
    whether it has the table."""

    viewers: tuple[str, ...] = ()
    judges: tuple[str, ...] = ()
    owners: tuple[str, ...] = ()
    declared: bool = False

    def role(self, email: str) -> Role:
        """The role of a signed-in person, by the e-mail address the provider vouches for (not
        one address, :func:`mail_address`: no role)."""
        try:
            address = mail_address(email)
        except ValueError:
            return Role.NONE
        if not self.declared:
            return Role.JUDGE
        for role, patterns in (
            (Role.OWNER, self.owners),
            (Role.JUDGE, self.judges),
            (Role.VIEWER, self.viewers),
        ):
            if any(_matches(p, address) for p in patterns):
                return role
        return Role.NONE


def read_access(table: object) -> Access:
    """``[access]`` of collection.toml (None: the table is absent), checked."""
    if table is None:
        return Access()
    if not isinstance(table, dict) or set(table) - set(LISTS):
        raise ValueError(
            "[access] takes viewers, judges and owners: lists of e-mail addresses or *@domain"
        )
    found: dict[str, tuple[str, ...]] = {}
    for key in LISTS:
        value = table.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ValueError(f'[access] {key} must be a list, e.g. {key} = ["ann@example.org"]')
        try:
            found[key] = tuple(_pattern(pattern) for pattern in value)
        except ValueError as exc:
            raise ValueError(
                f"[access] {key}: {exc}; write an e-mail address or *@domain"
            ) from None
    return Access(**found, declared=True)


def refusal(role: Role, change: str) -> str:
    """Why a person of ``role`` may not make ``change`` (a key of :data:`NEEDS`), else ""."""
    needed = NEEDS[change]
    if role >= needed:
        return ""
    who = f"a {role}" if role is not Role.NONE else "someone not on this collection's lists"
    article = "an" if str(needed)[0] in "aeiou" else "a"
    return (
        f"{who} cannot {change} here: that takes {article} {needed} ([access] in collection.toml)"
    )
