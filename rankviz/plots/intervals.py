"""Figures of how far a number can move and how sure it is: tie and unjudged intervals, forest
plots, p-value and agreement heatmaps, achieved-significance curves."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from rankviz.plots.style import (
    MEASURE_PALETTE,
    MEASURE_SYMBOLS,
    VERDICT_COLOURS,
    layout,
    plain,
    run_colour,
)
from rankviz.settings.tie_policy import POLICIES


def intervals(
    means: pd.DataFrame,
    low: str,
    high: str,
    marks: dict[str, str],
    title: str,
    measure: str,
    colours: Mapping[str, str] | None = None,
) -> go.Figure:
    """Per run, a line from ``means[low]`` to ``means[high]`` (the run's colour) with the ``marks``
    columns (column -> marker symbol) on it."""
    runs = list(means.index)
    fig = go.Figure(
        go.Scatter(
            x=np.r_[means[low], means[high]],
            y=runs + runs,
            mode="markers",
            marker={"symbol": "line-ns-open", "size": 14, "color": "grey"},
            name=f"{low} / {high}",
            hovertemplate="%{y}: %{x:.4f}<extra>bound</extra>",
        )
    )
    for i, run in enumerate(runs):
        fig.add_shape(
            type="line",
            x0=means.at[run, low],
            x1=means.at[run, high],
            y0=plain(run),
            y1=plain(run),
            line={"color": run_colour(colours, run, i), "width": 4},
        )
    for column, symbol in marks.items():
        if column in means:
            fig.add_scatter(
                x=means[column],
                y=runs,
                mode="markers",
                name=column,
                marker={"symbol": symbol, "size": 11},
                hovertemplate="%{y}: %{x:.4f}<extra>%{fullData.name}</extra>",
            )
    fig.update_layout(height=max(300, 60 * len(runs) + 150))
    return layout(fig, title, measure, "run")


def tie_intervals(
    means: pd.DataFrame, measure: str, colours: Mapping[str, str] | None = None
) -> go.Figure:
    """Per run, the interval from the pessimistic to the optimistic mean, with the other policies
    marked in it."""
    marks = {rule.name: rule.marker for rule in POLICIES.values() if rule.by_grade is None}
    title = f"{measure}: every tie order lies between the pessimistic and optimistic mean"
    return intervals(means, "pessimistic", "optimistic", marks, title, measure, colours)


def unjudged_intervals(
    means: pd.DataFrame, measure: str, grade: int, colours: Mapping[str, str] | None = None
) -> go.Figure:
    """Per run, its value with unjudged documents not relevant and with those of its top K judged
    ``grade``."""
    title = f"{measure}: unjudged documents not relevant (circle) or judged {grade} (diamond)"
    return intervals(
        means,
        "low",
        "high",
        {"nonrelevant": "circle", "filled": "diamond"},
        title,
        measure,
        colours,
    )


def judged_bars(
    judged: pd.Series, k: int, warning: float, colours: Mapping[str, str] | None = None
) -> go.Figure:
    """The share of each run's top K that the qrels judge, with the warning level."""
    fig = go.Figure(
        go.Bar(
            x=list(judged.index),
            y=judged.to_numpy(),
            name=f"judged@{k}",
            marker_color=[run_colour(colours, run, i) for i, run in enumerate(judged.index)],
            hovertemplate="%{x}: %{y:.1%}<extra></extra>",
        )
    )
    fig.add_hline(
        y=warning, line={"dash": "dot", "color": "grey"}, annotation_text=f"{warning:.0%}"
    )
    fig.update_yaxes(range=[0, 1], tickformat=".0%")
    return layout(
        fig,
        f"Share of each run's top {k} documents that the qrels judge",
        "run",
        f"judged in the top {k}",
    )


def forest(table: pd.DataFrame, measure: str, baseline: str) -> go.Figure:
    """Each run's mean difference from the baseline with its confidence interval (one row per
    run)."""
    verdicts = table["verdict"] if "verdict" in table else pd.Series("n.s.", index=table.index)
    fig = go.Figure()
    for verdict, colour in VERDICT_COLOURS.items():
        part = table[verdicts == verdict]
        if part.empty:
            continue
        fig.add_scatter(
            x=part["delta"],
            y=part["run"],
            mode="markers",
            name=verdict,
            marker={"color": colour, "size": 10},
            error_x={
                "type": "data",
                "symmetric": False,
                "array": part["ci_high"] - part["delta"],
                "arrayminus": part["delta"] - part["ci_low"],
            },
            customdata=np.c_[part["p_adjusted"]],
            hovertemplate="%{y}<br>delta %{x:+.4f}<br>adjusted p "
            "%{customdata[0]:.4g}<extra>%{fullData.name}</extra>",
        )
    fig.add_vline(x=0, line={"dash": "dot", "color": "grey"})
    fig.update_yaxes(categoryorder="array", categoryarray=list(table["run"])[::-1])
    fig.update_layout(height=max(300, 50 * len(table) + 150))
    return layout(
        fig,
        f"{measure}: difference from {baseline} with confidence interval",
        f"delta {measure}",
        "run",
    )


def collections_forest(
    rows: pd.DataFrame, pooled: Mapping[str, float], run: str, measure: str, baseline: str
) -> go.Figure:
    """A meta-analysis's forest plot: each collection's delta of ``run`` against ``baseline`` with
    its interval (the marker's area by its random-effects weight), and the pooled delta as a diamond
    below."""
    weights = 1 / (rows["variance"].to_numpy() + pooled["tau2"])
    sizes = 8 + 22 * np.sqrt(weights / weights.max())
    names = [*rows["collection"], "pooled"]
    fig = go.Figure()
    fig.add_scatter(
        x=rows["delta"],
        y=list(rows["collection"]),
        mode="markers",
        name="collection",
        marker={"symbol": "square", "size": sizes, "color": "#4477AA"},
        error_x={
            "type": "data",
            "symmetric": False,
            "array": rows["ci_high"] - rows["delta"],
            "arrayminus": rows["delta"] - rows["ci_low"],
        },
        customdata=np.c_[rows["n"], 100 * weights / weights.sum()],
        hovertemplate="%{y}<br>delta %{x:+.4f}<br>%{customdata[0]} queries, weight "
        "%{customdata[1]:.1f}%<extra></extra>",
    )
    fig.add_scatter(
        x=[pooled["delta"]],
        y=["pooled"],
        mode="markers",
        name=f"pooled (tau2 {pooled['tau2']:.2g}, I2 {pooled['i2']:.0%})",
        marker={"symbol": "diamond-wide", "size": 22, "color": "#EE6677"},
        error_x={
            "type": "data",
            "symmetric": False,
            "array": [pooled["ci_high"] - pooled["delta"]],
            "arrayminus": [pooled["delta"] - pooled["ci_low"]],
        },
        hovertemplate="pooled<br>delta %{x:+.4f}<extra></extra>",
    )
    fig.add_vline(x=0, line={"dash": "dot", "color": "grey"})
    fig.update_yaxes(categoryorder="array", categoryarray=names[::-1])
    fig.update_layout(height=max(300, 50 * len(names) + 150))
    return layout(
        fig,
        f"{measure} delta per collection and pooled<br><sup>{run} against {baseline}</sup>",
        f"delta {measure}",
        "collection",
    )


def pvalue_heatmap(pairs: pd.DataFrame, runs: list[str], measure: str, alpha: float) -> go.Figure:
    """Adjusted p-value of every pair of runs, symmetric; significant cells marked with *."""
    position = {run: i for i, run in enumerate(runs)}
    grid = np.full((len(runs), len(runs)), np.nan)
    for a, b, p in zip(pairs["baseline"], pairs["run"], pairs["p_adjusted"]):
        grid[position[a], position[b]] = grid[position[b], position[a]] = p
    text = [
        ["" if np.isnan(p) else f"{p:.3g}" + (" *" if p < alpha else "") for p in row]
        for row in grid
    ]
    fig = go.Figure(
        go.Heatmap(
            z=grid,
            x=runs,
            y=runs,
            text=text,
            texttemplate="%{text}",
            colorscale="Blues_r",
            zmin=0,
            zmax=1,
            colorbar={"title": "adjusted p"},
            hovertemplate="%{y} vs %{x}<br>adjusted p %{z:.4g}<extra></extra>",
        )
    )
    fig.update_yaxes(autorange="reversed")
    fig.update_layout(height=max(350, 45 * len(runs) + 150))
    return layout(
        fig, f"{measure}: adjusted p-values of all pairs (* below alpha = {alpha})", "run", "run"
    )


def correlation_heatmap(frame: pd.DataFrame, title: str) -> go.Figure:
    """A measures x measures correlation matrix with its values written in the cells."""
    fig = go.Figure(
        go.Heatmap(
            z=frame.to_numpy(),
            x=list(frame.columns),
            y=list(frame.index),
            text=[[f"{v:.2f}" for v in row] for row in frame.to_numpy()],
            texttemplate="%{text}",
            colorscale="RdBu",
            zmin=-1,
            zmax=1,
            hovertemplate="%{y} vs %{x}: %{z:.3f}<extra></extra>",
        )
    )
    fig.update_yaxes(autorange="reversed")
    fig.update_layout(height=max(350, 45 * len(frame) + 150))
    return layout(fig, title, "measure", "measure")


def confusion_heatmap(confusion: pd.DataFrame, name_a: str, name_b: str) -> go.Figure:
    """Grades of A (rows) against grades of B (columns): the count of pairs in each cell, the
    diagonal where they agree."""
    counts = confusion.to_numpy()
    fig = go.Figure(
        go.Heatmap(
            z=counts,
            x=[str(c) for c in confusion.columns],
            y=[str(r) for r in confusion.index],
            text=[[f"{v:,}" for v in row] for row in counts],
            texttemplate="%{text}",
            colorscale="Blues",
            # no user text in a template
            hovertemplate="grade %{y} (A), grade %{x} (B): %{z:,} pairs<extra></extra>",
        )
    )
    fig.update_xaxes(type="category")
    fig.update_yaxes(type="category", autorange="reversed")
    fig.update_layout(height=max(320, 60 * len(confusion) + 150))
    return layout(
        fig,
        f"Grades of the pairs both judge: {name_a} down, {name_b} across",
        f"grade ({name_b})",
        f"grade ({name_a})",
    )


def asl_curves(asl: pd.DataFrame, alpha: float) -> go.Figure:
    """Achieved significance level curves (Sakai): each measure's sorted p-values over the run
    pairs."""
    fig = go.Figure()
    for i, (measure, part) in enumerate(asl.groupby("measure", sort=False)):
        fig.add_scatter(
            x=part["pair rank"],
            y=part["p"],
            mode="lines+markers",
            line={"color": MEASURE_PALETTE[i % len(MEASURE_PALETTE)]},
            marker={"symbol": MEASURE_SYMBOLS[i % len(MEASURE_SYMBOLS)], "size": 8},
            name=measure,
            hovertemplate="pair %{x}: p %{y:.4g}<extra>%{fullData.name}</extra>",
        )
    fig.add_hline(
        y=alpha, line={"dash": "dot", "color": "grey"}, annotation_text=f"alpha = {alpha}"
    )
    return layout(
        fig,
        "Achieved significance level of every pair of runs (lower and longer below alpha = more "
        "discriminative)",
        "run pairs, sorted by p",
        "adjusted p",
    )
