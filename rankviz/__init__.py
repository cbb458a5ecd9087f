"""rankviz: compare ranking runs with trec_eval-exact measures, from Python, the CLI or the browser.

import rankviz as rv
ev = rv.evaluate("qrels.txt", ["bm25.run", "dense.run"], ["RR@10", "nDCG@10"], ties="expected")
ev.means()                      # runs x measures
rv.compare(ev, test="t").table  # significance of every run against the first
rv.Study.open(rv.sample_path("cranfield")).tie_report()  # the reports the CLI and the app show
"""

from importlib.metadata import PackageNotFoundError, version

from rankviz.engine_settings import EngineSettings
from rankviz.engines import evaluate_sources
from rankviz.errors import CollectionError, FormatError, MeasureError, OptionError, RankvizError
from rankviz.evaluate import evaluate, evaluate_tables
from rankviz.evaluation import Evaluation
from rankviz.io.collection import Collection, open_collection
from rankviz.io.frames import (
    as_qrels,
    as_run,
    qrels_from_dict,
    qrels_from_frame,
    run_from_dict,
    run_from_frame,
)
from rankviz.io.groups import QueryGroups, read_groups, read_weights
from rankviz.io.model import Qrels, Run
from rankviz.io.readers import read_qrels, read_run
from rankviz.io.samples import sample_path
from rankviz.measures import Measure, parse
from rankviz.ordering import rank
from rankviz.pieces import RunSource
from rankviz.ranking import TIE_POLICIES, RankingTable
from rankviz.report_settings import MetricSettings, TieReportSettings, UnjudgedSettings
from rankviz.scores_study import ScoresStudy
from rankviz.settings import EvalSettings
from rankviz.significance_options import TestSettings
from rankviz.study import Study

try:
    __version__ = version("rankviz")
except PackageNotFoundError:  # a checkout that was never installed
    __version__ = "0+unknown"


def __getattr__(name: str):
    """``compare`` and ``Comparison`` load scipy: imported on first use, so ``import rankviz`` stays
    light."""
    if name in ("compare", "Comparison"):
        from rankviz.analyses import comparisons

        return getattr(comparisons, name)
    raise AttributeError(f"module 'rankviz' has no attribute {name!r}")


__all__ = [
    "__version__",
    "TIE_POLICIES",
    "Collection",
    "CollectionError",
    "Comparison",
    "EngineSettings",
    "EvalSettings",
    "Evaluation",
    "FormatError",
    "Measure",
    "MeasureError",
    "MetricSettings",
    "OptionError",
    "Qrels",
    "QueryGroups",
    "RankingTable",
    "RankvizError",
    "Run",
    "RunSource",
    "ScoresStudy",
    "Study",
    "TestSettings",
    "TieReportSettings",
    "UnjudgedSettings",
    "as_qrels",
    "as_run",
    "compare",
    "evaluate",
    "evaluate_sources",
    "evaluate_tables",
    "open_collection",
    "parse",
    "qrels_from_dict",
    "qrels_from_frame",
    "rank",
    "read_groups",
    "read_qrels",
    "read_run",
    "read_weights",
    "run_from_dict",
    "run_from_frame",
    "sample_path",
]
