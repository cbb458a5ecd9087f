"""Options only the app's pages have (the library's are in :mod:`rankviz.settings.eval_settings`):
each a widget and a URL value, defined once."""

from rankviz.settings.options import Option

QUEUE = Option(
    "queue",
    5,
    "queries of each reason in the discussion queue (losses, gains, rankings that differ)",
    label="Queries for each reason",
    kind=int,
    low=3,
    high=25,
)
DEPTH = Option(
    "depth",
    10,
    "documents of each ranking in the query view",
    label="Depth",
    choices=(10, 20, 50, 100),
    kind=int,
)
TEXTS = Option(
    "texts",
    False,
    "show the text of every document of the query view at once",
    kind=bool,
    label="Show the text of every document",
)
LOG_BINS = Option(
    "log",
    True,
    "rank bins that grow with the rank (1, 2, 3, 4, 5, 6-10, 11-20, 21-50, ...), else of equal "
    "width",
    kind=bool,
    label="Rank bins in steps of 1-2-5",
)
FACET = Option(
    "facet", False, "one panel per run in the rank histograms", kind=bool, label="One panel per run"
)
PRESENT = Option(
    "present",
    False,
    "projector mode: larger text, the sidebar folded away, tables and figures sized for a 1280x720 "
    "projector",
    kind=bool,
    label="Projector mode",
)
RANKS = Option(
    "ranks",
    True,
    "each run's rank with a bootstrap interval and its Tukey tie group on the Overview (on by "
    "default up to RANKS_UP_TO queries: above, drawing the resamples takes seconds)",
    kind=bool,
    label="Rank intervals and tie groups",
)
PR_CURVE = Option(
    "pr_curve",
    False,
    "the selected runs' interpolated precision-recall curves on the Overview (off by default: "
    "drawing them orders every run again)",
    kind=bool,
    label="Precision-recall curves",
)
RANKS_UP_TO = 1000  # queries: the Overview draws the rank intervals unasked up to this many
