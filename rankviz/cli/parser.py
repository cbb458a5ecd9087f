"""The command line's parser: its commands, each group in a room of its own (the flags they share
in :mod:`rankviz.cli.flags`), and what every ``--help`` says around them: a one-line description
first, one or two examples last (run by the tests on a copy of the samples), in 100 columns."""

from __future__ import annotations

import argparse
import shutil

#: The widest line of any help.
COLUMNS = 100
C = "sample_data/cranfield"
#: Each command's examples, in the order the tests run them (a record written before it is read).
EXAMPLES: dict[str, tuple[str, ...]] = {
    "": (f"rankviz evaluate {C}", f"rankviz compare {C} bm25 dense -m AP"),
    "evaluate": (
        f"rankviz evaluate {C}",
        f"rankviz evaluate {C} bm25 dense -m nDCG@10 --per-query --format tsv",
    ),
    "check": (f"rankviz check {C}",),
    "compare": (f"rankviz compare {C} bm25 dense -m AP --test randomization",),
    "summary": (
        f"rankviz summary {C} sample_data/dl-hard-passage --baseline bm25 --names "
        "sample_data/summary-names.tsv",
    ),
    "anova": (f"rankviz anova {C} -m AP",),
    "features": ("rankviz features sample_data/dl-hard-passage -m nDCG@10",),
    "repro": (f"rankviz repro {C} --original bm25 dense --reproduced qld rrf -m AP",),
    "fuse": (f"rankviz fuse {C}/runs/bm25.run.gz {C}/runs/dense.run.gz --method rrf -o fused.run",),
    "app": (f"rankviz app {C}", f"rankviz app {C} --host 0.0.0.0 --auth auth.toml"),
    "ties": (f"rankviz ties {C} -m nDCG@10",),
    "metrics-report": (f"rankviz metrics-report {C} -m nDCG@10 -m AP",),
    "unjudged": (f"rankviz unjudged {C} -m AP",),
    "measures": ("rankviz measures",),
    "judgments": (f"rankviz judgments add {C} 1 13 2 --by Ann",),
    "judgments add": (f"rankviz judgments add {C} 1 13 2 --by Ann --note 'a full answer'",),
    "judgments import": (f"rankviz judgments import {C} llm.qrels --by Ann --source llm:gpt-4o",),
    "judgments undo": (f"rankviz judgments undo {C} --by Ann",),
    "judgments lock": (f"rankviz judgments lock {C} --by Olga",),
    "judgments unlock": (f"rankviz judgments unlock {C} --by Olga",),
    "judgments sample": (
        "rankviz judgments sample sample_data/rag24-judges --qrels umbrela --queries 15 "
        "--drawn-by Ann",
    ),
    "judgments export": (
        f"rankviz judgments export {C} --format tsv",
        f"rankviz judgments export {C} --qrels {C}/qrels.txt",
    ),
    "tags": (f"rankviz tags add {C} 1 synonyms --by Ann",),
    "tags add": (f"rankviz tags add {C} 1 synonyms --by Ann",),
    "tags export": (f"rankviz tags export {C}",),
    "agreement": (f"rankviz agreement {C} {C}:meeting bm25 dense",),
    "report": (f"rankviz report {C} -o meeting.html",),
    "trec-eval": (
        f"rankviz trec-eval -q -m ndcg_cut.10 {C}/qrels.txt {C}/runs/bm25.run.gz",
        f"rankviz trec-eval -m all_trec {C}/qrels.txt {C}/runs/bm25.run.gz {C}/runs/dense.run.gz",
    ),
    "ndeval": (
        "rankviz ndeval subtopics.txt run.txt",
        "rankviz ndeval -c -M 20 subtopics.txt run.txt",
    ),
}


class Help(argparse.HelpFormatter):
    """Help within :data:`COLUMNS` (or the terminal, when narrower); the examples as written."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, width=min(COLUMNS, shutil.get_terminal_size().columns))

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if text.startswith("examples:"):
            return text
        return super()._fill_text(text, width, indent)


#: The drop-ins, which a pipeline may call once per run: their parser alone is built for them
#: (:func:`build_parser`'s ``only``), so they import what they use and nothing of the study.
DROP_INS = ("trec-eval", "ndeval")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """Every command's parser; ``only``: one of :data:`DROP_INS` alone (the same flags and help)."""
    parser = argparse.ArgumentParser(
        prog="rankviz", description="Compare ranking runs with trec_eval-exact measures."
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    if only == "trec-eval":
        from rankviz.cli.trec_eval import add_trec_eval_command

        add_trec_eval_command(commands)
    elif only == "ndeval":
        from rankviz.cli.ndeval import add_ndeval_command

        add_ndeval_command(commands)
    else:
        from rankviz.cli.anova_command import add_anova_command
        from rankviz.cli.features_command import add_features_command
        from rankviz.cli.fuse import add_fuse_command
        from rankviz.cli.ndeval import add_ndeval_command
        from rankviz.cli.parse_meeting import add_meeting_commands
        from rankviz.cli.parse_numbers import add_number_commands
        from rankviz.cli.parse_reports import add_report_commands
        from rankviz.cli.repro_command import add_repro_command
        from rankviz.cli.trec_eval import add_trec_eval_command

        add_number_commands(commands)
        add_anova_command(commands)
        add_features_command(commands)
        add_repro_command(commands)
        add_fuse_command(commands)
        add_report_commands(commands)
        add_meeting_commands(commands)
        add_trec_eval_command(commands)
        add_ndeval_command(commands)
    _framed(parser, "", None)
    return parser


def _framed(parser: argparse.ArgumentParser, name: str, about: str | None) -> None:
    """``parser`` and every command below it: the help's width, a description (the one-line help
    the command is listed with, where it has none of its own) and its examples last."""
    parser.formatter_class = Help
    if parser.description is None and about:
        parser.description = about[0].upper() + about[1:] + "."
    parser.epilog = "examples:\n" + "".join(f"  {_wrapped(line)}\n" for line in EXAMPLES[name])
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            action.metavar = action.metavar or "ACTION"
            said = {choice.dest: choice.help for choice in action._choices_actions}
            for child, below in action.choices.items():
                _framed(below, f"{name} {child}".strip(), said.get(child))


def _wrapped(example: str) -> str:
    """An example as a shell reads it, its words carried to the next line (`` \\``) past the
    help's width."""
    lines, line = [], ""
    for word in example.split(" "):
        if line and len(line) + len(word) + 2 + 4 > COLUMNS - 2:
            lines.append(line + " \\")
            line = "      " + word
        else:
            line = f"{line} {word}" if line else word
    return "\n  ".join([*lines, line])
