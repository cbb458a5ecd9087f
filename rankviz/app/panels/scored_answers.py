"""The answers a score judges, side by side in the query view: what the meeting reads when two
systems' nugget or judge scores differ on a query (from an ``answer`` or ``text`` column of the
collection's scores)."""

from __future__ import annotations

import streamlit as st

from rankviz.app.widgets.text import md, message
from rankviz.study import Measure, Score


def answers_panel(measure: Measure, baseline: str, run: str, query: str, *, box=st) -> None:
    """Each run's answer to the query, as plain text (never HTML), when the score carries them."""
    if not isinstance(measure, Score):
        return
    answers = {name: measure.answer(name, query) for name in (baseline, run)}
    if not any(answers.values()):
        return
    box.markdown(message("**Answers** that {} judges", str(measure)))
    for column, (name, text) in zip(box.columns(2), answers.items(), strict=True):
        column.markdown(f"**{md(name)}**  \n" + (md(text) if text else "_no answer in the file_"))
