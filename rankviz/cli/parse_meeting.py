"""The meeting's record from the command line: ``judgments add|import|export`` and ``tags``."""

from __future__ import annotations

import argparse

from rankviz.cli.flags import inputs

JUDGES = (
    "a qrels file; a collection folder (its qrels), DIR:NAME (one of its sources: qrels.NAME.txt) "
    "or DIR:meeting (its record); a record FILE.sqlite; a record followed by :people (the entries "
    "people made) or :llm:NAME (those imported with --source llm:NAME)"
)
MEETING_DB = "the meeting store: a .sqlite file, or a collection folder (its rankviz-notes.sqlite)"


def _entry(actions, name: str, about: str, who: str, **positionals: str) -> argparse.ArgumentParser:
    """A subcommand that records entries: DB, its positional arguments (name: help), ``--by
    NAME``."""
    parser = actions.add_parser(name, help=about)
    parser.add_argument("db", help=MEETING_DB)
    for argument, meaning in positionals.items():
        parser.add_argument(argument, help=meaning)
    parser.add_argument("--by", required=True, metavar="NAME", help=who)
    parser.add_argument(
        "--collection",
        default=None,
        metavar="DIR",
        help="the collection folder the record judges, needed when DB is a .sqlite file its first "
        "writer did not tie to a collection (its grades and qrels then apply); default: DB's "
        "folder, or the collection the record names",
    )
    return parser


def add_meeting_commands(commands) -> None:
    """``judgments`` and ``tags``: the meeting store (DB: a .sqlite file, or a collection
    folder's)."""
    judgments = commands.add_parser(
        "judgments",
        help="the meeting's judgments: add, import, undo, export, lock, unlock, sample",
    ).add_subparsers(dest="action", required=True)
    add_one = _entry(
        judgments,
        "add",
        "record one grade",
        "who judged",
        qid="the query",
        docid="the document",
        grade="a whole number (relevant from the relevance threshold, 1 by default)",
    )
    add_one.add_argument("--note", default="", metavar="TEXT", help="why; default: no note")
    imports = _entry(
        judgments,
        "import",
        "record every judgment of a TREC qrels file",
        "who judged (with --source: who imported them)",
        file="TREC qrels lines (qid iter docid grade)",
    )
    imports.add_argument(
        "--source",
        default=None,
        metavar="LABEL",
        help="the source the entries come from, llm:NAME or human:NAME (an LLM judge, another "
        "assessor): recorded as who judged, so the meeting's own entries and the source's can be "
        "compared (rankviz agreement DB:llm:NAME DB:people); default: none, the entries are NAME's",
    )
    undo = judgments.add_parser(
        "undo", help="take back the latest import: what was in force before it is in force again"
    )
    undo.add_argument("db", help=MEETING_DB)
    undo.add_argument("--by", required=True, metavar="NAME", help="who undoes it")
    for action, about in (
        ("lock", "lock the meeting: every entry is refused (the app's too) until it is unlocked"),
        ("unlock", "unlock a locked meeting"),
    ):
        locking = judgments.add_parser(action, help=about)
        locking.add_argument("db", help=MEETING_DB)
        locking.add_argument("--by", required=True, metavar="NAME", help=f"who did it ({action}s)")
    export = judgments.add_parser(
        "export", help="the merged qrels, the meeting's judgments, or the judgment log"
    )
    export.add_argument("db", help=MEETING_DB)
    export.add_argument(
        "--qrels",
        default=None,
        help="with --format qrels: write these qrels with the meeting's judgments in force (latest "
        "wins); default: only the meeting's judgments",
    )
    export.add_argument(
        "--format",
        choices=("qrels", "tsv"),
        default="qrels",
        help="qrels (TREC lines; default) or tsv: the log, one judgment per line (qid, docid, "
        "grade, previous_grade, by, at, note, via: how the author is known, undoes: the judgment "
        "an undo takes back)",
    )
    sample = judgments.add_parser(
        "sample",
        help="draw the queries people should judge, at random, and keep the draw in the record: "
        "a correction (--correct-with) then weights the queries judged by it",
    )
    inputs(sample)
    sample.add_argument(
        "--queries",
        type=int,
        required=True,
        metavar="N",
        help="how many (by uncertainty: on average)",
    )
    sample.add_argument(
        "--seed",
        type=int,
        default=0,
        metavar="S",
        help="the draw's seed; default 0 (the same draw)",
    )
    sample.add_argument(
        "--by",
        choices=("uniform", "uncertainty"),
        default="uniform",
        help="uniform (every query alike; the default) or uncertainty (more often where the runs' "
        "values under the judgments in force spread the most, -m's first measure)",
    )
    sample.add_argument(
        "--drawn-by", required=True, metavar="NAME", help="who draws (kept with the draw)"
    )
    tags = commands.add_parser(
        "tags", help="the meeting's tags of queries: add, export"
    ).add_subparsers(dest="action", required=True)
    _entry(
        tags,
        "add",
        "tag a query",
        "who tagged",
        qid="the query",
        tag="what went wrong, e.g. 'needs reasoning' (at most 60 characters)",
    )
    tags.add_parser(
        "export", help="qid<TAB>tag with a header, usable as --groups (a query's tags joined)"
    ).add_argument("db", help=MEETING_DB)
