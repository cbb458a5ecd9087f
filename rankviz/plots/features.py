"""A per-query value against one feature of the queries: the queries as points (a click selects
one), the least-squares trend and its confidence band."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from rankviz.plots.style import layout, plain


def feature_scatter(
    x: pd.Series, y: pd.Series, band: pd.DataFrame, query_text: Mapping[str, str], value: str
) -> go.Figure:
    """``y`` (qid -> value) against ``x`` (qid -> feature), with ``band`` (x, fit, low, high)."""
    held = x.reindex(y.index).notna()
    x, y = x.reindex(y.index)[held], y[held]
    text = [query_text.get(q, "") for q in y.index]
    fig = go.Figure(
        [
            go.Scatter(
                x=np.r_[band["x"], band["x"][::-1]],
                y=np.r_[band["high"], band["low"][::-1]],
                fill="toself",
                fillcolor="rgba(68, 119, 170, 0.2)",
                line={"width": 0},
                hoverinfo="skip",
                name="band",
            ),
            go.Scatter(x=band["x"], y=band["fit"], mode="lines", line={"width": 2}, name="trend"),
            go.Scatter(
                x=x,
                y=y,
                mode="markers",
                name="queries",
                customdata=np.c_[y.index.to_numpy(), text],
                hovertemplate="query %{customdata[0]}<br>%{customdata[1]}<br>"
                + f"{plain(str(x.name))} %{{x:.4g}}<br>{plain(value)} %{{y:.4f}}<extra></extra>",
            ),
        ]
    )
    return layout(fig, f"{value} against {x.name}", str(x.name), value)
