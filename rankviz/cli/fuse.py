"""``rankviz fuse``: several runs fused into one TREC run file (RRF, CombSUM, CombMNZ, BordaFuse;
ranx's numbers), named by its recipe (:mod:`rankviz.study.fusing`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from rankviz.errors import OptionError
from rankviz.study.fusing import METHODS, NORMS, Recipe, fuse_files, trec_text


def add_fuse_command(commands) -> None:
    fu = commands.add_parser(
        "fuse", help="fuse runs into one TREC run (RRF, CombSUM, CombMNZ, Borda)"
    )
    fu.add_argument("runs", nargs="+", help="run files (two or more)")
    fu.add_argument("--method", choices=METHODS, default="rrf", help="default rrf")
    fu.add_argument("--k", type=int, default=60, help="RRF's k: 1 / (k + rank); default 60")
    fu.add_argument(
        "--norm",
        choices=NORMS,
        default="minmax",
        help="scores normalised per run and query before CombSUM and CombMNZ; default minmax",
    )
    fu.add_argument("--depth", type=int, default=None, help="documents kept a query; default all")
    fu.add_argument("-o", "--output", required=True, metavar="FILE", help="the fused run file")


def fuse_command(args: argparse.Namespace) -> str:
    if len(args.runs) < 2:
        raise OptionError("fuse takes two or more runs")
    output = Path(args.output)
    if any(output.resolve() == Path(p).resolve() for p in args.runs):
        raise OptionError(
            f"-o {args.output}: one of the input runs; input files are never modified"
        )
    run = fuse_files(args.runs, Recipe(args.method, args.k, args.norm), depth=args.depth)
    output.write_text(trec_text(run), encoding="utf-8")
    return f"{run.name}: {len(run.query_ids)} queries, {len(run)} lines written to {output}\n"
