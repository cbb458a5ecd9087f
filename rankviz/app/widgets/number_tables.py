"""Tables of numbers drawn with Streamlit's own column formats instead of a pandas Styler: a Styler
is rendered to HTML on the server on every rerun (about 10 ms a table, more than the numbers of a
meeting's judgment cost), where a column format is applied by the browser."""

from __future__ import annotations

import pandas as pd
import streamlit as st

#: The headers of a sensitivity analysis's pairs in words (the frames keep the API's names, which
#: the exports use): whether the sign of a pair's delta differs between the variants, and whether
#: the worse run at its best reaches the better run at its worst.
PAIR_HEADERS = {
    "flips_between_policies": "sign differs between orders",
    "flips_between_ends": "sign differs between the ends",
    "can_flip": "can swap places",
}


def numbers(
    frame: pd.DataFrame,
    number_format: str = "%.4f",
    *,
    formats: dict[str, str] | None = None,
    where=st,
) -> None:
    """``frame`` with every number column in ``number_format`` (printf style), the columns named in
    ``formats`` in their own."""
    chosen = formats or {}
    config = {
        str(column): st.column_config.NumberColumn(format=chosen.get(column, number_format))
        for column in frame.columns
        if pd.api.types.is_numeric_dtype(frame[column])
    }
    where.dataframe(frame, width="stretch", column_config=config)
