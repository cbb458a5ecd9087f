"""The study: the orchestration every front end shares (opening the inputs, the qrels in force,
the reports and questions), and its public face: what a front end names comes from here.

:class:`Study` (of runs and qrels, or of per-query scores alone), the request it opens from
(:class:`StudyRequest`, :class:`Reading`), the questions it answers (the entries of
:data:`QUESTIONS`, asked with ``study.ask(TIE_REPORT, ...)``); the types a study is opened from and
hands out (qrels, runs, measures, a collection, the meeting's record, an
evaluation, each report) and the thresholds its reports are read with. Each name is loaded on
first use (PEP 562), so a module of this folder imports without the rest and a front end's import
costs nothing until the name is used.
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rankviz.analyses.agreement import AgreementReport
    from rankviz.analyses.checks import TOP_K, CheckReport
    from rankviz.analyses.comparisons import Comparison
    from rankviz.analyses.corrected import CorrectedDeltas, CorrectedMeans
    from rankviz.analyses.deltas import PairDeltas
    from rankviz.analyses.metric_choice import MetricReport
    from rankviz.analyses.reproducibility import ALPHA, ER_BAND
    from rankviz.analyses.significance import ASSUMPTIONS
    from rankviz.analyses.standings import Standings
    from rankviz.analyses.summary import Summary
    from rankviz.analyses.task import Task
    from rankviz.analyses.ties import TieReport
    from rankviz.analyses.unjudged import JUDGED_WARNING, UnjudgedReport
    from rankviz.analyses.values_evidence import ValuesEvidence
    from rankviz.analyses.verdicts import MIN_GROUP_QUERIES
    from rankviz.evaluation.result import Evaluation
    from rankviz.io.access import Access, Role
    from rankviz.io.collection import Collection
    from rankviz.io.collection_layout import COLLECTION_FILES, holds_collection
    from rankviz.io.docs import Documents
    from rankviz.io.grades import GRADE_RANGE, GradeError, Scale
    from rankviz.io.groups import QueryGroups
    from rankviz.io.meeting import (
        STORE_NAME,
        GradeConflict,
        Lock,
        MeetingError,
        MeetingStore,
        NoteConflict,
        RecordVersion,
    )
    from rankviz.io.model import Qrels, Run
    from rankviz.io.runs_when_asked import RunsWhenAsked
    from rankviz.io.score_rules import ScoreRules
    from rankviz.measures import Measure
    from rankviz.measures.score import Score
    from rankviz.ranking.ranking_table import RankingTable
    from rankviz.study.check_questions import judged_share_measures
    from rankviz.study.question import Follows, Question, Reads
    from rankviz.study.questions import *  # noqa: F403
    from rankviz.study.reading import Reading
    from rankviz.study.request import StudyRequest
    from rankviz.study.study import Study, Ties

#: The names of the questions' table (:mod:`rankviz.study.questions`), which ``rankviz`` names too.
QUESTION_NAMES = (
    *("ALIGNED", "ANOVA", "BEATS", "BEST_PER_MEASURE", "BYTES_TO_READ", "CHANCE"),
    *("CHANCE_REVISED", "CHECK", "COMPARE", "CORRECTED_DELTAS", "CORRECTED_MEANS"),
    *("DRAWN_TO_JUDGE", "EFFECT_SIZES", "FACTS", "FEATURE_REPORT"),
    *("FROM_PASSES", "INFER_TASK", "MEETING_REPORT", "METRIC_REPORT", "OVERLAP", "PAIR"),
    *("PAIRED_TESTS", "PAIRED_TESTS_BY_GROUP", "PRECISION_RECALL", "PROTOCOL"),
    *("QUERIES_NEEDED", "QUERIES_TO_JUDGE", "QUERY_FEATURES", "RANK_REPORT", "REPRODUCTION"),
    *("RUN_HEADERS", "RUN_PASS", "STANDINGS", "THINLY_JUDGED", "THINLY_JUDGED_IN", "TIE_REPORT"),
    *("UNJUDGED_REPORT", "VALUES_EVIDENCE", "VERDICT_MARKS", "QUESTIONS"),
)

#: Each name of the face and the module that defines it.
_FACE = {
    # the study, how it opens and the questions it answers
    "Reading": "rankviz.study.reading",
    "StudyRequest": "rankviz.study.request",
    "Study": "rankviz.study.study",
    "Ties": "rankviz.study.study",
    **{name: "rankviz.study.questions" for name in QUESTION_NAMES},
    "Follows": "rankviz.study.question",
    "Question": "rankviz.study.question",
    "Reads": "rankviz.study.question",
    "judged_share_measures": "rankviz.study.check_questions",
    # what a study is opened from and reads
    "Access": "rankviz.io.access",
    "Role": "rankviz.io.access",
    "Collection": "rankviz.io.collection",
    "COLLECTION_FILES": "rankviz.io.collection_layout",
    "holds_collection": "rankviz.io.collection_layout",
    "Documents": "rankviz.io.docs",
    "GRADE_RANGE": "rankviz.io.grades",
    "GradeError": "rankviz.io.grades",
    "Scale": "rankviz.io.grades",
    "QueryGroups": "rankviz.io.groups",
    "GradeConflict": "rankviz.io.meeting",
    "Lock": "rankviz.io.meeting",
    "MeetingError": "rankviz.io.meeting",
    "MeetingStore": "rankviz.io.meeting",
    "NoteConflict": "rankviz.io.meeting",
    "RecordVersion": "rankviz.io.meeting",
    "STORE_NAME": "rankviz.io.meeting",
    "Qrels": "rankviz.io.model",
    "Run": "rankviz.io.model",
    "RunsWhenAsked": "rankviz.io.runs_when_asked",
    "ScoreRules": "rankviz.io.score_rules",
    "Measure": "rankviz.measures",
    "Score": "rankviz.measures.score",
    "RankingTable": "rankviz.ranking.ranking_table",
    # what it hands out: numbers, reports and the thresholds they are read with
    "AgreementReport": "rankviz.analyses.agreement",
    "CheckReport": "rankviz.analyses.checks",
    "TOP_K": "rankviz.analyses.checks",
    "Comparison": "rankviz.analyses.comparisons",
    "CorrectedDeltas": "rankviz.analyses.corrected",
    "CorrectedMeans": "rankviz.analyses.corrected",
    "PairDeltas": "rankviz.analyses.deltas",
    "MetricReport": "rankviz.analyses.metric_choice",
    "ALPHA": "rankviz.analyses.reproducibility",
    "ER_BAND": "rankviz.analyses.reproducibility",
    "ASSUMPTIONS": "rankviz.analyses.significance",
    "Standings": "rankviz.analyses.standings",
    "Summary": "rankviz.analyses.summary",
    "Task": "rankviz.analyses.task",
    "TieReport": "rankviz.analyses.ties",
    "JUDGED_WARNING": "rankviz.analyses.unjudged",
    "UnjudgedReport": "rankviz.analyses.unjudged",
    "ValuesEvidence": "rankviz.analyses.values_evidence",
    "MIN_GROUP_QUERIES": "rankviz.analyses.verdicts",
    "Evaluation": "rankviz.evaluation.result",
}


def __getattr__(name: str) -> object:
    """A name of the face, its module imported on first use (PEP 562)."""
    module = _FACE.get(name)
    if module is None:
        raise AttributeError(f"module 'rankviz.study' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)


__all__ = [
    "ALPHA",
    "ASSUMPTIONS",
    "Access",
    "AgreementReport",
    "COLLECTION_FILES",
    "CheckReport",
    "Collection",
    "Comparison",
    "CorrectedDeltas",
    "CorrectedMeans",
    "Documents",
    "ER_BAND",
    "Evaluation",
    "GRADE_RANGE",
    "GradeConflict",
    "GradeError",
    "JUDGED_WARNING",
    "Lock",
    "MIN_GROUP_QUERIES",
    "Measure",
    "MeetingError",
    "MeetingStore",
    "MetricReport",
    "NoteConflict",
    "PairDeltas",
    "Qrels",
    "QueryGroups",
    "RankingTable",
    "Reading",
    "RecordVersion",
    "Role",
    "Run",
    "RunsWhenAsked",
    "STORE_NAME",
    "Scale",
    "Score",
    "ScoreRules",
    "Standings",
    "Study",
    "StudyRequest",
    "Summary",
    "TOP_K",
    "Task",
    "TieReport",
    "Ties",
    "UnjudgedReport",
    "ValuesEvidence",
    "holds_collection",
    *QUESTION_NAMES,
    "Follows",
    "Question",
    "Reads",
    "judged_share_measures",
]
