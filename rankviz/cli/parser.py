"""The command line's parser, built from the options of :mod:`rankviz.settings`.

Every flag's values, range and default come from its :class:`~rankviz.options.Option`, so the help
text, the app's widgets and docs/options.md say the same thing. Flags left out are ``None`` here: a
collection folder's defaults (``rel``, ``gmax``) or the option's own default then apply.
"""

from __future__ import annotations

import argparse

from rankviz import engine_settings as e
from rankviz import report_settings as r
from rankviz import settings as s
from rankviz import significance_options as t
from rankviz.errors import OptionError
from rankviz.in_force import QRELS_IN_FORCE
from rankviz.options import Option
from rankviz.report_settings import FAIL_IF, MARGIN, STANDARDISED

FORMATS = ("table", "tsv", "json")


def _typed(option: Option):
    def parse(text: str):
        try:
            return option.parse(text)
        except OptionError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    parse.__name__ = option.name  # argparse names the type in its messages
    return parse


def add(
    parser: argparse.ArgumentParser,
    option: Option,
    *flags: str,
    note: str = "",
    metavar: str | None = None,
) -> None:
    """A flag for ``option``: validated by it, its help and default from it (default: ``None`` = not
    given)."""
    metavar = metavar or (
        "{" + ",".join(map(str, option.choices)) + "}" if option.choices else option.name.upper()
    )
    parser.add_argument(
        *(flags or (option.flag,)),
        dest=option.name,
        type=_typed(option),
        default=None,
        metavar=metavar,
        # argparse formats help with %: a literal one is doubled
        help=(option.help() + note).replace("%", "%%"),
    )


def _inputs(parser: argparse.ArgumentParser) -> None:
    """What every command reads: qrels or a collection folder, runs, measures, output format."""
    parser.add_argument(
        "qrels",
        help="TREC qrels (or CSV/TSV/Parquet), a collection folder, or "
        "irds:DATASET_ID (rankviz[irds])",
    )
    parser.add_argument(
        "runs",
        nargs="*",
        help="run files (TREC, .gz, CSV, TSV, Parquet); names of runs in a collection folder",
    )
    parser.add_argument(
        "-m",
        "--measure",
        action="append",
        dest="measures",
        metavar="MEASURE",
        help="e.g. RR@10, AP, nDCG@10, ERR@20, Hits@10, P@10, RR(rel=2)@10 (repeatable); default: "
        "the collection's, "
        f"else {', '.join(s.DEFAULT_MEASURES)}",
    )
    parser.add_argument(
        "--format", choices=FORMATS, default="table", help="output format; default table"
    )
    parser.add_argument(
        "--judgments",
        nargs="?",
        const="",
        default=None,
        metavar="DB",
        help="overlay the qrels with a meeting store's judgments (latest wins); "
        "without DB, the "
        "collection folder's rankviz-notes.sqlite; default: the qrels alone",
    )
    parser.add_argument(
        "--qrels",
        dest="qrels_in_force",
        default=None,
        metavar="file|meeting|NAME|file+NAME",
        help=QRELS_IN_FORCE.help().replace("%", "%%")
        + " (default: meeting with --judgments, else file; the app's qrels= link value)",
    )


def _conventions(parser: argparse.ArgumentParser, *, ties: bool = True) -> None:
    if ties:
        add(parser, s.TIES)
    add(parser, s.MISSING)
    add(parser, s.REL, note=" (or the collection's)")
    add(parser, s.GAIN)
    add(parser, s.GMAX, note=" (or the collection's)")
    add(parser, s.DEPTH, metavar="N")
    parser.add_argument(
        "--ignore-identical-ids",
        action="store_const",
        const=True,
        default=None,
        dest="ignore_identical_ids",
        help=s.IGNORE_IDENTICAL_IDS.help(),
    )


def _checked(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--no-check",
        action="store_true",
        help="skip the checks (rankviz check) "
        "that run first and "
        "print their warnings and errors to stderr",
    )


def _ranks(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--ranks",
        action="store_true",
        help="also print each measure's runs by "
        "mean with their rank, a "
        "rank interval (paired bootstrap over queries, seeded by --seed) and tie "
        "groups (letters from "
        "the randomised Tukey HSD: runs sharing one are not significantly "
        "different); default: off",
    )


def _grouping(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--groups",
        default=None,
        metavar="FILE",
        help="query groups file: qid plus categorical columns; default: the collection's",
    )
    add(parser, s.GROUP_BY)
    parser.add_argument(
        "--aggregate",
        default=None,
        metavar="query|macro|weights[:FILE]",
        help=s.AGGREGATE.help() + " (weights: the collection's query_weights.tsv, or weights:FILE)",
    )


def _test(
    parser: argparse.ArgumentParser, *, test: Option = t.TEST, resamples: Option = t.RESAMPLES
) -> None:
    parser.add_argument(
        "--baseline", default=None, help="name of the baseline run; default: the first run"
    )
    add(parser, test)
    add(parser, t.CORRECTION)
    add(parser, t.ALPHA)
    add(parser, resamples)


JUDGES = (
    "a qrels file; a collection folder (its qrels), DIR:NAME (one of its sources: qrels.NAME.txt) "
    "or "
    "DIR:meeting (its record); a record FILE.sqlite; a record followed by :people (the entries "
    "people made) "
    "or :llm:NAME (those imported with --source llm:NAME)"
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
        help="the collection folder the record judges, "
        "needed when DB is a .sqlite file its first writer did not tie to a collection (its grades "
        "and "
        "qrels then apply); default: DB's folder, or the collection the record names",
    )
    return parser


def _meeting(commands) -> None:
    """``judgments`` and ``tags``: the meeting store (DB: a .sqlite file, or a collection
    folder's)."""
    judgments = commands.add_parser(
        "judgments", help="the meeting's judgments: add, import, export"
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
        help="the source the entries "
        "come from, llm:NAME or "
        "human:NAME (an LLM judge, another assessor): recorded as who judged, so "
        "the meeting's own "
        "entries and the source's can be compared (rankviz agreement DB:llm:NAME "
        "DB:people); "
        "default: none, the entries are NAME's",
    )
    export = judgments.add_parser(
        "export", help="the merged qrels, the meeting's judgments, or the judgment log"
    )
    export.add_argument("db", help=MEETING_DB)
    export.add_argument(
        "--qrels",
        default=None,
        help="with --format qrels: write these qrels with "
        "the meeting's "
        "judgments in force (latest wins); default: only the meeting's judgments",
    )
    export.add_argument(
        "--format",
        choices=("qrels", "tsv"),
        default="qrels",
        help="qrels (TREC "
        "lines; default) or "
        "tsv: the log, one judgment per line (qid, docid, grade, previous_grade, "
        "by, at, note)",
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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rankviz", description="Compare ranking runs with trec_eval-exact measures."
    )
    commands = parser.add_subparsers(dest="command", required=True)

    ev = commands.add_parser(
        "evaluate", help="per-query and mean values of measures for one or more runs"
    )
    _inputs(ev)
    ev.add_argument("--per-query", action="store_true", help="also print each query's value")
    _conventions(ev)
    add(ev, s.TRIALS)
    add(ev, s.SEED)
    add(ev, s.UNJUDGED, metavar="nonrelevant|relevant[:G]")
    _grouping(ev)
    ev.add_argument(
        "--protocol",
        action="store_true",
        help="print the collection's benchmark "
        "protocol: each group's "
        "primary measure and their macro mean",
    )
    add(ev, e.ENGINE)
    add(ev, e.BLOCK_QUERIES, metavar="N")
    add(ev, e.SCHEDULER, metavar="ADDRESS")
    add(ev, e.WORKERS, metavar="N")
    _checked(ev)
    _ranks(ev)
    add(ev, t.ALPHA, note=" (with --ranks: of the groups)")
    add(ev, t.RESAMPLES, note=" (with --ranks)")
    add(ev, t.CONFIDENCE, note=" (with --ranks: of the rank intervals)")

    ch = commands.add_parser(
        "check",
        help="the mistakes that change what a number means, found "
        "before it is shown; "
        "exit 0 (nothing above a note), 1 (warnings) or 2 (errors)",
    )
    _inputs(ch)
    _conventions(ch)
    add(ch, r.K, "-k", "--cutoff", note=" (the top K whose judged share is checked)")

    co = commands.add_parser(
        "compare", help="paired significance tests of runs against a baseline (or all pairs)"
    )
    _inputs(co)
    _conventions(co)
    _test(co)
    add(co, t.PAIRS)
    add(co, t.ALTERNATIVE)
    add(co, t.ZERO_METHOD)
    add(co, t.CONFIDENCE)
    add(co, s.SEED)
    add(co, r.DETECT, "--detect")
    add(co, FAIL_IF)
    add(co, MARGIN, metavar="DELTA")
    _grouping(co)
    _checked(co)
    _ranks(co)

    su = commands.add_parser(
        "summary",
        help="the runs over several collections against a "
        "baseline: per collection and "
        "pooled (random effects, DerSimonian-Laird), wins and ranks",
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
        help="collection<TAB>run<TAB>name "
        "lines: a run a "
        "collection names otherwise; default: runs match by name",
    )
    su.add_argument("--standardised", action="store_true", help=STANDARDISED.help())
    su.add_argument(
        "--format", choices=FORMATS, default="table", help="output format; default table"
    )
    add(su, FAIL_IF)
    add(su, MARGIN, metavar="DELTA")
    add(su, s.MISSING)
    add(su, t.CONFIDENCE)

    ap = commands.add_parser(
        "app", help="start the app in the browser: the sample collection, or the collections given"
    )
    ap.add_argument(
        "data",
        nargs="*",
        metavar="DIR",
        help="collection folders (or "
        "irds:DATASET_ID) to serve; default: the "
        "sample collections (a checkout's three, else the Cranfield collection the "
        "package ships)",
    )
    ap.add_argument(
        "--port",
        type=int,
        default=None,
        metavar="N",
        help="the port to serve on; default: streamlit's (8501)",
    )
    ap.add_argument(
        "--notes",
        default=None,
        metavar="PATH",
        help="where the meetings' records "
        "live: a .sqlite file for "
        "every collection, or a folder with one per collection; default: each "
        "collection folder's "
        "rankviz-notes.sqlite",
    )
    ap.add_argument(
        "--no-browser",
        action="store_true",
        help="do not open a browser tab (a server); default: open one",
    )

    ag = commands.add_parser(
        "agreement",
        help="two sources of judgments side by side: agreement, "
        "kappa, confusion, "
        "coverage, and the runs' means, orderings and verdicts under each",
    )
    ag.add_argument("a", metavar="QRELS_A", help=JUDGES)
    ag.add_argument("b", metavar="QRELS_B", help="the other source, written the same way")
    ag.add_argument(
        "runs",
        nargs="*",
        help="run files, or names of runs of QRELS_A's collection; "
        "default: its runs "
        "(a plain file: no runs, the judgments alone)",
    )
    ag.add_argument(
        "-m",
        "--measure",
        action="append",
        dest="measures",
        metavar="MEASURE",
        help="measures (repeatable); default: the collection's, else the defaults",
    )
    ag.add_argument(
        "--format", choices=FORMATS, default="table", help="output format; default table"
    )
    _conventions(ag)
    add(ag, r.K, "-k", "--cutoff", note=" (the top K whose holes in A's judgments B may fill)")
    add(ag, t.TEST)
    add(ag, t.CORRECTION)
    add(ag, t.ALPHA)
    add(ag, t.RESAMPLES)
    add(ag, s.SEED)

    ti = commands.add_parser(
        "ties", help="how much each run's values depend on the order of equal scores"
    )
    _inputs(ti)
    _conventions(ti, ties=False)
    add(ti, r.K, "-k", "--cutoff")
    add(ti, r.QUERIES_LISTED)
    add(ti, r.TIE_TRIALS)
    add(ti, s.SEED)
    _test(ti)
    _grouping(ti)

    mr = commands.add_parser(
        "metrics-report",
        help="which measure fits the task: agreement, discriminative power, stability",
    )
    _inputs(mr)
    _conventions(mr, ties=False)
    add(mr, r.K, "-k", "--cutoff")
    mr.add_argument(
        "--answers",
        choices=("one", "many"),
        default=None,
        help="one correct answer per query, or many; default: guessed from the qrels (and said so)",
    )
    mr.add_argument(
        "--graded",
        choices=("yes", "no"),
        default=None,
        help="is relevance graded; default: from the qrels",
    )
    mr.add_argument(
        "--stops",
        choices=("yes", "no"),
        default=None,
        help="do users stop at the first satisfying result; default: yes when graded",
    )
    add(mr, r.POWER_TEST)
    add(mr, t.ALPHA)
    add(mr, r.POWER_RESAMPLES)
    add(mr, r.SPLITS, "--splits")
    add(mr, s.SEED)
    _grouping(mr)

    un = commands.add_parser(
        "unjudged", help="how much each run's numbers rest on documents the qrels do not judge"
    )
    _inputs(un)
    _conventions(un)
    add(un, r.K, "-k", "--cutoff")
    add(un, r.FILL, "--grade")
    add(un, r.QUERIES_LISTED, note=" (documents and queries to judge first)")
    _test(un)
    add(un, s.SEED)
    _grouping(un)

    rp = commands.add_parser(
        "report", help="the meeting's report: one self-contained HTML page to take away"
    )
    rp.add_argument("qrels", help="a collection folder (or qrels with --judgments DB)")
    rp.add_argument(
        "runs",
        nargs="*",
        help="runs (names in a collection folder); the baseline against the next one",
    )
    rp.add_argument(
        "-m",
        "--measure",
        action="append",
        dest="measures",
        metavar="MEASURE",
        help="measures of the means table (repeatable); default: the collection's",
    )
    rp.add_argument(
        "--judgments",
        default="",
        metavar="DB",
        help="the meeting's record; default: the collection folder's",
    )
    rp.add_argument(
        "--format", choices=("html", "json"), default="html", help="html (default) or json"
    )
    rp.add_argument(
        "-o",
        "--output",
        default=None,
        metavar="FILE",
        help="write the report here; default: standard output",
    )
    _conventions(rp)
    _test(rp)
    add(rp, s.SEED)

    commands.add_parser(
        "measures", help="the measure families: names, definitions, conventions, parameters"
    )
    _meeting(commands)
    return parser
