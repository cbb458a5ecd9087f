"""``rankviz trec-eval``: trec_eval 10's command line, so that a pipeline that parses trec_eval's
output can swap the binary for it (the numbers and the text:
:mod:`rankviz.trec_eval.trec_eval_text`)."""

from __future__ import annotations

import argparse
import sys

from rankviz.trec_eval.names import COMPUTED, ORDER
from rankviz.trec_eval.trec_eval_text import TrecEvalOptions


def add_trec_eval_command(commands) -> None:
    te = commands.add_parser(
        "trec-eval",
        help="trec_eval 10's command line and output, measure for measure",
        description="trec_eval QRELS RUN as trec_eval 10 prints it (measures: "
        + ", ".join(m for m in ORDER if m in COMPUTED)
        + "; the others are refused by name).",
    )
    te.add_argument("qrels", help="TREC qrels")
    te.add_argument(
        "run",
        nargs="+",
        help="TREC runs: each one's output as trec_eval prints it, one after another",
    )
    te.add_argument(
        "-q", action="store_true", help="each query's values, then the summary (default: summary)"
    )
    te.add_argument(
        "-n",
        "--nosummary",
        action="store_true",
        help="no summary: with -q each query's values alone (default: the summary)",
    )
    te.add_argument(
        "-c",
        action="store_true",
        help="average over every judged query, a missed one on an empty ranking (default: "
        "the run's judged queries; trec_eval 10 stops on a judged query the run misses)",
    )
    te.add_argument(
        "-l", type=int, default=1, metavar="N", help="relevant from grade N (default 1)"
    )
    te.add_argument(
        "-M",
        type=int,
        default=None,
        metavar="N",
        help="the first N documents of each query count (default: all)",
    )
    te.add_argument(
        "-J", action="store_true", help="judged documents only (default: every document)"
    )
    te.add_argument(
        "-N",
        type=int,
        default=0,
        metavar="N",
        help="documents in the collection, for utility's fourth coefficient (default 0)",
    )
    te.add_argument(
        "-R",
        default="qrels",
        metavar="FORMAT",
        help="the qrels' format: qrels; qrels_jg (qid group docno rel: judgment groups, for "
        "map_avgjg, P_avgjg and Rprec_mult_avgjg); prefs (qid group subgroup docno level: "
        "preferences, for the prefs_* measures, -m all_prefs) or qrels_prefs (qrels read as "
        "preferences) (default: qrels)",
    )
    te.add_argument(
        "-Z",
        metavar="FILE",
        default=None,
        help="each value as a z-score against FILE's mean and deviation (lines: qid measure "
        "mean stddev; default: the values themselves)",
    )
    te.add_argument(
        "-m",
        action="append",
        metavar="MEASURE[.PARAMS]",
        help="a trec_eval measure (P.5,10), repeatable (default: official)",
    )


def trec_eval_command(args: argparse.Namespace) -> str:
    from rankviz.trec_eval.trec_eval_text import trec_eval_of_files

    options = options_of(args)

    def said(line: str) -> None:  # where trec_eval's own number is undefined: one line each
        print(f"rankviz trec-eval: {line}", file=sys.stderr)

    return "".join(trec_eval_of_files(args.qrels, run, options, said=said) for run in args.run)


def options_of(args: argparse.Namespace) -> TrecEvalOptions:
    """trec_eval's flags as parsed."""
    return TrecEvalOptions(
        measures=tuple(args.m or ["official"]),
        per_query=args.q,
        complete=args.c,
        rel=args.l,
        depth=args.M,
        judged_only=args.J,
        docs_in_collection=args.N,
        zscores=args.Z,
        relevance=args.R,
        summary=not args.nosummary,
    )
