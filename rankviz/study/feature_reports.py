"""On what kind of query a run wins: the queries' features a study knows without set-up, and a
run's per-query delta (or a measure's value) against them
(:func:`rankviz.analyses.features.feature_report`). Mixed into
:class:`~rankviz.study.run_study.Study`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

import numpy as np

from rankviz.errors import OptionError
from rankviz.evaluation.result import Evaluation
from rankviz.measures import Measure, parse
from rankviz.study.reports import Asked

if TYPE_CHECKING:
    import pandas as pd

    from rankviz.analyses.features import FeatureReport


class Featured(Asked, Protocol):
    @property
    def ranked(self) -> bool: ...
    def evaluation(
        self, names: Sequence[str] | None = None, *, measures: Sequence[Measure] | None = None
    ) -> Evaluation: ...
    def query_features(self, measure: Measure, *, k: int = 10) -> pd.DataFrame: ...


class Features:
    """The queries' features and a value against them."""

    def query_features(self: Featured, measure: Measure, *, k: int = 10) -> pd.DataFrame:
        """qid x feature: ``terms`` (the query's length, where its text is known), ``relevant``
        and ``judged`` (documents the qrels judge relevant, and at all), ``judged@K`` (the runs'
        mean share of their top K the qrels judge), ``difficulty`` (the runs' mean of
        ``measure``), then the query groups' columns (numbers where every value is one)."""
        import pandas as pd

        evaluation = self.evaluation(measures=[measure])
        matrix = evaluation.matrix(measure, complete=False)
        frame = pd.DataFrame(index=matrix.index)
        texts = self.collection.queries if self.collection is not None else {}
        if texts:
            frame["terms"] = [float(len(texts.get(q, "").split())) or np.nan for q in frame.index]
        if self.ranked:
            counts = parse(f"Judged@{k}"), parse("NumRel", defaults={"rel": self.settings.rel})
            counted = self.evaluation(measures=list(counts))
            frame["relevant"] = counted.matrix(counts[1], complete=False).iloc[:, 0]
            grades = self.qrels.grade
            judged = np.bincount(
                self.qrels.qid_codes[grades >= 0], minlength=len(self.qrels.query_ids)
            )
            by_query = dict(zip(map(str, self.qrels.query_ids), judged, strict=False))
            frame["judged"] = [float(by_query.get(q, 0)) for q in frame.index]
            frame[f"judged@{k}"] = counted.matrix(counts[0], complete=False).mean(axis=1)
        frame["difficulty"] = matrix.mean(axis=1)
        if self.groups is not None:
            for name in self.groups.columns:
                column = self.groups.frame[name].reindex(frame.index)
                numbers = pd.to_numeric(column, errors="coerce")
                held = column.notna()
                frame[name] = numbers if numbers[held].notna().all() else column
        return frame

    def feature_report(
        self: Featured,
        measure: Measure,
        run: str,
        baseline: str | None = None,
        *,
        k: int = 10,
        bins: int = 5,
        confidence_level: float = 0.95,
    ) -> FeatureReport:
        """``run``'s per-query delta against ``baseline`` on ``measure`` (its value, without a
        baseline) against every feature of :meth:`query_features`."""
        from rankviz.analyses.features import feature_report

        for name in (run, baseline):
            if name is not None and name not in self.run_names:
                raise OptionError(f"no run {name!r}; runs: {', '.join(self.run_names)}")
        matrix = self.evaluation(measures=[measure]).matrix(measure, complete=False)
        values = matrix[run] - matrix[baseline] if baseline else matrix[run]
        label = f"{measure} of {run}" + (f" - {baseline}" if baseline else "")
        return feature_report(
            values.dropna(),
            self.query_features(measure, k=k),
            value=label,
            bins=bins,
            confidence_level=confidence_level,
        )
