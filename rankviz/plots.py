"""Plot builders: data in, Plotly figure out (no streamlit, no I/O), so tests can inspect them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

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


#: One colour per run, the same on every figure: Paul Tol's colour-blind-safe "bright" scheme, then
#: his "muted" one, all of middle lightness, readable on the light and the dark theme alike.
RUN_PALETTE = ("#4477AA", "#EE6677", "#228833", "#CCBB44", "#66CCEE", "#AA3377", "#44AA99", "#DDCC77", "#CC6677", "#88CCEE",
               "#999933", "#BBBBBB")  # fmt: skip
GAIN, LOSS, EVEN = "#4477AA", "#EE6677", "#BBBBBB"  # deltas: blue up, red down, grey equal (colour-blind safe)


def run_colours(runs: Sequence[str]) -> dict[str, str]:
    """Each run's colour, by its place among all the runs on offer (not among those selected), so
    that a run keeps its colour when others are selected or left out."""
    return {run: RUN_PALETTE[i % len(RUN_PALETTE)] for i, run in enumerate(runs)}


def _colour(colours: Mapping[str, str] | None, run: str, index: int) -> str:
    return (colours or {}).get(run) or RUN_PALETTE[index % len(RUN_PALETTE)]


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
    # no template of its own: the app's theme (light or dark) styles the background, grid and text
    fig.update_layout(title=plain(title), xaxis_title=plain(x), yaxis_title=plain(y), legend_title_text="")
    return fig


def means_with_ci(
    summaries: Mapping[str, pd.DataFrame], colours: Mapping[str, str] | None = None, chance: pd.DataFrame | None = None
) -> go.Figure:
    """Per measure, each run's mean as a bar (its colour) with its 95% confidence interval; with
    ``chance`` (runs x measures), each run's chance level marked on its bar."""
    measures = list(summaries)
    runs = list(next(iter(summaries.values())).index) if summaries else []
    fig = go.Figure()
    for i, run in enumerate(runs):
        mean = np.array([summaries[m].at[run, "mean"] for m in measures])
        fig.add_bar(
            name=run,
            x=measures,
            y=mean,
            marker_color=_colour(colours, run, i),
            offsetgroup=run,
            error_y={
                "type": "data",
                "symmetric": False,
                "array": np.array([summaries[m].at[run, "ci_high"] for m in measures]) - mean,
                "arrayminus": mean - np.array([summaries[m].at[run, "ci_low"] for m in measures]),
            },
            hovertemplate="%{x}<br>" + plain(run) + " %{y:.4f}<extra></extra>",
        )
        if chance is not None and run in chance.index:
            fig.add_scatter(
                name="chance level (random order)",
                x=measures,
                y=[chance.at[run, m] for m in measures],
                mode="markers",
                offsetgroup=run,
                marker={"symbol": "line-ew", "size": 18, "line": {"width": 3, "color": "#888888"}},
                showlegend=i == 0,
                legendgroup="chance",
                hovertemplate="%{x}<br>" + plain(run) + ": chance level %{y:.4f}<extra></extra>",
            )
    fig.update_layout(barmode="group", scattermode="group")
    return _layout(fig, "Mean per run with 95% confidence intervals (t over queries)", "measure", "mean")


#: Query groups (never runs): Tol's "light" scheme, distinct from the run colours.
GROUP_PALETTE = ("#77AADD", "#EE8866", "#EEDD88", "#FFAABB", "#99DDFF", "#44BB99", "#BBCC33", "#AAAA00", "#DDDDDD")


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
        colours = np.where(frame["delta"] > 0, GAIN, np.where(frame["delta"] < 0, LOSS, EVEN))
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
                width=0.9,  # one query wide: a group's bars never widen into their neighbours
            )
        fig.update_layout(barmode="overlay")
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


def rank_bins(depth: int, *, log: bool) -> np.ndarray:
    """Bin edges over ranks 1..depth: equal widths (at most 25 bins), or with ``log`` the steps a
    reader thinks in (1, 2, 3, 4, 5, 6-10, 11-20, 21-50, 51-100, 101-200, 201-500, ...)."""
    if not log:
        width = max(1, -(-depth // 25))
        return np.r_[np.arange(1, depth + 1, width), depth + 1]
    edges = [1, 2, 3, 4, 5, 6]
    while edges[-1] <= depth:
        base = 10 ** int(np.floor(np.log10(edges[-1] - 1)))
        edges.append({1: 2, 2: 5, 5: 10}[(edges[-1] - 1) // base] * base + 1)  # 6 -> 11 -> 21 -> 51 -> 101 ...
    return np.array([e for e in edges if e <= depth] + [depth + 1])


def _bin_labels(edges: np.ndarray) -> list[str]:
    return [str(a) if b - a == 1 else f"{a}-{b - 1}" for a, b in zip(edges[:-1], edges[1:])]


def _arrange(traces: Mapping[str, list], facet: bool) -> go.Figure:
    """Traces of every run in one figure (side by side) or in one panel per run (faceted)."""
    if not facet:
        return go.Figure([t for run_traces in traces.values() for t in run_traces])
    fig = make_subplots(rows=max(len(traces), 1), cols=1, shared_xaxes=True, subplot_titles=[plain(t) for t in traces],
                        vertical_spacing=min(0.08, 0.5 / max(len(traces), 1)))  # fmt: skip
    for row, run_traces in enumerate(traces.values(), start=1):
        for trace in run_traces:
            fig.add_trace(trace, row=row, col=1)
    fig.update_layout(height=max(450, 200 * len(traces)), showlegend=False)
    return fig


def first_relevant_histogram(
    first_ranks: Mapping[str, pd.Series], depth: int, *, log_x: bool = False, facet: bool = False,
    colours: Mapping[str, str] | None = None,
) -> go.Figure:  # fmt: skip
    """How many queries find their first relevant document at each rank (bins), per run, with a
    'not found' bin."""
    edges = rank_bins(depth, log=log_x)
    labels = _bin_labels(edges) + ["not found"]
    traces = {}
    for i, (run, ranks) in enumerate(first_ranks.items()):
        counts, _ = np.histogram(ranks.dropna().to_numpy(), bins=edges)
        traces[run] = [
            go.Bar(
                name=run,
                x=labels,
                y=np.r_[counts, ranks.isna().sum()],
                marker_color=_colour(colours, run, i),
                hovertemplate="rank %{x}<br>%{y} queries<extra>%{fullData.name}</extra>",
            )
        ]
    fig = _arrange(traces, facet)
    fig.update_layout(barmode="group")
    fig.update_xaxes(type="category")
    return _layout(fig, "Rank of the first relevant document", "rank of the first relevant document", "queries")


def relevant_rank_histogram(
    ranks: Mapping[str, pd.DataFrame], depth: int, *, log_x: bool = False, facet: bool = False,
    colours: Mapping[str, str] | None = None,
) -> go.Figure:  # fmt: skip
    """Where the retrieved relevant documents sit: one panel per grade, one bar per run and rank bin
    (with ``facet``, one panel per run and one bar per grade, shaded by grade)."""
    edges = rank_bins(depth, log=log_x)
    labels = _bin_labels(edges)
    grades = sorted({int(g) for frame in ranks.values() for g in frame["grade"]})
    runs = list(ranks)

    def counts(frame: pd.DataFrame, grade: int) -> np.ndarray:
        return np.histogram(frame.loc[frame["grade"] == grade, "rank"].to_numpy(), bins=edges)[0]

    if facet:
        traces = {
            run: [
                go.Bar(name=f"grade {g}", x=labels, y=counts(frame, g), marker_color=_colour(colours, run, runs.index(run)),
                       marker_opacity=0.35 + 0.65 * (j + 1) / len(grades), legendgroup=f"grade {g}",
                       hovertemplate="rank %{x}<br>%{y} documents<extra>" + plain(run) + " %{fullData.name}</extra>")
                for j, g in enumerate(grades)
            ]
            for run, frame in ranks.items()
        }  # fmt: skip
        fig = _arrange(traces, True)
    else:
        panels = max(len(grades), 1)
        fig = make_subplots(rows=panels, cols=1, shared_xaxes=True, subplot_titles=[f"grade {g}" for g in grades],
                            vertical_spacing=min(0.08, 0.5 / panels))  # fmt: skip
        for row, grade in enumerate(grades, start=1):
            for i, (run, frame) in enumerate(ranks.items()):
                fig.add_trace(
                    go.Bar(name=run, x=labels, y=counts(frame, grade), marker_color=_colour(colours, run, i),
                           legendgroup=run, showlegend=row == 1,
                           hovertemplate="rank %{x}<br>%{y} documents<extra>%{fullData.name}</extra>"),
                    row=row, col=1,
                )  # fmt: skip
        fig.update_layout(height=max(450, 230 * panels))
    fig.update_layout(barmode="group")
    fig.update_xaxes(type="category")
    return _layout(fig, "Ranks of the retrieved relevant documents, by grade", "rank", "documents")


def hits_curves(curves: Mapping[str, pd.Series], *, log_x: bool = False, facet: bool = False,
                colours: Mapping[str, str] | None = None) -> go.Figure:  # fmt: skip
    """Cumulative Hits@K for K = 1..depth per run (a log axis is labelled in ranks: 1, 10, 100)."""
    traces = {
        run: [
            go.Scatter(
                name=run,
                x=curve.index,
                y=curve.to_numpy(),
                mode="lines",
                line={"color": _colour(colours, run, i), "width": 3},
                hovertemplate="K %{x}<br>Hits@K %{y:.3f}<extra>%{fullData.name}</extra>",
            )
        ]
        for i, (run, curve) in enumerate(curves.items())
    }
    fig = _arrange(traces, facet)
    fig.update_xaxes(type="log" if log_x else "linear", **({"dtick": 1} if log_x else {}))
    return _layout(fig, "Hits@K: share of queries with a relevant document in the top K", "K", "Hits@K")


def intervals(means: pd.DataFrame, low: str, high: str, marks: dict[str, str], title: str, measure: str,
              colours: Mapping[str, str] | None = None) -> go.Figure:  # fmt: skip
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
        fig.add_shape(type="line", x0=means.at[run, low], x1=means.at[run, high], y0=plain(run), y1=plain(run),
                      line={"color": _colour(colours, run, i), "width": 4})  # fmt: skip
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


def tie_intervals(means: pd.DataFrame, measure: str, colours: Mapping[str, str] | None = None) -> go.Figure:
    """Per run, the interval from the pessimistic to the optimistic mean, with the other policies marked in it."""
    marks = {"trec_eval": "circle", "run": "square", "expected": "diamond", "random": "x"}
    title = f"{measure}: every tie order lies between the pessimistic and optimistic mean"
    return intervals(means, "pessimistic", "optimistic", marks, title, measure, colours)


def unjudged_intervals(means: pd.DataFrame, measure: str, grade: int, colours: Mapping[str, str] | None = None) -> go.Figure:
    """Per run, its value with unjudged documents not relevant and with those of its top K judged ``grade``."""
    title = f"{measure}: unjudged documents not relevant (circle) or judged {grade} (diamond)"
    return intervals(means, "low", "high", {"nonrelevant": "circle", "filled": "diamond"}, title, measure, colours)


def judged_bars(judged: pd.Series, k: int, warning: float, colours: Mapping[str, str] | None = None) -> go.Figure:
    """The share of each run's top K that the qrels judge, with the warning level."""
    fig = go.Figure(go.Bar(x=list(judged.index), y=judged.to_numpy(), name=f"judged@{k}",
                           marker_color=[_colour(colours, run, i) for i, run in enumerate(judged.index)],
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


def group_bars(means: pd.DataFrame, measure: str, colours: Mapping[str, str] | None = None) -> go.Figure:
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
            marker_color=[_colour(colours, run, j) for j, run in enumerate(runs)],
            showlegend=False,
            name=str(group),
            hovertemplate="%{x}: %{y:.4f}<extra>%{fullData.name}</extra>",
            row=i // columns + 1,
            col=i % columns + 1,
        )
    fig.update_layout(height=max(350, 260 * rows))
    return _layout(fig, f"{measure} per group", "run", measure)
