"""Errors that rankviz raises for bad input: each names the file, the line and the reason.

Every one is a :class:`RankvizError` (what the CLI and the app catch and show as one line) and a
``ValueError`` (what Python code that knows nothing of rankviz expects from bad arguments).
"""

from __future__ import annotations

#: who an error is said to: each gives an option its own way (a flag, a widget, a keyword)
API, COMMAND_LINE, APP = "api", "command line", "app"


class RankvizError(Exception):
    """Base class: an error in the user's input or options, never a bug in rankviz.

    Parameters
    ----------
    message
        What is wrong, in one line.
    """

    def said(self, front: str) -> str:
        """The message as ``front`` (:data:`API`, :data:`COMMAND_LINE` or :data:`APP`) says it:
        an error whose way out is an option names that front end's way to give it (the API's
        keyword, the command line's flag, the app's control); any other, its message."""
        return str(self)


def shell_quoted(text: str) -> str:
    """A file's name as a shell prints it (bash's ``printf %q``): as it is when every character
    is printable text, else ``$'...'`` with each byte the name's encoding could not decode
    (Python's surrogate escapes: a Latin-1 ``é`` is ``\\351``) and each control character
    escaped. Printing it never fails, and the name stays one of a kind."""
    if not any(_escaped_char(c) and c not in "\\'" for c in text):
        return text
    return "$'" + "".join(_escaped_char(c) or c for c in text) + "'"


def _escaped_char(char: str) -> str:
    """How ``$'...'`` writes ``char`` ("" for a character that stands as it is)."""
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:  # a byte the file system's encoding could not decode
        return f"\\{code - 0xDC00:03o}"
    if char in "\\'":
        return "\\" + char
    if code < 0x20 or code == 0x7F:
        return {"\n": "\\n", "\t": "\\t", "\r": "\\r"}.get(char, f"\\{code:03o}")
    return ""


class FormatError(RankvizError, ValueError):
    """A file that cannot be read as what it claims to be.

    ``line_no`` is 1-based; 0 means the problem concerns the file as a whole (empty, binary).
    The message names the file, the line and the reason, and the reason quotes only the offending
    field, shortened (:func:`quoted`): a message may be shown to others (a shared server), and the
    rest of a line is none of theirs. ``line`` keeps the whole line for the caller.

    Parameters
    ----------
    path
        The file.
    line_no
        Its 1-based line; 0: the file as a whole.
    line
        The whole line, for the caller (not shown).
    reason
        What is wrong, quoting only the offending field.
    """

    def __init__(self, path: str, line_no: int, line: str | None, reason: str) -> None:
        self.path = path
        self.line_no = line_no
        self.line = line
        self.reason = reason
        super().__init__(str(self))

    def __str__(self) -> str:
        path = shell_quoted(str(self.path))
        where = f"{path}, line {self.line_no}" if self.line_no else path
        return f"{where}: {self.reason}"


def quoted(field: str, limit: int = 40) -> str:
    """A field as a message quotes it: its repr, cut to ``limit`` characters with an ellipsis."""
    return repr(field if len(field) <= limit else field[: limit - 1] + "\u2026")


class MeasureError(RankvizError, ValueError):
    """A measure name that does not parse, or a parameter that is out of range.

    Parameters
    ----------
    message
        What is wrong with the measure's name or parameter, in one line.
    """


class OptionError(RankvizError, ValueError):
    """An option (tie policy, missing-query policy, ...) that rankviz does not know.

    Parameters
    ----------
    message
        What is wrong with the option, in one line.
    """


class CollectionError(RankvizError, ValueError):
    """A collection folder that does not follow the documented layout.

    Parameters
    ----------
    message
        What is wrong with the folder, in one line.
    """


def install_hint(extra: str) -> str:
    """The pip command that installs an extra's packages from wherever rankviz was installed: its
    requirements by name (the extra itself, ``rankviz[app]``, is served by no registry)."""
    from importlib import metadata

    try:
        wanted = [
            r.split(";")[0].strip()
            for r in metadata.requires("rankviz") or []
            if f'extra == "{extra}"' in r
        ]
    except metadata.PackageNotFoundError:
        wanted = []
    named = " ".join(f"'{r}'" for r in wanted)
    return f"pip install {named}" if named else f"pip install '.[{extra}]' in rankviz's checkout"
