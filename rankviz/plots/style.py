"""What every figure shares: inert text, one colour per run, a layout readable on a projector."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go


def plain(text: object) -> str:
    """Text for Plotly, which reads a few HTML tags and entities in labels: escaped so that run
    names, query texts and group names from users show as written and are never interpreted."""
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def plain_array(values):
    if values is None or isinstance(values, str):
        return values
    array = np.asarray(values, dtype=object)
    if not any(isinstance(v, str) for v in array.ravel()):
        return values
    return np.vectorize(lambda v: plain(v) if isinstance(v, str) else v, otypes=[object])(array)


#: One colour per run, the same on every figure: Paul Tol's colour-blind-safe "bright" scheme, then
#: his "muted" one, all of middle lightness, readable on the light and the dark theme alike.
RUN_PALETTE = (
    "#4477AA",
    "#EE6677",
    "#228833",
    "#CCBB44",
    "#66CCEE",
    "#AA3377",
    "#44AA99",
    "#DDCC77",
    "#CC6677",
    "#88CCEE",
    "#999933",
    "#BBBBBB",
)

# deltas: blue up, red down, grey equal (colour-blind safe)
GAIN, LOSS, EVEN = "#4477AA", "#EE6677", "#BBBBBB"


def run_colours(runs: Sequence[str]) -> dict[str, str]:
    """Each run's colour, by its place among all the runs on offer (not among those selected), so
    that a run keeps its colour when others are selected or left out."""
    return {run: RUN_PALETTE[i % len(RUN_PALETTE)] for i, run in enumerate(runs)}


def run_colour(colours: Mapping[str, str] | None, run: str, index: int) -> str:
    return (colours or {}).get(run) or RUN_PALETTE[index % len(RUN_PALETTE)]


def layout(fig: go.Figure, title: str, x: str, y: str) -> go.Figure:
    """Common layout, and the one place where user text in a figure is escaped (see :func:`plain`):
    titles, trace names, categorical axis values, custom hover data and subplot titles."""
    for trace in fig.data:
        if trace.name is not None:
            trace.name = plain(trace.name)
        for attribute in ("x", "y", "customdata"):
            if attribute in trace and getattr(trace, attribute) is not None:
                setattr(trace, attribute, plain_array(getattr(trace, attribute)))
    for annotation in fig.layout.annotations:
        annotation.text = plain(annotation.text)
    # no template of its own: the app's theme (light or dark) styles the background, grid and text
    fig.update_layout(
        title=plain(title), xaxis_title=plain(x), yaxis_title=plain(y), legend_title_text=""
    )
    return fig


#: Query groups (never runs): Tol's "light" scheme, distinct from the run colours.
GROUP_PALETTE = (
    "#77AADD",
    "#EE8866",
    "#EEDD88",
    "#FFAABB",
    "#99DDFF",
    "#44BB99",
    "#BBCC33",
    "#AAAA00",
    "#DDDDDD",
)


#: Measures drawn side by side (never runs nor groups): Tol's "vibrant" scheme, one hue each (the
#: theme's own colours come in light and dark pairs of one hue, which read as one measure twice).
MEASURE_PALETTE = ("#0077BB", "#EE7733", "#009988", "#EE3377", "#33BBEE", "#CC3311", "#BBBBBB")
#: and a marker each, for a reader who does not tell the colours apart
MEASURE_SYMBOLS = ("circle", "square", "diamond", "triangle-up", "x", "star", "cross")
VERDICT_COLOURS = {"better": "#2a9d8f", "worse": "#e76f51", "n.s.": "#6c757d"}
