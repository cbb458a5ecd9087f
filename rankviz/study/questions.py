"""The study's questions, as one table: every question a front end asks of a
:class:`~rankviz.study.study.Study` is an entry here (:class:`~rankviz.study.question.Question`),
its plain function kept beside the analysis it fronts, as scipy.stats keeps its functions.

Ask with the entry: ``study.ask(TIE_REPORT, test)``, or in the app ``ctx.ask(TIE_REPORT, test)``,
which keys its cache on what the entry says the answer follows. A new report is an analysis
(:mod:`rankviz.analyses`), its function and entry in a module of this folder, a line here, a page
and a renderer (docs/architecture.md).
"""

from __future__ import annotations

from rankviz.study.chance_levels import CHANCE, CHANCE_REVISED
from rankviz.study.check_questions import (
    CHECK,
    FACTS,
    THINLY_JUDGED,
    THINLY_JUDGED_IN,
    judged_share_measures,
)
from rankviz.study.corrected_questions import (
    CORRECTED_DELTAS,
    CORRECTED_MEANS,
    DRAWN_TO_JUDGE,
    QUERIES_TO_JUDGE,
)
from rankviz.study.feature_reports import FEATURE_REPORT, QUERY_FEATURES
from rankviz.study.meeting_questions import MEETING_REPORT
from rankviz.study.passes import FROM_PASSES, RUN_PASS
from rankviz.study.question import Follows, Question, Reads
from rankviz.study.ranking_reports import (
    ALIGNED,
    INFER_TASK,
    METRIC_REPORT,
    OVERLAP,
    PRECISION_RECALL,
    PROTOCOL,
    RANK_REPORT,
    TIE_REPORT,
    UNJUDGED_REPORT,
)
from rankviz.study.repro_reports import REPRODUCTION
from rankviz.study.run_files import BYTES_TO_READ, RUN_HEADERS
from rankviz.study.value_questions import (
    ANOVA,
    BEATS,
    BEST_PER_MEASURE,
    COMPARE,
    EFFECT_SIZES,
    PAIR,
    PAIRED_TESTS,
    PAIRED_TESTS_BY_GROUP,
    QUERIES_NEEDED,
    STANDINGS,
    VALUES_EVIDENCE,
    VERDICT_MARKS,
)

#: Every question of a study: each entry is named as its function, in capitals.
QUESTIONS: tuple[Question, ...] = (
    ALIGNED,
    ANOVA,
    BEATS,
    BEST_PER_MEASURE,
    BYTES_TO_READ,
    CHANCE,
    CHANCE_REVISED,
    CHECK,
    COMPARE,
    CORRECTED_DELTAS,
    CORRECTED_MEANS,
    DRAWN_TO_JUDGE,
    EFFECT_SIZES,
    FACTS,
    FEATURE_REPORT,
    FROM_PASSES,
    INFER_TASK,
    MEETING_REPORT,
    METRIC_REPORT,
    OVERLAP,
    PAIR,
    PAIRED_TESTS,
    PAIRED_TESTS_BY_GROUP,
    PRECISION_RECALL,
    PROTOCOL,
    QUERIES_NEEDED,
    QUERIES_TO_JUDGE,
    QUERY_FEATURES,
    RANK_REPORT,
    REPRODUCTION,
    RUN_HEADERS,
    RUN_PASS,
    STANDINGS,
    THINLY_JUDGED,
    THINLY_JUDGED_IN,
    TIE_REPORT,
    UNJUDGED_REPORT,
    VALUES_EVIDENCE,
    VERDICT_MARKS,
)

__all__ = [
    "ALIGNED",
    "ANOVA",
    "BEATS",
    "BEST_PER_MEASURE",
    "BYTES_TO_READ",
    "CHANCE",
    "CHANCE_REVISED",
    "CHECK",
    "COMPARE",
    "CORRECTED_DELTAS",
    "CORRECTED_MEANS",
    "DRAWN_TO_JUDGE",
    "EFFECT_SIZES",
    "FACTS",
    "FEATURE_REPORT",
    "FROM_PASSES",
    "Follows",
    "INFER_TASK",
    "MEETING_REPORT",
    "METRIC_REPORT",
    "OVERLAP",
    "PAIR",
    "PAIRED_TESTS",
    "PAIRED_TESTS_BY_GROUP",
    "PRECISION_RECALL",
    "PROTOCOL",
    "QUERIES_NEEDED",
    "QUERIES_TO_JUDGE",
    "QUERY_FEATURES",
    "QUESTIONS",
    "Question",
    "RANK_REPORT",
    "REPRODUCTION",
    "RUN_HEADERS",
    "RUN_PASS",
    "Reads",
    "STANDINGS",
    "THINLY_JUDGED",
    "THINLY_JUDGED_IN",
    "TIE_REPORT",
    "UNJUDGED_REPORT",
    "VALUES_EVIDENCE",
    "VERDICT_MARKS",
    "judged_share_measures",
]
