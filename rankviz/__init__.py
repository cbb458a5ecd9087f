"""rankviz: compare ranking runs with trec_eval-exact measures, from Python, the CLI or the browser."""

from rankviz.errors import FormatError, MeasureError, OptionError, RankvizError
from rankviz.evaluate import Conventions, evaluate, per_query
from rankviz.groups import QueryGroups, read_groups, read_weights
from rankviz.io.readers import Qrels, Run, read_qrels, read_run
from rankviz.measures import Measure, parse
from rankviz.ranking import TIE_POLICIES, RankingTable, rank

__all__ = [
    "Conventions",
    "FormatError",
    "Measure",
    "MeasureError",
    "OptionError",
    "Qrels",
    "QueryGroups",
    "RankingTable",
    "RankvizError",
    "Run",
    "TIE_POLICIES",
    "evaluate",
    "parse",
    "per_query",
    "rank",
    "read_groups",
    "read_qrels",
    "read_run",
    "read_weights",
]
