"""Delimited tables with a header (CSV, TSV, Excel's semicolons), read as text cells by one reader
with one set of guards: a row with more fields than the header, a header too long to be one, text
that is not UTF-8, each one line naming the file and the line (what run files already refuse)."""

from __future__ import annotations

import io
import re
import warnings
from typing import IO

from rankviz.errors import FormatError

#: A table's header is at most this long: a longer one is no header (and pandas would take
#: minutes over it).
HEADER_BYTES = 1 << 20
_FIELDS = re.compile(r"Expected (\d+) fields in line (\d+), saw (\d+)")


def read_delimited(source: str | IO[bytes], label: str, separator: str, *, header_line: int = 1):
    """The table as text cells (a DataFrame), from its text or a binary stream; ``header_line``:
    the file's line of the header (after Excel's ``sep=`` line, 2)."""
    import pandas as pd

    if isinstance(source, str):
        head = source[: HEADER_BYTES + 1].encode()
        stream: IO = io.StringIO(source)
    else:  # looked ahead through a buffer that can hold the longest header
        stream = io.BufferedReader(source, buffer_size=HEADER_BYTES + 2)  # type: ignore[type-var]
        head = stream.peek(HEADER_BYTES + 1)
    if len(head.partition(b"\n")[0]) > HEADER_BYTES:
        raise FormatError(
            label, header_line, None, f"a header line longer than {HEADER_BYTES:,} bytes"
        )
    try:
        with warnings.catch_warnings():
            # pandas takes a first row one field longer than the header as the index (a silent
            # misread), and with index_col=False drops the field with only a warning: an error here
            warnings.simplefilter("error", pd.errors.ParserWarning)
            return pd.read_csv(
                stream, sep=separator, dtype=str, keep_default_na=False, index_col=False
            )
    except pd.errors.ParserWarning:  # the first row
        names = len(head.partition(b"\n")[0].split(separator.encode()))
        raise FormatError(
            label, header_line + 1, None, f"more fields than the header's {names}"
        ) from None
    except UnicodeDecodeError:
        raise FormatError(label, 0, None, "not UTF-8 text") from None
    except pd.errors.ParserError as exc:
        found = _FIELDS.search(str(exc))
        if found is None:
            raise FormatError(label, 0, None, f"not a delimited table ({exc})") from None
        expected, line, saw = map(int, found.groups())
        raise FormatError(
            label, line + header_line - 1, None, f"{saw} fields where the header has {expected}"
        ) from None
