"""User text inside the app's markdown (captions, messages, headings) shown literally, never interpreted.

Streamlit renders messages as GitHub markdown with KaTeX, emoji and coloured-text shortcodes: a run
name, a query text, a URL parameter or a line quoted from an upload could otherwise become a link,
a remote image (fetched by every viewer's browser), a formula or an icon. :func:`md` escapes every
ASCII punctuation character (CommonMark lets each be escaped) and folds line breaks. Bare URLs,
``www.`` names and e-mail addresses are turned into links after escapes are resolved, so a word
joiner (U+2060, invisible) follows every ``:`` and ``@`` and sits inside ``www.``: the text reads the
same and never links. Tables (``st.dataframe``) and ``st.text`` / ``st.code`` show text as written.
"""

from __future__ import annotations

import re

_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")
_JOIN = "\u2060"


def md(value: object) -> str:
    """``value`` as text that markdown shows as written."""
    text = " ".join(str(value).replace("\r", " ").split("\n"))
    text = re.sub(r"(?i)www\.", lambda m: m.group(0)[:3] + _JOIN + ".", text)
    escaped = _PUNCTUATION.sub(r"\\\1", text)
    return escaped.replace("\\:", "\\:" + _JOIN).replace("\\@", "\\@" + _JOIN)


def message(template: str, *values: object, **named: object) -> str:
    """``template.format(...)`` with every value escaped (the template is the app's own markdown)."""
    return template.format(*(md(v) for v in values), **{k: md(v) for k, v in named.items()})
