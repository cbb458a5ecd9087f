"""User text inside the app's markdown (captions, messages, headings) shown literally, never interpreted.

Streamlit renders messages as GitHub markdown with KaTeX: a run name, a query text, a URL
parameter or a line quoted from an upload could otherwise become a link, a remote image (fetched
by every viewer's browser) or a formula. :func:`md` escapes every ASCII punctuation character
(CommonMark lets each be escaped) and folds line breaks, which also breaks bare-URL autolinks.
Tables (``st.dataframe``) and ``st.text`` / ``st.code`` show text literally already.
"""

from __future__ import annotations

import re

_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")


def md(value: object) -> str:
    """``value`` as text that markdown shows as written."""
    text = " ".join(str(value).split("\n"))
    return _PUNCTUATION.sub(r"\\\1", text.replace("\r", " "))


def message(template: str, *values: object, **named: object) -> str:
    """``template.format(...)`` with every value escaped (the template is the app's own markdown)."""
    return template.format(*(md(v) for v in values), **{k: md(v) for k, v in named.items()})
