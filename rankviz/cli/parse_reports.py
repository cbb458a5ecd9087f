"""The commands that report: app, agreement, ties, metrics-report, unjudged, report, measures."""

from __future__ import annotations

from rankviz.cli.flags import (
    FORMATS,
    add,
    conventions,
    grouping,
    inputs,
    scores,
    test_flags,
)
from rankviz.cli.parse_meeting import JUDGES
from rankviz.settings import eval_settings as s
from rankviz.settings import report_settings as r
from rankviz.settings import significance_settings as t


def add_report_commands(commands) -> None:
    """``app``, ``agreement``, ``ties``, ``metrics-report``, ``unjudged``, ``report``,
    ``measures``."""
    _add_app_command(commands)
    _add_report_commands(commands)


def _add_app_command(commands) -> None:
    """``app``: the server, its collections, sign-in, records and scheduler."""
    ap = commands.add_parser(
        "app", help="start the app in the browser: the sample collection, or the collections given"
    )
    ap.add_argument(
        "data",
        nargs="*",
        metavar="DIR",
        help="collection folders (or irds:DATASET_ID) to serve, and nothing beside them; with "
        "none: the sample collections (a checkout's, else the Cranfield collection the package "
        "ships)",
    )
    ap.add_argument(
        "--host",
        default="127.0.0.1",
        metavar="ADDRESS",
        help="the address to listen on; default 127.0.0.1 (this machine only). 0.0.0.0 serves "
        "every interface: without --auth, anyone who reaches the machine can open the collections "
        "and record judgments, which rankviz then says in one warning and on every page",
    )
    ap.add_argument(
        "--auth",
        default=None,
        metavar="FILE",
        help="sign in through an OpenID Connect provider (Google, Microsoft Entra, Okta, "
        "Keycloak, GitLab...): a .toml file with Streamlit's [auth] section; each collection's "
        "[access] in collection.toml says who views, judges and owns it (docs/team-server.md); "
        "default: no sign-in, whoever uses the app records under the name they type",
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
        help="where the meetings' records live: a .sqlite file for every collection, or a folder "
        "with one per collection; default: each collection folder's rankviz-notes.sqlite",
    )
    ap.add_argument(
        "--scheduler",
        default=None,
        metavar="ADDRESS",
        help="a running Dask scheduler (tcp://host:8786) whose workers read and evaluate the runs "
        "(they must see the collection folders at the same paths); default: this server",
    )
    ap.add_argument(
        "--no-browser",
        action="store_true",
        help="do not open a browser tab (a server); default: open one",
    )


def _add_report_commands(commands) -> None:
    """``agreement``, ``ties``, ``metrics-report``, ``unjudged``, ``report``, ``measures``."""
    ag = commands.add_parser(
        "agreement",
        help="two sources of judgments side by side: agreement, kappa, confusion, coverage, and "
        "the runs' means, orderings and verdicts under each",
    )
    ag.add_argument("a", metavar="QRELS_A", help=JUDGES)
    ag.add_argument("b", metavar="QRELS_B", help="the other source, written the same way")
    ag.add_argument(
        "runs",
        nargs="*",
        help="run files, or names of runs of QRELS_A's collection; default: its runs (a plain "
        "file: no runs, the judgments alone)",
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
    conventions(ag)
    add(ag, r.K, "-k", "--cutoff", note=" (the top K whose holes in A's judgments B may fill)")
    add(ag, t.TEST)
    add(ag, t.CORRECTION)
    add(ag, t.ALPHA)
    add(ag, t.RESAMPLES)
    add(ag, s.SEED)

    ti = commands.add_parser(
        "ties", help="how much each run's values depend on the order of equal scores"
    )
    inputs(ti)
    conventions(ti, ties=False)
    add(ti, r.K, "-k", "--cutoff")
    add(ti, r.QUERIES_LISTED)
    add(ti, r.TIE_TRIALS)
    add(ti, s.SEED)
    test_flags(ti)
    grouping(ti)

    mr = commands.add_parser(
        "metrics-report",
        help="which measure fits the task: agreement, discriminative power, stability",
    )
    inputs(mr)
    conventions(mr, ties=False)
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
    grouping(mr)
    scores(mr)

    un = commands.add_parser(
        "unjudged", help="how much each run's numbers rest on documents the qrels do not judge"
    )
    inputs(un)
    conventions(un)
    add(un, r.K, "-k", "--cutoff")
    add(un, r.FILL, "--grade")
    add(un, r.QUERIES_LISTED, note=" (documents and queries to judge first)")
    test_flags(un)
    add(un, s.SEED)
    grouping(un)

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
    conventions(rp)
    test_flags(rp)
    add(rp, s.SEED)

    commands.add_parser(
        "measures", help="the measure families: names, definitions, conventions, parameters"
    )
