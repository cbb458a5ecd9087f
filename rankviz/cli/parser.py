"""The command line's parser: its commands, each group in a room of its own (the flags they share
in :mod:`rankviz.cli.flags`)."""

from __future__ import annotations

import argparse

from rankviz.cli.anova import add_anova_command
from rankviz.cli.features import add_features_command
from rankviz.cli.fuse import add_fuse_command
from rankviz.cli.ndeval import add_ndeval_command
from rankviz.cli.parse_meeting import add_meeting_commands
from rankviz.cli.parse_numbers import add_number_commands
from rankviz.cli.parse_reports import add_report_commands
from rankviz.cli.repro import add_repro_command
from rankviz.cli.trec_eval import add_trec_eval_command


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rankviz", description="Compare ranking runs with trec_eval-exact measures."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    add_number_commands(commands)
    add_anova_command(commands)
    add_features_command(commands)
    add_repro_command(commands)
    add_fuse_command(commands)
    add_report_commands(commands)
    add_meeting_commands(commands)
    add_trec_eval_command(commands)
    add_ndeval_command(commands)
    return parser
