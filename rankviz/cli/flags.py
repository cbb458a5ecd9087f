"""The command line's flags, built from the options: every flag's values, range and default come
from its :class:`~rankviz.settings.options.Option`, so the help text, the app's widgets and
docs/options.md say the same thing. Flags left out are ``None``: a collection folder's defaults
(``rel``, ``gmax``) or the option's own default then apply.
"""

from __future__ import annotations

import argparse
import math

from rankviz.errors import OptionError
from rankviz.settings import eval_settings as s
from rankviz.settings import significance_settings as t
from rankviz.settings.options import GIVEN_NONE, Option
from rankviz.study.in_force import QRELS_IN_FORCE

FORMATS = ("table", "tsv", "json")


def margin(text: str) -> float:
    """A margin of error (an interval's half width): a finite number above 0."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r}: a margin of error is a number above 0")
    return value


def typed(option: Option):
    def parse(text: str):
        try:
            value = option.parse(text)
        except OptionError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
        return GIVEN_NONE if value is None else value  # given: it replaces the default

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
        type=typed(option),
        default=None,
        metavar=metavar,
        # argparse formats help with %: a literal one is doubled
        help=(option.help() + note).replace("%", "%%"),
    )


#: The titled groups the shared flags are listed in, after a command's own options.
JUDGMENTS = "the judgments in force"
CONVENTIONS = "conventions (how every number is computed; trec_eval's by default)"
SCORES = "per-query scores beside the runs"
GROUPS = "query groups"


def titled(parser: argparse.ArgumentParser, title: str):
    """The parser's group of flags ``title`` (made the first time): ``--help`` lists a command's
    own options first, then each group of shared flags under its title."""
    for group in parser._action_groups:
        if group.title == title:
            return group
    return parser.add_argument_group(title)


def inputs(parser: argparse.ArgumentParser) -> None:
    """What every command reads: qrels or a collection folder, runs, measures, output format."""
    parser.add_argument(
        "qrels",
        help="TREC qrels (or CSV/TSV/Parquet), a collection folder, irds:DATASET_ID (with "
        "ir_datasets installed), or a file of per-query scores (docs/scores.md)",
    )
    parser.add_argument(
        "runs",
        nargs="*",
        help="run files (TREC, .gz, CSV, TSV, Parquet); names of runs in a collection folder; "
        "after a scores file, more score files or the names of the runs to keep",
    )
    parser.add_argument(
        "-m",
        "--measure",
        action="append",
        dest="measures",
        metavar="MEASURE",
        help="e.g. RR@10, AP, nDCG@10, ERR@20, Hits@10, P@10, RR(rel=2)@10, or as trec_eval "
        "writes them: map, ndcg_cut.10, P.5,10 (repeatable); default: the collection's, "
        f"else {', '.join(s.DEFAULT_MEASURES)}",
    )
    parser.add_argument(
        "--format", choices=FORMATS, default="table", help="output format; default table"
    )
    judged = titled(parser, JUDGMENTS)
    judged.add_argument(
        "--judgments",
        nargs="?",
        const="",
        default=None,
        metavar="DB",
        help="overlay the qrels with a meeting store's judgments (latest wins); without DB, the "
        "collection folder's rankviz-notes.sqlite; default: the qrels alone",
    )
    judged.add_argument(
        "--qrels",
        dest="qrels_in_force",
        default=None,
        metavar="file|meeting|NAME|file+NAME",
        help=QRELS_IN_FORCE.help().replace("%", "%%")
        + " (default: meeting with --judgments, else file; the app's qrels= link value)",
    )
    judged.add_argument(
        "--correct-with",
        dest="correct_with",
        default=None,
        metavar="SOURCE",
        help="people's judgments that correct those in force (an LLM's, --qrels NAME): file, "
        "meeting, NAME, file+NAME, a qrels file or DIR:NAME; evaluate and compare then give "
        "each mean and paired delta corrected by the queries people judged, with intervals "
        "(PPI++, docs/judgments.md); default: none, the judgments in force alone",
    )


def conventions(parser: argparse.ArgumentParser, *, ties: bool = True) -> None:
    group = titled(parser, CONVENTIONS)
    if ties:
        add(group, s.TIES)
    add(group, s.MISSING)
    add(group, s.REL, note=" (or the collection's)")
    add(group, s.GAIN)
    add(group, s.GMAX, note=" (or the collection's)")
    add(group, s.DEPTH, metavar="N")
    group.add_argument(
        "--ignore-identical-ids",
        action="store_const",
        const=True,
        default=None,
        dest="ignore_identical_ids",
        help=s.IGNORE_IDENTICAL_IDS.help(),
    )


def scores(parser: argparse.ArgumentParser) -> None:
    group = titled(parser, SCORES)
    group.add_argument(
        "--scores",
        action="append",
        default=[],
        metavar="FILE",
        help="a file of per-query scores (any evaluator's: docs/scores.md) whose scores stand "
        "beside the measures computed from the runs, named as it names them; repeatable; "
        "default: none",
    )
    group.add_argument(
        "--lower-is-better",
        action="append",
        default=[],
        metavar="MEASURE",
        help="a score read from a scores file where less is better (a latency, a cost); "
        "repeatable; default: none (higher is better)",
    )
    group.add_argument(
        "--diversity",
        metavar="FILE",
        help="diversity qrels (topic subtopic docno judgment, as ndeval reads them) for ndeval's "
        "measures beside the others (-m alpha-nDCG@20, ERR-IA@20, NRBP, ...); default: a "
        "collection's subtopics.txt",
    )
    group.add_argument(
        "--judgment-groups",
        metavar="FILE",
        help="trec_eval's judgment groups (qid group docno rel, its -R qrels_jg file) for its "
        "measures beside the others (-m map_avgjg, P_avgjg_10, Rprec_mult_avgjg_0.50); default: "
        "a collection's qrels_jg.txt",
    )
    group.add_argument(
        "--preferences",
        metavar="FILE",
        help="trec_eval's preference judgments (qid group subgroup docno level, its -R prefs file) "
        "for its measures beside the others (-m prefs_simp, prefs_pair, prefs_avgjg, ...); "
        "default: a collection's prefs.txt",
    )
    group.add_argument(
        "--score-range",
        action="append",
        default=[],
        metavar="NAME=LOW:HIGH",
        help="the range of a score read from a scores file (nugget_all=0:1): a value outside is "
        "an error naming its line; repeatable; default: none (a collection's [scores.range])",
    )


def checked(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--no-check",
        action="store_true",
        help="skip the checks (rankviz check) that run first and print their warnings and errors "
        "to stderr",
    )


def ranks(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--ranks",
        action="store_true",
        help="also print each measure's runs by mean with their rank, a rank interval (paired "
        "bootstrap over queries, seeded by --seed) and tie groups (letters from the randomised "
        "Tukey HSD: runs sharing one are not significantly different); default: off",
    )


def grouping(parser: argparse.ArgumentParser) -> None:
    group = titled(parser, GROUPS)
    group.add_argument(
        "--groups",
        default=None,
        metavar="FILE",
        help="query groups file: qid plus categorical columns; default: the collection's",
    )
    add(group, s.GROUP_BY)
    group.add_argument(
        "--aggregate",
        default=None,
        metavar="query|macro|weights[:FILE]",
        help=s.AGGREGATE.help() + " (weights: the collection's query_weights.tsv, or weights:FILE)",
    )


def test_flags(
    parser: argparse.ArgumentParser, *, test: Option = t.TEST, resamples: Option = t.RESAMPLES
) -> None:
    parser.add_argument(
        "--baseline", default=None, help="name of the baseline run; default: the first run"
    )
    add(parser, test)
    add(parser, t.CORRECTION)
    add(parser, t.ALPHA)
    add(parser, resamples)
