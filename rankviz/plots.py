"""Plot builders: data in, Plotly figure out (no streamlit, no I/O), so tests can inspect them."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots


def plain(text: object) -> str:
    """Text for Plotly, which reads a few HTML tags and entities in labels: escaped so that run names,
    query texts and group names from users show as written and are never interpreted."""
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _plain_array(values):
    if values is None or isinstance(values, str):
        return values
    array = np.asarray(values, dtype=object)
    if not any(isinstance(v, str) for v in array.ravel()):
        return values
    return np.vectorize(lambda v: plain(v) if isinstance(v, str) else v, otypes=[object])(array)


def _layout(fig: go.Figure, title: str, x: str, y: str) -> go.Figure:
    """Common layout, and the one place where user text in a figure is escaped (see :func:`plain`):
    titles, trace names, categorical axis values, custom hover data and subplot titles."""
    for trace in fig.data:
        if trace.name is not None:
            trace.name = plain(trace.name)
        for attribute in ("x", "y", "customdata"):
            if attribute in trace and getattr(trace, attribute) is not None:
                setattr(trace, attribute, _plain_array(getattr(trace, attribute)))
    for annotation in fig.layout.annotations:
        annotation.text = plain(annotation.text)
    fig.update_layout(
        title=plain(title), xaxis_title=plain(x), yaxis_title=plain(y), template="plotly_white", legend_title_text=""
    )
    return fig


def means_with_ci(summaries: Mapping[str, pd.DataFrame]) -> go.Figure:
    """Grouped bars of each run's mean per measure with 95% confidence intervals."""
    fig = go.Figure()
    for measure, table in summaries.items():
        fig.add_bar(
            name=measure,
            x=list(table.index),
            y=table["mean"],
            error_y={
                "type": "data",
                "symmetric": False,
                "array": table["ci_high"] - table["mean"],
                "arrayminus": table["mean"] - table["ci_low"],
            },
            hovertemplate="run %{x}<br>" + measure + " %{y:.4f}<extra></extra>",
        )
    fig.update_layout(barmode="group")
    return _layout(fig, "Mean per run with 95% confidence intervals (t over queries)", "run", "mean")


GROUP_PALETTE = ("#264653", "#2a9d8f", "#e9c46a", "#f4a261", "#e76f51", "#8ab17d", "#6d597a", "#b56576", "#457b9d", "#a8dadc")


def delta_bars(
    frame: pd.DataFrame, query_text: Mapping[str, str], measure: str, baseline: str, run: str, *, groups: pd.Series | None = None
) -> go.Figure:
    """Per-query delta bars sorted by delta; hover shows the query id and text.

    Bars are green / red / grey by the sign of the delta, or, with ``groups`` (qid -> group), one
    colour per group with a legend.
    """
    text = np.asarray([query_text.get(q, "") for q in frame.index], dtype=object)
    position = np.arange(len(frame))
    hover = "query %{customdata[0]}<br>%{customdata[1]}<br>delta %{y:+.4f}<extra>%{fullData.name}</extra>"
    if groups is None:
        colours = np.where(frame["delta"] > 0, "#2a9d8f", np.where(frame["delta"] < 0, "#e76f51", "#adb5bd"))
        fig = go.Figure(
            go.Bar(
                x=position,
                y=frame["delta"],
                marker_color=colours,
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
            )
        fig.update_layout(barmode="overlay", bargap=0)
    fig.update_xaxes(showticklabels=False)
    return _layout(fig, f"{measure}: {run} minus {baseline}, per query (sorted)", "queries, sorted by delta", f"delta {measure}")


def baseline_scatter(frame: pd.DataFrame, query_text: Mapping[str, str], measure: str, baseline: str, run: str) -> go.Figure:
    """Baseline value against run value per query, with the diagonal."""
    text = [query_text.get(q, "") for q in frame.index]
    fig = go.Figure(
        go.Scatter(
            x=frame["baseline"],
            y=frame["run"],
            mode="markers",
            customdata=np.c_[
                frame.index.to_numpy(), text, np.full(len(frame), baseline, object), np.full(len(frame), run, object)
            ],
            hovertemplate="query %{customdata[0]}<br>%{customdata[1]}<br>%{customdata[2]} %{x:.4f}<br>%{customdata[3]} %{y:.4f}"
            "<extra></extra>",
        )
    )
    top = float(max(frame[["baseline", "run"]].max().max(), 1e-9))
    fig.add_shape(type="line", x0=0, y0=0, x1=top, y1=top, line={"dash": "dot", "color": "grey"})
    return _layout(fig, f"{measure} per query: {run} against {baseline}", baseline, run)


def _arrange(traces: Mapping[str, list], facet: bool) -> go.Figure:
    """Traces of every run in one figure (overlaid) or in one panel per run (faceted)."""
    if not facet:
        return go.Figure([t for run_traces in traces.values() for t in run_traces])
    fig = make_subplots(rows=max(len(traces), 1), cols=1, shared_xaxes=True, subplot_titles=list(traces), vertical_spacing=0.04)
    for row, run_traces in enumerate(traces.values(), start=1):
        for trace in run_traces:
            fig.add_trace(trace, row=row, col=1)
    fig.update_layout(height=max(450, 220 * len(traces)))
    return fig


def first_relevant_histogram(
    first_ranks: Mapping[str, pd.Series], depth: int, *, log_x: bool = False, facet: bool = False
) -> go.Figure:
    """Histogram of the rank of the first relevant document per run, with a 'not found' bin."""
    edges = np.unique(np.geomspace(1, depth + 1, 30).astype(int)) if log_x else np.arange(1, depth + 2)
    labels = [str(a) if b - a == 1 else f"{a}-{b - 1}" for a, b in zip(edges[:-1], edges[1:])] + ["not found"]
    traces = {}
    for run, ranks in first_ranks.items():
        counts, _ = np.histogram(ranks.dropna().to_numpy(), bins=edges)
        traces[run] = [
            go.Bar(
                name=run,
                x=labels,
                y=np.r_[counts, ranks.isna().sum()],
                hovertemplate="rank %{x}<br>%{y} queries<extra>%{fullData.name}</extra>",
            )
        ]
    fig = _arrange(traces, facet)
    fig.update_layout(barmode="group")
    return _layout(fig, "Rank of the first relevant document", "rank of the first relevant document", "queries")


def relevant_rank_histogram(
    ranks: Mapping[str, pd.DataFrame], depth: int, *, log_x: bool = False, facet: bool = False
) -> go.Figure:
    """Histogram of the ranks of all retrieved relevant documents, one trace per run and grade."""
    bins = {"start": 0, "end": np.log10(depth + 1) if log_x else depth + 1, "size": 0.1 if log_x else max(1, depth // 50)}
    traces = {
        run: [
            go.Histogram(
                name=f"{run} grade {grade}",
                x=np.log10(part["rank"]) if log_x else part["rank"],
                xbins=bins,
                opacity=0.6,
                hovertemplate="%{y} documents<extra>%{fullData.name}</extra>",
            )
            for grade, part in frame.groupby("grade")
        ]
        for run, frame in ranks.items()
    }
    fig = _arrange(traces, facet)
    fig.update_layout(barmode="overlay")
    return _layout(fig, "Ranks of all retrieved relevant documents, by grade", "log10(rank)" if log_x else "rank", "documents")


def hits_curves(curves: Mapping[str, pd.Series], *, log_x: bool = False, facet: bool = False) -> go.Figure:
    """Cumulative Hits@K for K = 1..depth per run."""
    traces = {
        run: [
            go.Scatter(
                name=run,
                x=curve.index,
                y=curve.to_numpy(),
                mode="lines",
                hovertemplate="K %{x}<br>Hits@K %{y:.3f}<extra>%{fullData.name}</extra>",
            )
        ]
        for run, curve in curves.items()
    }
    fig = _arrange(traces, facet)
    fig.update_xaxes(type="log" if log_x else "linear")
    return _layout(fig, "Hits@K: share of queries with a relevant document in the top K", "K", "Hits@K")


def intervals(means: pd.DataFrame, low: str, high: str, marks: dict[str, str], title: str, measure: str) -> go.Figure:
    """Per run, a line from ``means[low]`` to ``means[high]`` with the ``marks`` columns (column -> marker symbol) on it."""
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
    for run in runs:
        fig.add_shape(type="line", x0=means.at[run, low], x1=means.at[run, high], y0=run, y1=run, line={"color": "grey"})
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
    return _layout(fig, title, measure, "run")


def tie_intervals(means: pd.DataFrame, measure: str) -> go.Figure:
    """Per run, the interval from the pessimistic to the optimistic mean, with the other policies marked in it."""
    marks = {"trec_eval": "circle", "run": "square", "expected": "diamond", "random": "x"}
    title = f"{measure}: every tie order lies between the pessimistic and optimistic mean"
    return intervals(means, "pessimistic", "optimistic", marks, title, measure)


def unjudged_intervals(means: pd.DataFrame, measure: str, grade: int) -> go.Figure:
    """Per run, its value with unjudged documents not relevant and with those of its top K judged ``grade``."""
    title = f"{measure}: unjudged documents not relevant (circle) or judged {grade} (diamond)"
    return intervals(means, "low", "high", {"nonrelevant": "circle", "filled": "diamond"}, title, measure)


def judged_bars(judged: pd.Series, k: int, warning: float) -> go.Figure:
    """The share of each run's top K that the qrels judge, with the warning level."""
    fig = go.Figure(go.Bar(x=list(judged.index), y=judged.to_numpy(), name=f"judged@{k}",
                           hovertemplate="%{x}: %{y:.1%}<extra></extra>"))  # fmt: skip
    fig.add_hline(y=warning, line={"dash": "dot", "color": "grey"}, annotation_text=f"{warning:.0%}")
    fig.update_yaxes(range=[0, 1], tickformat=".0%")
    return _layout(fig, f"Share of each run's top {k} documents that the qrels judge", "run", f"judged in the top {k}")


VERDICT_COLOURS = {"better": "#2a9d8f", "worse": "#e76f51", "n.s.": "#6c757d"}


def forest(table: pd.DataFrame, measure: str, baseline: str) -> go.Figure:
    """Each run's mean difference from the baseline with its confidence interval (one row per run)."""
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
            hovertemplate="%{y}<br>delta %{x:+.4f}<br>adjusted p %{customdata[0]:.4g}<extra>%{fullData.name}</extra>",
        )
    fig.add_vline(x=0, line={"dash": "dot", "color": "grey"})
    fig.update_yaxes(categoryorder="array", categoryarray=list(table["run"])[::-1])
    fig.update_layout(height=max(300, 50 * len(table) + 150))
    return _layout(fig, f"{measure}: difference from {baseline} with confidence interval", f"delta {measure}", "run")


def pvalue_heatmap(pairs: pd.DataFrame, runs: list[str], measure: str, alpha: float) -> go.Figure:
    """Adjusted p-value of every pair of runs, symmetric; significant cells marked with *."""
    position = {run: i for i, run in enumerate(runs)}
    grid = np.full((len(runs), len(runs)), np.nan)
    for a, b, p in zip(pairs["baseline"], pairs["run"], pairs["p_adjusted"]):
        grid[position[a], position[b]] = grid[position[b], position[a]] = p
    text = [["" if np.isnan(p) else f"{p:.3g}" + (" *" if p < alpha else "") for p in row] for row in grid]
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
    return _layout(fig, f"{measure}: adjusted p-values of all pairs (* below alpha = {alpha})", "run", "run")


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
    return _layout(fig, title, "measure", "measure")


def asl_curves(asl: pd.DataFrame, alpha: float) -> go.Figure:
    """Achieved significance level curves (Sakai): each measure's sorted p-values over the run pairs."""
    fig = go.Figure()
    for measure, part in asl.groupby("measure", sort=False):
        fig.add_scatter(
            x=part["pair rank"],
            y=part["p"],
            mode="lines+markers",
            name=measure,
            hovertemplate="pair %{x}: p %{y:.4g}<extra>%{fullData.name}</extra>",
        )
    fig.add_hline(y=alpha, line={"dash": "dot", "color": "grey"}, annotation_text=f"alpha = {alpha}")
    return _layout(
        fig,
        "Achieved significance level of every pair of runs (lower and longer below alpha = more discriminative)",
        "run pairs, sorted by p",
        "adjusted p",
    )


def measure_scatter(x: pd.Series, y: pd.Series, run: str, query_text: Mapping[str, str]) -> go.Figure:
    """Per-query values of one run under two measures."""
    text = [query_text.get(q, "") for q in x.index]
    fig = go.Figure(
        go.Scatter(
            x=x,
            y=y,
            mode="markers",
            customdata=np.c_[x.index.to_numpy(), text],
            hovertemplate="query %{customdata[0]}<br>%{customdata[1]}<br>"
            + f"{x.name} %{{x:.4f}}<br>{y.name} %{{y:.4f}}<extra></extra>",
        )
    )
    return _layout(fig, f"{run}: {y.name} against {x.name} per query", str(x.name), str(y.name))


def group_bars(means: pd.DataFrame, measure: str) -> go.Figure:
    """Small multiples: one panel per group with each run's mean (``means`` is groups x [queries, runs...])."""
    runs = [c for c in means.columns if c != "queries"]
    groups = list(means.index)
    columns = min(4, max(len(groups), 1))
    rows = -(-len(groups) // columns)
    titles = [f"{g} ({int(means.at[g, 'queries'])} queries)" for g in groups]
    fig = make_subplots(rows=rows, cols=columns, subplot_titles=titles, shared_yaxes=True, vertical_spacing=0.12)
    for i, group in enumerate(groups):
        fig.add_bar(
            x=runs,
            y=[means.at[group, r] for r in runs],
            marker_color=[GROUP_PALETTE[j % len(GROUP_PALETTE)] for j in range(len(runs))],
            showlegend=False,
            name=str(group),
            hovertemplate="%{x}: %{y:.4f}<extra>%{fullData.name}</extra>",
            row=i // columns + 1,
            col=i % columns + 1,
        )
    fig.update_layout(height=max(350, 260 * rows))
    return _layout(fig, f"{measure} per group", "run", measure)
