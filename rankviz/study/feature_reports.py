"""On what kind of query a run wins: the queries' features a study knows without set-up, and a
run's per-query delta (or a measure's value) against them
(:func:`rankviz.analyses.features.feature_report`). Plain functions over a study and entries of
:data:`rankviz.study.questions.QUESTIONS`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from rankviz.errors import OptionError
from rankviz.measures import Measure, parse
from rankviz.study.question import Question, Reads
from rankviz.study.study import Study

if TYPE_CHECKING:
    import pandas as pd

    from rankviz.analyses.features import FeatureReport


def query_features(study: Study, measure: Measure, *, k: int = 10) -> pd.DataFrame:
    """qid x feature: ``terms`` (the query's length, where its text is known), ``relevant``
    and ``judged`` (documents the qrels judge relevant, and at all), ``judged@K`` (the runs'
    mean share of their top K the qrels judge), ``difficulty`` (the runs' mean of
    ``measure``), then the query groups' columns (numbers where every value is one)."""
    import pandas as pd

    evaluation = study.evaluation(measures=[measure])
    matrix = evaluation.matrix(measure, complete=False)
    frame = pd.DataFrame(index=matrix.index)
    texts = study.collection.queries if study.collection is not None else {}
    if texts:
        frame["terms"] = [float(len(texts.get(q, "").split())) or np.nan for q in frame.index]
    if study.ranked:
        counts = parse(f"Judged@{k}"), parse("NumRel", defaults={"rel": study.settings.rel})
        counted = study.evaluation(measures=list(counts))
        frame["relevant"] = counted.matrix(counts[1], complete=False).iloc[:, 0]
        grades = study.qrels.grade
        judged = np.bincount(
            study.qrels.qid_codes[grades >= 0], minlength=len(study.qrels.query_ids)
        )
        by_query = dict(zip(map(str, study.qrels.query_ids), judged, strict=False))
        frame["judged"] = [float(by_query.get(q, 0)) for q in frame.index]
        frame[f"judged@{k}"] = counted.matrix(counts[0], complete=False).mean(axis=1)
    frame["difficulty"] = matrix.mean(axis=1)
    if study.groups is not None:
        for name in study.groups.columns:
            column = study.groups.frame[name].reindex(frame.index)
            numbers = pd.to_numeric(column, errors="coerce")
            held = column.notna()
            frame[name] = numbers if numbers[held].notna().all() else column
    return frame


def feature_report(
    study: Study,
    measure: Measure,
    run: str,
    baseline: str | None = None,
    *,
    k: int = 10,
    bins: int = 5,
    confidence_level: float = 0.95,
) -> FeatureReport:
    """``run``'s per-query delta against ``baseline`` on ``measure`` (its value, without a
    baseline) against every feature of :func:`query_features`."""
    from rankviz.analyses import features

    for name in (run, baseline):
        if name is not None and name not in study.run_names:
            raise OptionError(f"no run {name!r}; runs: {', '.join(study.run_names)}")
    matrix = study.evaluation(measures=[measure]).matrix(measure, complete=False)
    values = matrix[run] - matrix[baseline] if baseline else matrix[run]
    label = f"{measure} of {run}" + (f" - {baseline}" if baseline else "")
    return features.feature_report(
        values.dropna(),
        query_features(study, measure, k=k),
        value=label,
        bins=bins,
        confidence_level=confidence_level,
    )


QUERY_FEATURES = Question(query_features, Reads.VALUES)
FEATURE_REPORT = Question(feature_report, Reads.VALUES)
