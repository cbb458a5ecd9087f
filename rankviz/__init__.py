"""rankviz: compare ranking runs with trec_eval-exact measures, from Python, the CLI or the browser.

import rankviz as rv
ev = rv.evaluate("qrels.txt", ["bm25.run", "dense.run"], ["RR@10", "nDCG@10"], ties="expected")
ev.means()                      # runs x measures
rv.compare(ev, test="t").table  # significance of every run against the first
study = rv.Study.open(rv.StudyRequest(rv.sample_path("cranfield")))
study.ask(rv.TIE_REPORT)        # a question of the study: the reports the CLI and the app show
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # what a type checker and an editor read; at run time, loaded on first use
    from rankviz.analyses.comparisons import Comparison, compare
    from rankviz.errors import CollectionError, FormatError, MeasureError, OptionError, RankvizError
    from rankviz.evaluation.engines import evaluate_sources
    from rankviz.evaluation.evaluate import evaluate, evaluate_tables
    from rankviz.evaluation.pieces import RunSource
    from rankviz.evaluation.result import Evaluation
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
    from rankviz.ranking.ordering import rank
    from rankviz.ranking.ranking_table import TIE_POLICIES, RankingTable
    from rankviz.settings.engine_settings import EngineSettings
    from rankviz.settings.eval_settings import EvalSettings
    from rankviz.settings.report_settings import MetricSettings, TieReportSettings, UnjudgedSettings
    from rankviz.settings.significance_settings import TestSettings
    from rankviz.study.questions import *  # noqa: F403
    from rankviz.study.request import StudyRequest
    from rankviz.study.study import Study

from rankviz.study import QUESTION_NAMES

#: Each public name and the module it lives in: ``import rankviz`` loads none of them, so a command
#: that needs only a few (``rankviz trec-eval``) never pays for pandas, scipy or the study.
_EXPORTS = {
    "EngineSettings": "rankviz.settings.engine_settings",
    "evaluate_sources": "rankviz.evaluation.engines",
    "CollectionError": "rankviz.errors",
    "FormatError": "rankviz.errors",
    "MeasureError": "rankviz.errors",
    "OptionError": "rankviz.errors",
    "RankvizError": "rankviz.errors",
    "evaluate": "rankviz.evaluation.evaluate",
    "evaluate_tables": "rankviz.evaluation.evaluate",
    "Evaluation": "rankviz.evaluation.result",
    "Collection": "rankviz.io.collection",
    "open_collection": "rankviz.io.collection",
    "as_qrels": "rankviz.io.frames",
    "as_run": "rankviz.io.frames",
    "qrels_from_dict": "rankviz.io.frames",
    "qrels_from_frame": "rankviz.io.frames",
    "run_from_dict": "rankviz.io.frames",
    "run_from_frame": "rankviz.io.frames",
    "QueryGroups": "rankviz.io.groups",
    "read_groups": "rankviz.io.groups",
    "read_weights": "rankviz.io.groups",
    "Qrels": "rankviz.io.model",
    "Run": "rankviz.io.model",
    "read_qrels": "rankviz.io.readers",
    "read_run": "rankviz.io.readers",
    "sample_path": "rankviz.io.samples",
    "Measure": "rankviz.measures",
    "parse": "rankviz.measures",
    "rank": "rankviz.ranking.ordering",
    "RunSource": "rankviz.evaluation.pieces",
    "TIE_POLICIES": "rankviz.ranking.ranking_table",
    "RankingTable": "rankviz.ranking.ranking_table",
    "MetricSettings": "rankviz.settings.report_settings",
    "TieReportSettings": "rankviz.settings.report_settings",
    "UnjudgedSettings": "rankviz.settings.report_settings",
    "EvalSettings": "rankviz.settings.eval_settings",
    "TestSettings": "rankviz.settings.significance_settings",
    "Study": "rankviz.study.study",
    "StudyRequest": "rankviz.study.request",
    **{name: "rankviz.study.questions" for name in QUESTION_NAMES},
    "compare": "rankviz.analyses.comparisons",
    "Comparison": "rankviz.analyses.comparisons",
}


def __getattr__(name: str) -> object:
    """A public name, its module imported on first use (PEP 562); the version read from the
    installed metadata on first use too (importlib.metadata costs a drop-in's start 40 ms)."""
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("rankviz")
        except PackageNotFoundError:  # a checkout that was never installed
            return "0+unknown"
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'rankviz' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "__version__",  # noqa: F405 (read from the metadata by __getattr__)
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
    "Study",
    "StudyRequest",
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
    *QUESTION_NAMES,
]
