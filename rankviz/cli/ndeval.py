"""``rankviz ndeval``: ndeval's command line (the TREC Web track's diversity evaluation, version
4.5) and its CSV, so that a pipeline that parses ndeval's output can swap the binary for it (the
numbers and the text: :mod:`rankviz.ndeval.ndeval_text`)."""

from __future__ import annotations

import argparse


def add_ndeval_command(commands) -> None:
    nd = commands.add_parser(
        "ndeval",
        help="ndeval's diversity measures (alpha-nDCG, ERR-IA, NRBP, ...) and its CSV",
        description="ndeval QRELS RUN as ndeval 4.5 prints it: ERR-IA, nERR-IA, alpha-DCG, "
        "alpha-nDCG at 5, 10 and 20, NRBP, nNRBP, MAP-IA, P-IA and subtopic recall, per topic "
        "and their mean. QRELS: 'topic subtopic docno judgment' lines.",
    )
    nd.add_argument("qrels", help="diversity qrels: topic subtopic docno judgment")
    nd.add_argument("run", help="TREC run")
    nd.add_argument(
        "-alpha", type=float, default=0.5, help="redundancy intolerance, in [0, 1] (default 0.5)"
    )
    nd.add_argument(
        "-beta", type=float, default=0.5, help="NRBP's patience, in [0, 1] (default 0.5)"
    )
    nd.add_argument(
        "-M", type=int, default=None, metavar="N", help="the first N documents (default: all)"
    )
    nd.add_argument(
        "-c",
        action="store_true",
        help="average over every judged topic, a missed one counting 0 (default: the run's "
        "judged topics)",
    )
    nd.add_argument(
        "-traditional",
        action="store_true",
        help="order by score, then docno descending (default: the run's rank column, as ndeval)",
    )
    nd.add_argument(
        "-a", action="store_true", help="accepted for ndeval's sake; no effect (default: off)"
    )
    nd.add_argument(
        "--rel",
        type=int,
        default=1,
        help="a judgment counts as relevant from this value (default 1: ndeval's)",
    )


def ndeval_command(args: argparse.Namespace) -> str:
    from rankviz.ndeval.ndeval_text import NdevalOptions, ndeval_of_files

    options = NdevalOptions(
        alpha=args.alpha,
        beta=args.beta,
        depth=args.M,
        complete=args.c,
        traditional=args.traditional,
        rel=args.rel,
    )
    return ndeval_of_files(args.qrels, args.run, options)
