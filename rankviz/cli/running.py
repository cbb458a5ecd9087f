"""Running one command: its text on stdout and its exit status, an input error as one line on
stderr and status 2 (never a traceback), for every command and the drop-ins alike."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path

from rankviz.errors import COMMAND_LINE, FormatError, RankvizError


def run(
    command: Callable[[argparse.Namespace], str | tuple[str, int]], args: argparse.Namespace
) -> int:
    """``command``'s output on stdout and its status; an input error one line on stderr and 2."""
    try:
        done = command(args)
        text, status = done if isinstance(done, tuple) else (done, 0)
        sys.stdout.write(text)
    except RankvizError as exc:
        print(f"rankviz: error: {_said(exc, getattr(args, 'qrels', None))}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    # a file named on the command line that cannot be read or written: an input error
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename is not None else ""
        print(f"rankviz: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 2
    return status


def _said(exc: RankvizError, folder: str | None) -> str:
    """The error, but a file a link in the collection ``folder`` leads to from outside it is named
    without its text: a field of a file elsewhere on the machine is not the collection's to show."""
    if not isinstance(exc, FormatError) or not folder or not Path(folder).is_dir():
        return exc.said(COMMAND_LINE)
    path, root = Path(os.path.abspath(exc.path)), Path(os.path.abspath(folder))
    if root not in path.parents or root.resolve() in path.resolve().parents:
        return str(exc)
    where = f"{exc.path}, line {exc.line_no}" if exc.line_no else exc.path
    return (
        f"{where}: cannot be read as a run (a link to a file outside the collection folder: its "
        "text is not quoted)"
    )
