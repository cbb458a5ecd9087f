"""User text inside the app's markdown (captions, messages, headings) shown literally, never
interpreted.

Streamlit renders messages as GitHub markdown with KaTeX, emoji and coloured-text shortcodes: a run
name, a query text, a URL parameter or a line quoted from an upload could otherwise become a link,
a remote image (fetched by every viewer's browser), a formula or an icon. :func:`md` escapes every
ASCII punctuation character (CommonMark lets each be escaped) and folds line breaks. Bare URLs,
``www.`` names and e-mail addresses are turned into links after escapes are resolved, so a word
joiner (U+2060, invisible) follows a ``:`` before ``/`` and an ``@`` before a dotted domain, and
sits inside ``www.``: the text reads the same and never links, and a measure name such as ``RR@10``
keeps no hidden character (it copies as typed). Tables (``st.dataframe``) and ``st.text`` /
``st.code`` show text as written.
"""

from __future__ import annotations

import html
import re

from rankviz.errors import APP, RankvizError

_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")
_JOIN = "\u2060"
#: Where an autolink could start: a scheme's ``:`` before ``/``, and an ``@`` before a dotted domain
#: (an e-mail address). ``RR@10`` or ``rel=2: ...`` link nowhere and stay as typed (copy-paste
#: works).
_LINKABLE = re.compile(r":(?=/)|@(?=[\w-]+\.[\w-])")


def said(value: object) -> str:
    """``value`` as text; an error as the app says it (the way on named as the page's control,
    not the command line's flag)."""
    return value.said(APP) if isinstance(value, RankvizError) else str(value)


def md(value: object) -> str:
    """``value`` as text that markdown shows as written (an error as :func:`said` says it)."""
    text = " ".join(said(value).replace("\r", " ").split("\n"))
    text = re.sub(r"(?i)www\.", lambda m: m.group(0)[:3] + _JOIN + ".", text)
    text = _LINKABLE.sub(lambda m: m.group(0) + _JOIN, text)
    return _PUNCTUATION.sub(r"\\\1", text)


def message(template: str, *values: object, **named: object) -> str:
    """``template.format(...)`` with every value escaped (the template is the app's own
    markdown)."""
    return template.format(*(md(v) for v in values), **{k: md(v) for k, v in named.items()})


def highlighted_html(parts: list[tuple[str, bool]]) -> str:
    """A document's text as HTML: every part escaped (``html.escape``), the matching parts in
    ``<mark>``; the only markup is ours. (``<mark>`` sets its own dark text on a light background:
    readable in the dark theme too.)"""
    body = "".join(
        f"<mark>{html.escape(text)}</mark>" if hit else html.escape(text) for text, hit in parts
    )
    return f'<div style="white-space: pre-wrap; line-height: 1.5">{body}</div>'


def queries_text(counts) -> str:
    """How many queries a table of comparisons rests on: ``50 queries``, or where each pair keeps
    the queries both its runs answer (``missing=skip``), ``each pair's common queries (40 to
    50)``."""
    values = sorted({int(n) for n in counts})
    if len(values) == 1:
        return f"{values[0]:,} queries"
    return f"each pair's common queries ({values[0]:,} to {values[-1]:,})"


STOPWORDS = frozenset(
    "a an and are as at be by for from how in is it of on or that the this to was what when where "
    "which who why with"
    " does do did can about into than then there these those its their your you we our".split()
)


def query_terms(query: str) -> list[str]:
    """The words of a query worth finding in a document: lower-cased, without stopwords and single
    letters."""
    return list(
        dict.fromkeys(
            w for w in re.findall(r"\w+", query.lower()) if len(w) > 1 and w not in STOPWORDS
        )
    )


def highlighted(text: str, terms: list[str]) -> list[tuple[str, bool]]:
    """``text`` cut into (part, matches) pieces: a word matches when it starts with a query term
    (``flow`` finds ``flows`` and ``flowing``), case aside. Joined, the parts are the text."""
    if not terms or not text:
        return [(text, False)] if text else []
    pattern = re.compile(
        r"\b(?:" + "|".join(map(re.escape, sorted(terms, key=len, reverse=True))) + r")\w*",
        re.IGNORECASE,
    )
    parts, at = [], 0
    for found in pattern.finditer(text):
        if found.start() > at:
            parts.append((text[at : found.start()], False))
        parts.append((found.group(0), True))
        at = found.end()
    if at < len(text):
        parts.append((text[at:], False))
    return parts
