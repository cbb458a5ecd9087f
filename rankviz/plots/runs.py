"""Figures of runs and queries: means with intervals, deltas, rank histograms, per-group means."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from rankviz.plots.style import EVEN, GAIN, GROUP_PALETTE, LOSS, layout, plain, run_colour


def means_with_ci(
    summaries: Mapping[str, pd.DataFrame],
    colours: Mapping[str, str] | None = None,
    chance: pd.DataFrame | None = None,
) -> go.Figure:
    """Per measure, each run's mean as a bar (its colour) with its 95% confidence interval; with
    ``chance`` (runs x measures), each run's chance level marked on its bar."""
    measures = list(summaries)
    runs = list(next(iter(summaries.values())).index) if summaries else []
    # one figure from every trace at once: add_bar and add_scatter check the whole figure again
    # each (50 ms for six runs, on every rerun of the Overview)
    columns = {
        column: pd.DataFrame({m: summaries[m][column] for m in measures}).reindex(runs)
        for column in ("mean", "ci_low", "ci_high")
    }
    traces: list[dict] = []
    for i, run in enumerate(runs):
        mean = columns["mean"].loc[run].to_numpy(dtype=float)
        traces.append(
            {
                "type": "bar",
                "name": run,
                "x": measures,
                "y": mean,
                "marker": {"color": run_colour(colours, run, i)},
                "offsetgroup": run,
                "error_y": {
                    "type": "data",
                    "symmetric": False,
                    "array": columns["ci_high"].loc[run].to_numpy(dtype=float) - mean,
                    "arrayminus": mean - columns["ci_low"].loc[run].to_numpy(dtype=float),
                },
                "hovertemplate": "%{x}<br>" + plain(run) + " %{y:.4f}<extra></extra>",
            }
        )
        if chance is not None and run in chance.index:
            traces.append(
                {
                    "type": "scatter",
                    "name": "chance level (random order)",
                    "x": measures,
                    # a measure without a closed form has no chance level: no mark
                    "y": [chance.at[run, m] if m in chance.columns else None for m in measures],
                    "mode": "markers",
                    "offsetgroup": run,
                    "marker": {
                        "symbol": "line-ew",
                        "size": 18,
                        "line": {"width": 3, "color": "#888888"},
                    },
                    "showlegend": i == 0,
                    "legendgroup": "chance",
                    "hovertemplate": "%{x}<br>"
                    + plain(run)
                    + ": chance level %{y:.4f}<extra></extra>",
                }
            )
    fig = go.Figure(data=traces, layout={"barmode": "group", "scattermode": "group"})
    return layout(
        fig, "Mean per run with 95% confidence intervals (t over queries)", "measure", "mean"
    )


def delta_bars(
    frame: pd.DataFrame,
    query_text: Mapping[str, str],
    measure: str,
    baseline: str,
    run: str,
    *,
    groups: pd.Series | None = None,
) -> go.Figure:
    """Per-query delta bars sorted by delta; hover shows the query id and text.

    Bars are green / red / grey by the sign of the delta, or, with ``groups`` (qid -> group), one
    colour per group with a legend.
    """
    text = np.asarray([query_text.get(q, "") for q in frame.index], dtype=object)
    position = np.arange(len(frame))
    hover = (
        "query %{customdata[0]}<br>%{customdata[1]}<br>delta "
        "%{y:+.4f}<extra>%{fullData.name}</extra>"
    )
    if groups is None:
        # the sign on a three-colour scale: a colour string per bar costs Plotly a check each
        # (a quarter of a second for 7,000 queries)
        fig = go.Figure(
            go.Bar(
                x=position,
                y=frame["delta"],
                marker={
                    "color": np.sign(frame["delta"].to_numpy()),
                    "colorscale": [[0.0, LOSS], [0.5, EVEN], [1.0, GAIN]],
                    "cmin": -1,
                    "cmax": 1,
                },
                customdata=np.c_[frame.index.to_numpy(), text],
                name="delta",
                hovertemplate=hover,
            )
        )
    else:
        member = groups.reindex(frame.index).to_numpy()
        fig = go.Figure()
        for i, group in enumerate(sorted(set(member))):
            pick = member == group
            fig.add_bar(
                x=position[pick],
                y=frame["delta"].to_numpy()[pick],
                name=str(group),
                marker_color=GROUP_PALETTE[i % len(GROUP_PALETTE)],
                customdata=np.c_[frame.index.to_numpy()[pick], text[pick]],
                hovertemplate=hover,
                width=0.9,  # one query wide: a group's bars never widen into their neighbours
            )
        fig.update_layout(barmode="overlay")
    fig.update_xaxes(showticklabels=False)
    return layout(
        fig,
        f"{measure}: {run} minus {baseline}, per query (sorted)",
        "queries, sorted by delta",
        f"delta {measure}",
    )


def rank_bins(depth: int, *, log: bool) -> np.ndarray:
    """Bin edges over ranks 1..depth: equal widths (at most 25 bins), or with ``log`` the steps a
    reader thinks in (1, 2, 3, 4, 5, 6-10, 11-20, 21-50, 51-100, 101-200, 201-500, ...)."""
    if not log:
        width = max(1, -(-depth // 25))
        return np.r_[np.arange(1, depth + 1, width), depth + 1]
    edges = [1, 2, 3, 4, 5, 6]
    while edges[-1] <= depth:
        base = 10 ** int(np.floor(np.log10(edges[-1] - 1)))
        # 6 -> 11 -> 21 -> 51 -> 101 ...
        edges.append({1: 2, 2: 5, 5: 10}[(edges[-1] - 1) // base] * base + 1)
    return np.array([e for e in edges if e <= depth] + [depth + 1])


def _bin_labels(edges: np.ndarray) -> list[str]:
    return [str(a) if b - a == 1 else f"{a}-{b - 1}" for a, b in zip(edges[:-1], edges[1:])]


def _per_rank(counts: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """A bin's count over the ranks it spans: bars of bins 1 and 6-10 wide compare as densities
    (a bar of 5 ranks drawn as tall as its count would look five times as likely)."""
    return counts / np.diff(edges)


#: what the histograms' heights are, said on their axis
PER_RANK = "a rank (a bin's mean over its ranks)"


def _arrange(traces: Mapping[str, list], facet: bool) -> go.Figure:
    """Traces of every run in one figure (side by side) or in one panel per run (faceted)."""
    if not facet:
        return go.Figure([t for run_traces in traces.values() for t in run_traces])
    fig = make_subplots(
        rows=max(len(traces), 1),
        cols=1,
        shared_xaxes=True,
        subplot_titles=[plain(t) for t in traces],
        vertical_spacing=min(0.08, 0.5 / max(len(traces), 1)),
    )
    for row, run_traces in enumerate(traces.values(), start=1):
        for trace in run_traces:
            fig.add_trace(trace, row=row, col=1)
    fig.update_layout(height=max(450, 200 * len(traces)), showlegend=False)
    return fig


def first_relevant_histogram(
    first_ranks: Mapping[str, pd.Series],
    depth: int,
    *,
    log_x: bool = False,
    facet: bool = False,
    colours: Mapping[str, str] | None = None,
) -> go.Figure:
    """How many queries find their first relevant document at each rank, per run: each bin's
    queries a rank it spans (the count in the hover); the queries with none in the title."""
    edges = rank_bins(depth, log=log_x)
    labels = _bin_labels(edges)
    traces, missed = {}, []
    for i, (run, ranks) in enumerate(first_ranks.items()):
        counts, _ = np.histogram(ranks.dropna().to_numpy(), bins=edges)
        missed.append(f"{run} {int(ranks.isna().sum())}")
        traces[run] = [
            go.Bar(
                name=run,
                x=labels,
                y=_per_rank(counts, edges),
                customdata=counts,
                marker_color=run_colour(colours, run, i),
                hovertemplate="rank %{x}<br>%{customdata} queries (%{y:.3g} a rank)"
                "<extra>%{fullData.name}</extra>",
            )
        ]
    fig = _arrange(traces, facet)
    fig.update_layout(barmode="group")
    fig.update_xaxes(type="category")
    return layout(
        fig,
        f"Rank of the first relevant document (none retrieved: {', '.join(missed)})",
        "rank of the first relevant document",
        f"queries {PER_RANK}",
    )


def relevant_rank_histogram(
    ranks: Mapping[str, pd.DataFrame],
    depth: int,
    *,
    log_x: bool = False,
    facet: bool = False,
    colours: Mapping[str, str] | None = None,
) -> go.Figure:
    """Where the retrieved relevant documents sit: one panel per grade, one bar per run and rank bin
    (with ``facet``, one panel per run and one bar per grade, shaded by grade)."""
    edges = rank_bins(depth, log=log_x)
    labels = _bin_labels(edges)
    grades = sorted({int(g) for frame in ranks.values() for g in frame["grade"]})
    runs = list(ranks)

    def counts(frame: pd.DataFrame, grade: int) -> np.ndarray:
        return np.histogram(frame.loc[frame["grade"] == grade, "rank"].to_numpy(), bins=edges)[0]

    hover = "rank %{x}<br>%{customdata} documents (%{y:.3g} a rank)<extra>"

    if facet:
        traces = {
            run: [
                go.Bar(
                    name=f"grade {g}",
                    x=labels,
                    y=_per_rank(counts(frame, g), edges),
                    customdata=counts(frame, g),
                    marker_color=run_colour(colours, run, runs.index(run)),
                    marker_opacity=0.35 + 0.65 * (j + 1) / len(grades),
                    legendgroup=f"grade {g}",
                    hovertemplate=hover + plain(run) + " %{fullData.name}</extra>",
                )
                for j, g in enumerate(grades)
            ]
            for run, frame in ranks.items()
        }
        fig = _arrange(traces, True)
    else:
        panels = max(len(grades), 1)
        fig = make_subplots(
            rows=panels,
            cols=1,
            shared_xaxes=True,
            subplot_titles=[f"grade {g}" for g in grades],
            vertical_spacing=min(0.08, 0.5 / panels),
        )
        for row, grade in enumerate(grades, start=1):
            for i, (run, frame) in enumerate(ranks.items()):
                fig.add_trace(
                    go.Bar(
                        name=run,
                        x=labels,
                        y=_per_rank(counts(frame, grade), edges),
                        customdata=counts(frame, grade),
                        marker_color=run_colour(colours, run, i),
                        legendgroup=run,
                        showlegend=row == 1,
                        hovertemplate=hover + "%{fullData.name}</extra>",
                    ),
                    row=row,
                    col=1,
                )
        fig.update_layout(height=max(450, 230 * panels))
    fig.update_layout(barmode="group")
    fig.update_xaxes(type="category")
    return layout(
        fig, "Ranks of the retrieved relevant documents, by grade", "rank", f"documents {PER_RANK}"
    )


def hits_curves(
    curves: Mapping[str, pd.Series],
    *,
    log_x: bool = False,
    facet: bool = False,
    colours: Mapping[str, str] | None = None,
) -> go.Figure:
    """Cumulative Hits@K for K = 1..depth per run (a log axis is labelled in ranks: 1, 10, 100)."""
    traces = {
        run: [
            go.Scatter(
                name=run,
                x=curve.index,
                y=curve.to_numpy(),
                mode="lines",
                line={"color": run_colour(colours, run, i), "width": 3},
                hovertemplate="K %{x}<br>Hits@K %{y:.3f}<extra>%{fullData.name}</extra>",
            )
        ]
        for i, (run, curve) in enumerate(curves.items())
    }
    fig = _arrange(traces, facet)
    fig.update_xaxes(type="log" if log_x else "linear", **({"dtick": 1} if log_x else {}))
    return layout(
        fig, "Hits@K: share of queries with a relevant document in the top K", "K", "Hits@K"
    )


def group_bars(
    means: pd.DataFrame, measure: str, colours: Mapping[str, str] | None = None
) -> go.Figure:
    """Small multiples: one panel per group with each run's mean (``means`` is groups x [queries,
    runs...])."""
    runs = [c for c in means.columns if c != "queries"]
    groups = list(means.index)
    columns = min(4, max(len(groups), 1))
    rows = -(-len(groups) // columns)
    titles = [f"{g} ({int(means.at[g, 'queries'])} queries)" for g in groups]
    fig = make_subplots(
        rows=rows, cols=columns, subplot_titles=titles, shared_yaxes=True, vertical_spacing=0.12
    )
    for i, group in enumerate(groups):
        fig.add_bar(
            x=runs,
            y=[means.at[group, r] for r in runs],
            marker_color=[run_colour(colours, run, j) for j, run in enumerate(runs)],
            showlegend=False,
            name=str(group),
            hovertemplate="%{x}: %{y:.4f}<extra>%{fullData.name}</extra>",
            row=i // columns + 1,
            col=i % columns + 1,
        )
    fig.update_layout(height=max(350, 260 * rows))
    return layout(fig, f"{measure} per group", "run", measure)
