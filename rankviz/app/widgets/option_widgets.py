"""Widgets built from options: an :class:`~rankviz.settings.options.Option` becomes a selectbox, a
radio or a number input with its label, its values (and what they mean) and its help, its value read
from and written to the URL."""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
from collections.abc import Callable, Sequence
from typing import Any

import streamlit as st
from streamlit.runtime.state import get_session_state

from rankviz.errors import OptionError
from rankviz.settings.options import Option


def widget_key(name: str, *context: object) -> str:
    """A stable key for a widget whose default comes from the URL.

    Without a key, Streamlit derives a widget's identity from its arguments, so a default that
    follows the URL changes the identity after every change and the next change is lost. The key
    includes the options (``context``), so new options (another collection, other runs) start a
    fresh widget from the URL's value.
    """
    return f"{name}:{hashlib.sha1(repr(context).encode()).hexdigest()[:12]}"


def option_input(
    container,
    option: Option,
    value: Any,
    *,
    key: str,
    choices: Sequence | None = None,
    horizontal: bool | None = None,
    disabled: bool = False,
    label: str | None = None,
) -> Any:
    """The widget of ``option`` showing ``value``; ``choices`` narrows the option's values. A
    widget offers values as text: an option whose values are objects (a tie policy) shows their
    names and gives back the value it parses."""
    label = label or option.title
    if named(option):
        shown = [str(c) for c in (choices if choices is not None else option.choices)]
        picked = option_input(
            container,
            _as_text(option),
            str(value),
            key=key,
            choices=shown,
            horizontal=horizontal,
            disabled=disabled,
            label=label,
        )
        return option.parse(picked)
    if option.kind is bool:
        shown_value = False if held(key) else bool(value)
        return container.toggle(
            label, value=shown_value, key=key, help=option.help(), disabled=disabled
        )
    if option.choices or choices is not None:
        values = list(choices if choices is not None else option.choices)
        index = values.index(value) if value in values and not held(key) else 0
        meaning = dict(option.meanings)
        describe = (
            (lambda v: f"{v}: {meaning[v]}" if meaning.get(v) else str(v)) if meaning else str
        )
        if horizontal or (horizontal is None and len(values) <= 2):
            return container.radio(
                label,
                values,
                index=index,
                horizontal=True,
                key=key,
                help=option.help(),
                format_func=str,
                disabled=disabled,
            )
        return container.selectbox(
            label,
            values,
            index=index,
            key=key,
            help=option.help(),
            format_func=describe,
            disabled=disabled,
        )
    step = 1 if option.kind is int else None
    low = option.kind(option.low) if option.low is not None else None
    high = option.kind(min(option.high, 2**53 - 1)) if option.high is not None else None
    return container.number_input(
        label,
        min_value=low,
        max_value=high,
        value="min" if held(key) else value,
        step=step,
        key=key,
        help=option.help(),
        disabled=disabled,
    )


def held(key: str) -> bool:
    """Whether the widget's value was set through the session this run (by the link, through
    :meth:`~rankviz.app.widgets.url_state.UrlState.keyed`, or by an upload joining the runs): it is
    then drawn without a default of its own, which Streamlit would log as a value given twice. The
    same test Streamlit makes
    (:func:`streamlit.elements.lib.policies.check_session_state_rules`)."""
    return get_session_state().is_new_state_value(key)


def named(option: Option) -> bool:
    """Whether the option's values are objects known by their names (a tie policy)."""
    return option.kind not in (str, int, float, bool)


def _as_text(option: Option) -> Option:
    meanings = {str(value): meaning for value, meaning in option.meanings.items()}
    choices = tuple(map(str, option.choices))
    return dataclasses.replace(
        option, kind=str, choices=choices, meanings=meanings, default=str(option.default)
    )


def url_selectbox(
    ctx,
    container,
    label: str,
    options: list[str],
    param: str,
    page: str,
    *,
    format_func: Callable[[Any], str] = str,
    default: str | None = None,
) -> str:
    """A selectbox whose value lives in the URL as ``param`` (``default`` when it is an option,
    else the first option, until one is chosen), with a stable key."""
    value = ctx.url.choice(param, options, default if default in options else options[0])
    key = ctx.url.key(param, page, options, value=value)
    index = 0 if held(key) else options.index(value)
    return container.selectbox(label, options, index=index, key=key, format_func=format_func)


def url_option(
    url,
    container,
    option: Option,
    page: str,
    *,
    default: Any = None,
    param: str | None = None,
    context: Sequence = (),
    **kwargs,
) -> Any:
    """The widget of ``option`` on ``page``, its value in the URL as ``param`` (default: the
    option's name): read from the URL (``default`` when absent), and set back to it when the URL
    changes from outside (browser Back, a link)."""
    param = param or option.name
    value = url.option(option, default, key=param)
    choices = kwargs.get("choices")
    if choices is not None and value not in choices:
        # a valid value that this widget does not offer (ties=random on the frame)
        if url.raw(param) is not None:
            url.fallback(param, url.raw(param), choices[0])
        value = choices[0]
    shown = str(value) if named(option) else value  # the widget's own value, as it holds it
    return option_input(
        container, option, value, key=url.key(param, page, *context, value=shown), **kwargs
    )


def url_option_held(
    url, option: Option, page: str, *, default: Any = None, context: Sequence = ()
) -> Any:
    """The value the widget of :func:`url_option` holds in this run, before it is drawn: what the
    person just set in it (its state, not yet in the URL), else the URL's, else ``default``."""
    key = url.key(option.name, page, *context)
    given = [url.raw(option.name)]  # a value the option refuses: url_option's widget says so
    if key in st.session_state and option.name not in url.changed:
        given.insert(0, str(st.session_state[key]))
    for text in filter(None, given):
        with contextlib.suppress(OptionError):
            return option.parse(text)
    return option.default if default is None else default


def grade_style(grade: str, rel: int) -> str:
    """A grade cell's style ("unjudged" or the grade as text): colour-blind-safe backgrounds with
    the text colour set too, so the cell reads the same in the light and the dark theme."""
    if grade == "unjudged":
        return "background-color: #BBBBBB; color: #000000"
    value = int(grade)
    if value >= rel:
        return "background-color: #4477AA; color: #FFFFFF; font-weight: bold"
    return (
        "background-color: #EE6677; color: #000000"
        if value <= 0
        else ("background-color: #DDCC77; color: #000000")
    )
