"""``rankviz anova``: the two-way ANOVA (system x topic) of the runs on each measure, with F and p
of both factors, partial omega squared, the residual variance, the margin of error and (with
``--target-moe``) the topics that would bring it down to the target
(:mod:`rankviz.analyses.anova`)."""

from __future__ import annotations

import argparse

from rankviz.cli.flags import add, checked, conventions, inputs, margin, scores
from rankviz.cli.study_args import evaluation_of_args, study_of_args
from rankviz.cli.tables import footer, frame_table, frame_tsv
from rankviz.errors import OptionError
from rankviz.settings import significance_settings as t
from rankviz.settings.numbers import to_json
from rankviz.study import ANOVA


def add_anova_command(commands) -> None:
    an = commands.add_parser(
        "anova",
        help="two-way ANOVA without replication (system x topic): F, p, omega squared, margin "
        "of error, topic set size",
    )
    inputs(an)
    conventions(an)
    add(an, t.CONFIDENCE)
    an.add_argument(
        "--target-moe",
        type=margin,
        default=None,
        metavar="DELTA",
        help="also say how many topics would bring the margin of error down to DELTA (Sakai's "
        "topic set size design, the residual variance kept); default: not asked",
    )
    scores(an)
    checked(an)


def anova_command(args: argparse.Namespace) -> str:
    study = study_of_args(args)
    if len(study.run_names) < 2:
        raise OptionError("anova needs two or more runs")
    evaluation = evaluation_of_args(study, args)
    level = args.confidence_level or t.CONFIDENCE.default
    results = [
        study.ask(ANOVA, m, confidence_level=level, evaluation=evaluation) for m in study.measures
    ]
    needed = {
        r.measure: r.topics_for(args.target_moe) for r in results if args.target_moe is not None
    }
    if args.format == "json":
        payload = [
            {**r.to_dict(), **({"topics_needed": needed[r.measure]} if needed else {})}
            for r in results
        ]
        return to_json(payload[0] if len(payload) == 1 else payload)
    tables = [r.to_frames()["anova"].assign(measure=r.measure) for r in results]
    if args.format == "tsv":
        return "\n".join(frame_tsv(table, index=False) for table in tables)
    lines = [results[0].describe()]
    for r in results:
        lines.append(
            f"{r.measure}: residual variance {r.residual_variance:.4g}, margin of error "
            f"{r.moe:.4f} ({r.topics} topics)"
            + (
                f"; {needed[r.measure]} topics for a margin of {args.target_moe:g}"
                if needed
                else ""
            )
        )
    shown = [table[["measure", *table.columns[:-1]]] for table in tables]
    return "\n".join(frame_table(table, index=False) for table in shown) + footer(
        [*lines, *evaluation.conventions()]
    )
