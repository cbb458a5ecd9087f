"""A progress bar for work that counts what it has done (resamples, runs): shown from the first
count, gone when the work ends, so a quick answer shows none."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

import streamlit as st


@contextlib.contextmanager
def counted(total: int, what: str) -> Iterator[Callable[[int], None]]:
    """A callback told how many more of ``total`` are done, drawing "what: done of total"."""
    bar = None
    done = 0

    def advance(step: int) -> None:
        nonlocal bar, done
        done += step
        bar = bar or st.progress(0.0)
        bar.progress(min(done / max(total, 1), 1.0), text=f"{what}: {done:,} of {total:,}…")

    try:
        yield advance
    finally:
        if bar is not None:
            bar.empty()
