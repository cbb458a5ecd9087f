"""``rankviz repro``: did the reproduction reproduce. An original baseline and advanced run against
their reproductions: KTU and RBO of the orderings, RMSE, ER and delta RI of the effects, paired and
unpaired t tests (:mod:`rankviz.analyses.reproducibility`; repro_eval's measures)."""

from __future__ import annotations

import argparse
import textwrap

from rankviz.cli.flags import FORMATS
from rankviz.cli.study_args import warn
from rankviz.cli.tables import footer, frame_table, frame_tsv
from rankviz.errors import OptionError
from rankviz.settings.numbers import to_json
from rankviz.study import REPRODUCTION, Study, StudyRequest


def add_repro_command(commands) -> None:
    rp = commands.add_parser(
        "repro",
        help="did the reproduction reproduce: KTU, RBO, RMSE, effect ratio, delta RI, t tests",
        description="Did the reproduction reproduce: KTU, RBO, RMSE, effect ratio, delta RI and "
        "t tests of the original runs against their reproductions (repro_eval's measures).",
        # the qrels first: written last, --reproduced's list would take them as one more run
        usage="rankviz repro [-h] QRELS [--original BASELINE [ADVANCED]\n"
        + " " * 21
        + "--reproduced BASELINE [ADVANCED]] [-m MEASURE] [--depth DEPTH]\n"
        + " " * 21
        + "[--rbo-p P] [--format {table,tsv,json}]",
    )
    rp.add_argument("qrels", help="the qrels (or a collection folder, whose runs can be named)")
    rp.add_argument(
        "--original",
        nargs="+",
        metavar="RUN",
        help="the original BASELINE [ADVANCED] (default: a collection's [reproduction])",
    )
    rp.add_argument(
        "--reproduced",
        nargs="+",
        metavar="RUN",
        help="their reproductions, in the same order (default: a collection's [reproduction])",
    )
    rp.add_argument(
        "-m",
        "--measure",
        action="append",
        dest="measures",
        metavar="MEASURE",
        help="measures of the effects (repeatable); default: the collection's, else rankviz's",
    )
    rp.add_argument("--depth", type=int, default=1000, help="documents compared; default 1000")
    rp.add_argument("--rbo-p", type=float, default=0.95, help="RBO's persistence; default 0.95")
    rp.add_argument(
        "--format", choices=FORMATS, default="table", help="output format; default table"
    )


def _said(effects):
    """The effects as the table shows them: the verdict's words are the line above it, and the
    column of why a value is undefined only where one is."""
    shown = effects.drop(columns=["reproduced", "why"], errors="ignore")
    if "undefined" in shown and not shown["undefined"].fillna("").astype(str).str.strip().any():
        shown = shown.drop(columns=["undefined"])
    return shown


def _declared(args: argparse.Namespace) -> tuple[list[str], list[str]]:
    """The runs that reproduce which: as named, else as the collection declares them."""
    if args.original is not None and args.reproduced is not None:
        return args.original, args.reproduced
    if args.original is not None or args.reproduced is not None:
        raise OptionError("give both --original and --reproduced, or neither")
    collection = Study.open(StudyRequest(args.qrels, measures=args.measures)).collection
    declared = collection.config.reproduction if collection is not None else None
    if declared is None:
        raise OptionError(
            f"{args.qrels} declares no reproduction ([reproduction] in a collection's "
            "collection.toml): name the runs, --original BASELINE [ADVANCED] --reproduced "
            "BASELINE [ADVANCED]"
        )
    return list(declared.original), list(declared.reproduced)


def repro_command(args: argparse.Namespace) -> str:
    original, reproduced = _declared(args)
    if len(original) != len(reproduced) or len(original) > 2:
        raise OptionError("--original and --reproduced take the same runs: BASELINE [ADVANCED]")
    study = Study.open(StudyRequest(args.qrels, [*original, *reproduced], measures=args.measures))
    for line in study.notes:
        warn(line)
    names = study.run_names
    if len(set(names)) < len(names):
        raise OptionError(f"two of the runs are named alike ({', '.join(names)}): rename a file")
    half = len(original)
    result = study.ask(REPRODUCTION, names[:half], names[half:], depth=args.depth, rbo_p=args.rbo_p)
    if args.format == "json":
        return to_json(result.to_dict())
    frames = result.to_frames()
    if args.format == "tsv":
        return frame_tsv(frames["effects"], index=False)
    verdict, why = result.verdict()
    return (
        (textwrap.fill(f"reproduced: {verdict}. {why}.", 100) + "\n\n" if verdict else "")
        + frame_table(frames["orderings"], index=False)
        + "\n"
        # the verdict's words are the line above the tables (TSV and JSON keep them per measure)
        + frame_table(_said(frames["effects"]), index=False)
        + footer([result.describe(), *study.conventions()])
    )
