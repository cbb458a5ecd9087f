"""``rankviz features``: on what kind of query a run wins. A run's per-query delta against a
baseline (or its values) against the queries' features: Spearman's rho with its p-value, a trend
with its band, buckets of equal width and frequency, the means per category
(:mod:`rankviz.analyses.features`)."""

from __future__ import annotations

import argparse

from rankviz.cli.flags import add, checked, conventions, inputs, scores
from rankviz.cli.study_args import evaluation_of_args, study_of_args
from rankviz.cli.tables import footer, frame_table, frame_tsv
from rankviz.errors import OptionError
from rankviz.settings import report_settings as r
from rankviz.settings import significance_settings as t
from rankviz.settings.numbers import to_json
from rankviz.study import FEATURE_REPORT


def add_features_command(commands) -> None:
    fe = commands.add_parser(
        "features",
        help="a run's per-query delta (or values) against the queries' features: rank "
        "correlation, trend, buckets, categories",
    )
    inputs(fe)
    conventions(fe)
    fe.add_argument("--baseline", default=None, help="the baseline run; default: the first run")
    fe.add_argument(
        "--run", default=None, help="the run whose delta is analysed; default: the second run"
    )
    fe.add_argument(
        "--values",
        action="store_true",
        help="the run's values instead of its delta against a baseline; default: the delta",
    )
    fe.add_argument(
        "--bins",
        type=int,
        default=5,
        help="buckets of each numeric feature (at most one a query); default 5",
    )
    add(fe, r.K, "-k", "--cutoff", note=" (the top K whose judged share is a feature)")
    add(fe, t.CONFIDENCE)
    scores(fe)
    checked(fe)


def features_command(args: argparse.Namespace) -> str:
    study = study_of_args(args)
    names = study.run_names
    run = args.run or (names[0] if args.values or len(names) < 2 else names[1])
    baseline = None if args.values else (args.baseline or names[0])
    if baseline == run:
        raise OptionError("--run and --baseline name the same run: give two, or --values")
    if args.bins < 2:
        raise OptionError(f"--bins must be 2 or more, not {args.bins}")
    evaluation = evaluation_of_args(study, args)
    report = study.ask(
        FEATURE_REPORT,
        study.measures[0],
        run,
        baseline,
        k=args.k or r.K.default,
        bins=args.bins,
        confidence_level=args.confidence_level or t.CONFIDENCE.default,
    )
    if args.format == "json":
        return to_json(report.to_dict())
    frames = report.to_frames()
    if args.format == "tsv":
        return frame_tsv(frames["correlations"], index=False)
    text = frame_table(frames["correlations"], index=False)
    if len(frames["categories"]):
        text += "\n" + frame_table(frames["categories"], index=False)
    notes = [report.describe(), *report.left_out, *evaluation.conventions()]
    return text + footer(notes)
