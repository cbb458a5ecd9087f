"""A run file's comment lines at its top (``# ...``): an ``ir_metadata`` block (the run's
software, parameters and data, as the ir_metadata schema writes them in comments) or any note its
author left. The readers skip them; these are shown beside the run's name, as text."""

from __future__ import annotations

from pathlib import Path

from rankviz.io.sources import open_binary

#: what is read of the top of a file at most, and how many comment lines are kept
HEADER_BYTES = 256 * 1024
HEADER_LINES = 200


def header_comments(path: str | Path) -> tuple[str, ...]:
    """The comment lines the file starts with (``#`` and the space after it dropped), up to the
    first other line; none when it has none or is not a readable text file."""
    try:
        with open_binary(str(path), str(path)) as stream:
            head = stream.read(HEADER_BYTES)
    except (OSError, ValueError, EOFError):  # a FormatError naming the file too: no header
        return ()
    found = []
    for raw in head.split(b"\n")[:-1] if len(head) == HEADER_BYTES else head.split(b"\n"):
        line = raw.rstrip(b"\r").decode("utf-8", errors="replace")
        if not line.strip():
            continue
        if not line.lstrip().startswith("#"):
            break
        found.append(line.lstrip()[1:].removeprefix(" "))
        if len(found) >= HEADER_LINES:
            break
    return tuple(found)
