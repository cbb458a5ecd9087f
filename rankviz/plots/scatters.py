"""Per-query scatters: a run against its baseline, one run under two measures, a per-query delta
against a feature of the queries. Measures like RR@10 take a few values, so many queries fall on
one point: each point that others share is moved a little (:func:`spread`), the hover giving its
exact values, and the title saying how many were moved."""

from __future__ import annotations

import zlib
from collections.abc import Mapping

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from rankviz.plots.style import EVEN, GAIN, LOSS, layout, plain

#: how far a shared point moves, as a share of its axis's range (either way)
SPREAD = 0.015
#: a scatter's points are partly see-through, so that points still close show as darker
OPACITY = 0.7


def spread(x: np.ndarray, y: np.ndarray, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """The points, each one another point shares moved by up to :data:`SPREAD` of each axis's
    range, by an amount its key decides (the same query moves the same way on every rerun);
    and how many were moved."""
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    pairs = pd.DataFrame({"x": x, "y": y})
    shared = pairs.duplicated(keep=False).to_numpy() & np.isfinite(x) & np.isfinite(y)
    if not shared.any():
        return x, y, 0
    drawn = np.array([zlib.crc32(str(k).encode()) for k in keys[shared]], dtype=np.uint64)
    turns = (drawn % np.uint64(1 << 16)).astype(np.float64) / (1 << 16) * 2 * np.pi
    radius = ((drawn >> np.uint64(16)) % np.uint64(1 << 16)).astype(np.float64) / (1 << 16)
    moved_x, moved_y = x.copy(), y.copy()
    moved_x[shared] += np.cos(turns) * np.sqrt(radius) * SPREAD * _span(x)
    moved_y[shared] += np.sin(turns) * np.sqrt(radius) * SPREAD * _span(y)
    return moved_x, moved_y, int(shared.sum())


def _span(values: np.ndarray) -> float:
    finite = values[np.isfinite(values)]
    span = float(finite.max() - finite.min()) if len(finite) else 0.0
    return span or 1.0


def _moved(title: str, moved: int) -> str:
    return (
        f"{title}<br><sup>{moved} queries share a point with others: each is moved a little "
        "(the hover gives its values)</sup>"
        if moved
        else title
    )


def _queries(
    x: np.ndarray,
    y: np.ndarray,
    qids: np.ndarray,
    query_text: Mapping[str, str],
    labels: tuple[str, str],
    *,
    x_format: str = ".4f",
    marker: dict | None = None,
    name: str | None = None,
) -> tuple[go.Scatter, int]:
    """The queries as points (shared ones spread), each hovering its query, its text and its two
    exact values under ``labels``; and how many were moved."""
    drawn_x, drawn_y, moved = spread(x, y, qids)
    text = [query_text.get(q, "") for q in qids]
    x_label, y_label = (plain(label) for label in labels)
    points = go.Scatter(
        x=drawn_x,
        y=drawn_y,
        mode="markers",
        name=name,
        marker={"opacity": OPACITY, **(marker or {})},
        customdata=np.c_[qids, text, x, y],
        hovertemplate="query %{customdata[0]}<br>%{customdata[1]}<br>"
        + f"{x_label} %{{customdata[2]:{x_format}}}<br>{y_label} %{{customdata[3]:.4f}}"
        + "<extra></extra>",
    )
    return points, moved


def baseline_scatter(
    frame: pd.DataFrame, query_text: Mapping[str, str], measure: str, baseline: str, run: str
) -> go.Figure:
    """Baseline value against run value per query, with the diagonal."""
    points, moved = _queries(
        frame["baseline"].to_numpy(),
        frame["run"].to_numpy(),
        frame.index.to_numpy(),
        query_text,
        (baseline, run),
    )
    fig = go.Figure(points)
    top = float(max(frame[["baseline", "run"]].max().max(), 1e-9))
    fig.add_shape(type="line", x0=0, y0=0, x1=top, y1=top, line={"dash": "dot", "color": "grey"})
    fig = layout(fig, f"{measure} per query: {run} against {baseline}", baseline, run)
    fig.update_layout(title_text=_moved(fig.layout.title.text, moved))
    return fig


def measure_scatter(
    x: pd.Series, y: pd.Series, run: str, query_text: Mapping[str, str]
) -> go.Figure:
    """Per-query values of one run under two measures."""
    points, moved = _queries(
        x.to_numpy(), y.to_numpy(), x.index.to_numpy(), query_text, (str(x.name), str(y.name))
    )
    fig = layout(
        go.Figure(points), f"{run}: {y.name} against {x.name} per query", str(x.name), str(y.name)
    )
    fig.update_layout(title_text=_moved(fig.layout.title.text, moved))
    return fig


def feature_scatter(
    x: pd.Series, y: pd.Series, band: pd.DataFrame, query_text: Mapping[str, str], value: str
) -> go.Figure:
    """``y`` (qid -> a per-query delta) against ``x`` (qid -> feature), with ``band`` (x, fit,
    low, high): each query in the colour of its delta on the delta chart (a gain, a loss, even);
    the trend and its band in grey."""
    held = x.reindex(y.index).notna()
    x, y = x.reindex(y.index)[held], y[held]
    signs = np.sign(y.to_numpy())
    points, moved = _queries(
        x.to_numpy(),
        y.to_numpy(),
        y.index.to_numpy(),
        query_text,
        (str(x.name), value),
        x_format=".4g",
        marker={"color": np.where(signs > 0, GAIN, np.where(signs < 0, LOSS, EVEN))},
        name="queries",
    )
    fig = go.Figure(
        [
            go.Scatter(
                x=np.r_[band["x"], band["x"][::-1]],
                y=np.r_[band["high"], band["low"][::-1]],
                fill="toself",
                fillcolor="rgba(128, 128, 128, 0.2)",
                line={"width": 0},
                hoverinfo="skip",
                name="band",
            ),
            go.Scatter(
                x=band["x"],
                y=band["fit"],
                mode="lines",
                line={"width": 2, "color": "grey"},
                name="trend",
            ),
            points,
        ]
    )
    fig = layout(fig, f"{value} against {x.name}", str(x.name), value)
    fig.update_layout(title_text=_moved(fig.layout.title.text, moved))
    return fig
