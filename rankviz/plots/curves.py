"""The interpolated precision-recall curve of many runs on one chart."""

from __future__ import annotations

from collections.abc import Mapping

import plotly.graph_objects as go

from rankviz.plots.style import layout, plain, run_colour


def precision_recall(precision, colours: Mapping[str, str] | None = None) -> go.Figure:
    """One line per run (``precision``: runs x recall levels, as
    :class:`~rankviz.analyses.precision_recall.PrecisionRecall` holds it), recall on x from 0 to 1,
    the mean interpolated precision on y."""
    fig = go.Figure(
        [
            go.Scatter(
                name=run,
                x=[float(level) for level in precision.columns],
                y=row.to_numpy(dtype=float),
                mode="lines+markers",
                line={"color": run_colour(colours, run, i), "width": 3},
                hovertemplate="recall %{x:.1f}<br>" + plain(run) + " %{y:.4f}<extra></extra>",
            )
            for i, (run, row) in enumerate(precision.iterrows())
        ]
    )
    fig.update_xaxes(range=[0, 1], dtick=0.1)
    fig.update_yaxes(range=[0, 1.02])
    return layout(
        fig, "Interpolated precision at each recall level", "recall", "interpolated precision"
    )
