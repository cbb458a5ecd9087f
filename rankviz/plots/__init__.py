"""Plot builders: data in, Plotly figure out (no streamlit, no I/O), so tests can inspect them."""

from rankviz.plots.curves import precision_recall
from rankviz.plots.intervals import (
    asl_curves,
    collections_forest,
    confusion_heatmap,
    correlation_heatmap,
    forest,
    intervals,
    judged_bars,
    pvalue_heatmap,
    tie_intervals,
    unjudged_intervals,
)
from rankviz.plots.runs import (
    delta_bars,
    first_relevant_histogram,
    group_bars,
    hits_curves,
    means_with_ci,
    rank_bins,
    relevant_rank_histogram,
)
from rankviz.plots.scatters import baseline_scatter, feature_scatter, measure_scatter
from rankviz.plots.style import GROUP_PALETTE, RUN_PALETTE, VERDICT_COLOURS, plain, run_colours

__all__ = [
    "GROUP_PALETTE",
    "RUN_PALETTE",
    "VERDICT_COLOURS",
    "asl_curves",
    "collections_forest",
    "confusion_heatmap",
    "baseline_scatter",
    "correlation_heatmap",
    "delta_bars",
    "feature_scatter",
    "first_relevant_histogram",
    "forest",
    "group_bars",
    "hits_curves",
    "intervals",
    "judged_bars",
    "means_with_ci",
    "measure_scatter",
    "plain",
    "precision_recall",
    "pvalue_heatmap",
    "rank_bins",
    "relevant_rank_histogram",
    "run_colours",
    "tie_intervals",
    "unjudged_intervals",
]
