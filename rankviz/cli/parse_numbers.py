"""The commands that compute numbers: evaluate, check, compare, summary."""

from __future__ import annotations

from rankviz.cli.flags import (
    FORMATS,
    add,
    checked,
    conventions,
    grouping,
    inputs,
    margin,
    ranks,
    scores,
    test_flags,
)
from rankviz.settings import engine_settings as e
from rankviz.settings import eval_settings as s
from rankviz.settings import report_settings as r
from rankviz.settings import significance_settings as t
from rankviz.settings.report_settings import FAIL_IF, MARGIN, STANDARDISED


def add_number_commands(commands) -> None:
    """``evaluate``, ``check``, ``compare`` and ``summary``."""
    ev = commands.add_parser(
        "evaluate", help="per-query and mean values of measures for one or more runs"
    )
    inputs(ev)
    ev.add_argument("--per-query", action="store_true", help="also print each query's value")
    conventions(ev)
    add(ev, s.TRIALS)
    add(ev, s.SEED)
    add(ev, s.UNJUDGED, metavar="nonrelevant|relevant[:G]")
    grouping(ev)
    scores(ev)
    ev.add_argument(
        "--protocol",
        action="store_true",
        help="print the collection's benchmark protocol: each group's primary measure and their "
        "macro mean",
    )
    add(ev, e.ENGINE)
    add(ev, e.BLOCK_QUERIES, metavar="N")
    add(ev, e.SCHEDULER, metavar="ADDRESS")
    add(ev, e.WORKERS, metavar="N")
    checked(ev)
    ranks(ev)
    add(ev, t.ALPHA, note=" (with --ranks: of the groups)")
    add(ev, t.RESAMPLES, note=" (with --ranks)")
    add(
        ev,
        t.CONFIDENCE,
        note=" (with --ranks: of the rank intervals; with --correct-with: of the means)",
    )
    ev.add_argument(
        "--target-moe",
        type=margin,
        default=None,
        metavar="DELTA",
        help="with --correct-with: also say how many human-judged queries would bring each "
        "interval's half width down to DELTA (the variances measured so far kept); default: "
        "not asked",
    )

    ch = commands.add_parser(
        "check",
        help="the mistakes that change what a number means, found before it is shown; exit 0 "
        "(nothing above a note), 1 (warnings) or 2 (errors)",
    )
    inputs(ch)
    conventions(ch)
    add(ch, r.K, "-k", "--cutoff", note=" (the top K whose judged share is checked)")

    co = commands.add_parser(
        "compare", help="paired significance tests of runs against a baseline (or all pairs)"
    )
    inputs(co)
    conventions(co)
    test_flags(co)
    add(co, t.PAIRS)
    add(co, t.ALTERNATIVE)
    add(co, t.ZERO_METHOD)
    add(co, t.CONFIDENCE)
    add(co, s.SEED)
    add(co, r.DETECT, "--detect")
    add(co, FAIL_IF)
    add(co, MARGIN, metavar="DELTA")
    grouping(co)
    scores(co)
    checked(co)
    ranks(co)

    su = commands.add_parser(
        "summary",
        help="the runs over several collections against a baseline: per collection and pooled "
        "(random effects, DerSimonian-Laird), wins and ranks",
    )
    su.add_argument(
        "collections", nargs="+", metavar="DIR", help="collection folders (two or more)"
    )
    su.add_argument(
        "--baseline",
        required=True,
        help="the baseline run's name (as every collection, or --names, names it)",
    )
    su.add_argument(
        "--runs",
        nargs="+",
        default=None,
        metavar="NAME",
        help="the runs to summarise; default: every run all the collections have",
    )
    su.add_argument(
        "-m",
        "--measure",
        action="append",
        dest="measures",
        metavar="MEASURE",
        help="measures (repeatable); default: nDCG@10; each collection applies its own conventions",
    )
    su.add_argument(
        "--names",
        default=None,
        metavar="FILE",
        help="collection<TAB>run<TAB>name lines: a run a collection names otherwise; default: runs "
        "match by name",
    )
    su.add_argument("--standardised", action="store_true", help=STANDARDISED.help())
    su.add_argument(
        "--format", choices=FORMATS, default="table", help="output format; default table"
    )
    add(su, FAIL_IF)
    add(su, MARGIN, metavar="DELTA")
    add(su, s.MISSING)
    add(su, t.CONFIDENCE)
