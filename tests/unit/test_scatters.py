"""Per-query scatters of measures that take few values: points several queries share are moved a
little, each query the same way every time, the hover keeping its exact values; the features'
queries in the delta chart's colours."""

from __future__ import annotations

import numpy as np
import pandas as pd

from rankviz import plots
from rankviz.plots.scatters import SPREAD, spread
from rankviz.plots.style import EVEN, GAIN, LOSS


def test_only_shared_points_move_and_within_the_spread() -> None:
    x = np.array([0.0, 0.0, 0.0, 0.5, 1.0])
    y = np.array([1.0, 1.0, 1.0, 0.25, 0.0])
    keys = np.array(["q1", "q2", "q3", "q4", "q5"], dtype=object)
    moved_x, moved_y, moved = spread(x, y, keys)
    assert moved == 3
    assert (moved_x[3:] == x[3:]).all() and (moved_y[3:] == y[3:]).all()
    assert len({(a, b) for a, b in zip(moved_x[:3], moved_y[:3], strict=True)}) == 3
    assert (np.abs(moved_x - x) <= SPREAD * 1.0 + 1e-12).all()
    assert (np.abs(moved_y - y) <= SPREAD * 1.0 + 1e-12).all()
    again = spread(x[::-1], y[::-1], keys[::-1])  # a query moves the same way in any order
    assert (again[0][::-1] == moved_x).all() and (again[1][::-1] == moved_y).all()


def test_the_run_against_its_baseline_hovers_the_exact_values() -> None:
    rr = pd.DataFrame({"baseline": [1.0] * 40 + [0.5], "run": [1.0] * 40 + [0.2]})
    rr.index = [f"q{i}" for i in range(41)]
    figure = plots.baseline_scatter(rr, {}, "RR@10", "bm25", "dense")
    points = figure.data[0]
    assert len(set(zip(points.x, points.y, strict=True))) == 41  # 40 on one point: all apart
    assert [row[2] for row in points.customdata] == rr["baseline"].tolist()
    assert [row[3] for row in points.customdata] == rr["run"].tolist()
    assert "bm25 %{customdata[2]:.4f}" in points.hovertemplate
    assert "%{x" not in points.hovertemplate
    assert "40 queries share a point" in figure.layout.title.text


def test_query_features_colour_each_query_by_its_delta() -> None:
    qids = ["a", "b", "c"]
    delta = pd.Series([0.5, -0.25, 0.0], index=qids)
    length = pd.Series([3.0, 5.0, 8.0], index=qids, name="length")
    band = pd.DataFrame(
        {"x": [3.0, 8.0], "fit": [0.1, 0.0], "low": [0.0, -0.1], "high": [0.2, 0.1]}
    )
    figure = plots.feature_scatter(length, delta, band, {}, "delta")
    queries = next(trace for trace in figure.data if trace.name == "queries")
    assert list(queries.marker.color) == [GAIN, LOSS, EVEN]
    assert figure.layout.title.text == "delta against length"  # no point shared: none moved


def test_the_asl_curves_give_each_measure_a_hue_and_a_marker_of_its_own() -> None:
    """The theme's colours come in light and dark pairs of one hue (RR@10 and RR both blue)."""
    asl = pd.DataFrame(
        {
            "measure": [m for m in ("RR@10", "RR", "AP", "nDCG@10") for _ in range(3)],
            "pair rank": [1, 2, 3] * 4,
            "p": np.linspace(0.001, 0.5, 12),
        }
    )
    traces = plots.asl_curves(asl, 0.05).data
    assert len({t.line.color for t in traces}) == 4 and len({t.marker.symbol for t in traces}) == 4
