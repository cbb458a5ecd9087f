"""Who may do what with a collection on a server with sign-in: ``[access]`` in collection.toml.

Three lists of e-mail addresses or ``*@domain`` patterns (``*`` alone: every signed-in person):
``viewers`` see every page and number, ``judges`` also record grades, tags and notes, ``owners``
also import and undo judgments, and lock and unlock the meeting. Each role includes the ones
before it; a person on several lists has the highest. Without ``[access]`` every signed-in person
judges; without sign-in (one person on their own machine) whoever uses the app owns it.
"""

from __future__ import annotations

import re
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
}
_PATTERN = re.compile(r"\*|\*@[^@\s*]+|[^@\s*]+@[^@\s*]+")
LISTS = ("viewers", "judges", "owners")


def _matches(pattern: str, email: str) -> bool:
    if pattern == "*":
        return True
    if pattern.startswith("*@"):
        return email.endswith(pattern[1:])
    return email == pattern


@dataclass(frozen=True)
class Access:
    """A collection's ``[access]`` lists (lower-cased); ``declared``: whether it has the table."""

    viewers: tuple[str, ...] = ()
    judges: tuple[str, ...] = ()
    owners: tuple[str, ...] = ()
    declared: bool = False

    def role(self, email: str) -> Role:
        """The role of a signed-in person, by the e-mail address the provider vouches for."""
        if not self.declared:
            return Role.JUDGE
        address = email.strip().lower()
        for role, patterns in (
            (Role.OWNER, self.owners),
            (Role.JUDGE, self.judges),
            (Role.VIEWER, self.viewers),
        ):
            if address and any(_matches(p, address) for p in patterns):
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
        for pattern in value:
            if not _PATTERN.fullmatch(pattern.strip()):
                raise ValueError(
                    f"[access] {key}: {pattern!r} is neither an e-mail address nor *@domain"
                )
        found[key] = tuple(v.strip().lower() for v in value)
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
