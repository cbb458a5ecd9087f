"""The result every front end consumes: :class:`Evaluation`, per-query values of every run and
measure.

An evaluation holds, per measure, a queries x runs matrix of per-query values (trec_eval's query
order: qid ``strcmp`` order), the settings and measures in force, and what was not covered (run
queries the qrels do not judge, group-file queries that are not judged). Means come from its
:class:`~rankviz.evaluation.aggregate.Aggregation`, the one place a mean is computed. It is built by
:mod:`rankviz.evaluation.evaluate` and read by the Python API, the command line and the app.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from rankviz.errors import OptionError
from rankviz.evaluation.aggregate import Aggregation
from rankviz.evaluation.run_facts import RunFacts
from rankviz.io.groups import Coverage, QueryGroups
from rankviz.measures import Measure, parse
from rankviz.measures.score import Score
from rankviz.settings.eval_settings import ALL, EvalSettings

if TYPE_CHECKING:
    from pathlib import Path

    import pandas as pd

MeasureLike = Measure | str


def listed(names: Iterable[str], shown: int = 5) -> str:
    """A few names for a repr: ``a, b, c, ... (12)``."""
    names = list(names)
    return ", ".join(names[:shown]) + (f", ... ({len(names)})" if len(names) > shown else "")


def spread(trials: np.ndarray) -> np.ndarray:
    """Sample standard deviation over trials (axis 0); exactly 0 where every trial agrees.

    Values are taken relative to the first trial, which leaves the deviation unchanged but keeps
    rounding from showing a spread of 1e-17 for a query without ties. 0 for a single trial.
    """
    if len(trials) < 2:
        return np.zeros(trials.shape[1:])
    return (trials - trials[0]).std(axis=0, ddof=1)


@dataclass(frozen=True, eq=False)
class Evaluation:
    """Per-query values of every run and measure, under the settings in force.

    ``values[m]`` is queries x runs (rows: ``qids``; columns: ``runs``), NaN where a run has no
    ranking under ``missing="skip"``. Under ``ties="random"`` the values are means over the trials
    and ``trials[m]`` holds every trial (trials x queries x runs).

    Parameters
    ----------
    settings
        The conventions the values were computed under.
    measures
        The measures, in order.
    runs
        The runs' names, in order.
    qids
        The queries, the rows of every ``values[m]``.
    values
        Each measure's queries x runs values (by the measure's name).
    aggregation
        How the mean over queries is taken (each query once, by group, by weight).
    trials
        Under ``ties="random"``: each measure's trials x queries x runs values.
    ignored
        Per run: queries the qrels do not judge.
    coverage
        Of the groups or weights file.
    facts
        Per run: what the checks need, when gathered with the values.
    scores_notes
        Read from per-query scores (:meth:`from_scores`): where from, and their coverage.
    """

    settings: EvalSettings
    measures: tuple[Measure, ...]
    runs: tuple[str, ...]
    qids: np.ndarray
    values: Mapping[str, np.ndarray]
    aggregation: Aggregation = field(default_factory=Aggregation)
    trials: Mapping[str, np.ndarray] | None = None
    # per run: queries the qrels do not judge
    ignored: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    coverage: Coverage | None = None  # of the groups or weights file
    # per run: what the checks need, when gathered with the values
    facts: Mapping[str, RunFacts] | None = None
    # read from per-query scores (:meth:`from_scores`): where from, and their coverage
    scores_notes: tuple[str, ...] = ()

    @classmethod
    def from_scores(
        cls,
        *sources: str | Path | pd.DataFrame,
        runs: Sequence[str] | None = None,
        measures: Sequence[str] | None = None,
        settings: EvalSettings | None = None,
        lower_is_better: Sequence[str] = (),
        ranges: Mapping[str, Sequence[float]] | None = None,
        groups: QueryGroups | None = None,
        weights: Mapping[str, float] | None = None,
    ) -> Evaluation:
        """The evaluation of per-query scores from any evaluator (:mod:`rankviz.io.scores`).

        Parameters
        ----------
        sources
            Files of scores (a long or wide table, ``trec_eval -q`` or ir_measures ``-q`` output,
            pytrec_eval's JSON, a TREC AutoJudge leaderboard), or frames with a run and a query
            column (long: measure and value; wide: a column per measure).
        runs, measures
            Which to keep (default: all, in order of first appearance).
        settings
            ``missing`` (a query another run has a score for), ``aggregate`` and ``group_by``.
        lower_is_better
            Scores where less is better (a latency, a cost).
        ranges
            Each score's range where known (``{"nugget_all": (0, 1)}``): a value outside it is
            refused, naming its file and line.
        groups, weights
            What ``group_by`` and ``aggregate="weights"`` read.

        Returns
        -------
        The evaluation, with the sources and their coverage in :meth:`conventions`.
        """
        import pandas as pd

        from rankviz.evaluation.aggregate import aggregation_of
        from rankviz.evaluation.score_values import scored_values
        from rankviz.io.score_rules import score_rules
        from rankviz.io.scores import read_scores, scores_of_frame

        settings = settings or EvalSettings()
        found = scored_values(
            [
                scores_of_frame(s) if isinstance(s, pd.DataFrame) else read_scores(s)
                for s in sources
            ],
            runs=runs,
            measures=measures,
            settings=settings,
            rules=score_rules(lower_is_better, ranges),
        )
        return cls(
            settings,
            found.measures,
            found.runs,
            found.qids,
            found.values,
            aggregation=aggregation_of(settings, groups, weights),
            scores_notes=found.notes,
        )

    def __repr__(self) -> str:
        return (
            f"Evaluation({len(self.runs)} runs x {len(self.measures)} measures x {len(self.qids)} "
            f"queries; runs: {listed(self.runs)}; measures: {listed(map(str, self.measures))})"
        )

    def _repr_html_(self) -> str:
        """A notebook shows the means and the conventions in force (values escaped by pandas)."""
        import html

        notes = "".join(f"<br><small>{html.escape(line)}</small>" for line in self.conventions())
        return self.means().to_html(float_format=lambda v: f"{v:.4f}") + notes

    # --- per-query values --------------------------------------------------------------------

    def _key(self, measure: MeasureLike) -> str:
        if isinstance(measure, str) and measure in self.values:  # a score's own name
            return measure
        key = str(parse(measure, defaults=self.settings.measure_defaults))
        if key not in self.values:
            raise OptionError(
                f"{key} was not evaluated; measures: {', '.join(map(str, self.measures))}"
            )
        return key

    def aggregated(self, measure: MeasureLike, means):
        """``means`` (a number or an array of them) as the measure's aggregator shows a mean
        (exp of a mean of logs for a geometric mean; most measures' mean as it is)."""
        key = self._key(measure)
        found = next((m for m in self.measures if str(m) == key), None)
        if found is None or found.family.aggregator.name == "mean":
            return means
        if np.ndim(means) == 0:
            return found.aggregated(float(means))
        return np.vectorize(found.aggregated, otypes=[float])(means)

    def _column(self, run: str) -> int:
        if run not in self.runs:
            raise OptionError(f"no run named {run!r}; runs: {', '.join(self.runs)}")
        return self.runs.index(run)

    def run_values(self, measure: MeasureLike, run: str) -> tuple[np.ndarray, np.ndarray]:
        """(qids, values) of one run: every judged query, or under ``skip`` those it answers."""
        column = self.values[self._key(measure)][:, self._column(run)]
        keep = ~np.isnan(column)
        if keep.all():  # every query: the ids as held, read-only (a million not gathered again)
            held = self.qids.view()
            held.flags.writeable = False
            return held, column.copy()
        return self.qids[keep], column[keep]

    def matrix(self, measure: MeasureLike, *, complete: bool = True) -> pd.DataFrame:
        """Queries x runs values; ``complete`` keeps only the queries every run answers (paired
        tests)."""
        import pandas as pd

        frame = pd.DataFrame(
            self.values[self._key(measure)], index=self._qid_index, columns=list(self.runs)
        )
        return frame.dropna() if complete else frame

    @functools.cached_property
    def _qid_index(self) -> pd.Index:
        """The queries as a pandas index of the ids as held (object dtype under any pandas: pandas
        3's string dtype copies a million ids into Arrow, 0.3-0.5 s), made once."""
        import pandas as pd

        return pd.Index(self.qids, dtype=object, name="qid")

    def per_query(self, measure: MeasureLike, run: str) -> pd.Series:
        """The queries of :meth:`run_values` and their values, named by the measure."""
        self._column(run)  # an unknown run is an OptionError
        return self.matrix(measure, complete=False)[run].dropna().rename(self._key(measure))

    # --- means (all through the aggregation) -------------------------------------------------

    def mean(self, measure: MeasureLike, run: str) -> float:
        """The run's mean under the aggregate; NaN when it has no value at all (a score file that
        does not score this run on this measure)."""
        qids, values = self.run_values(measure, run)
        if not len(values):
            return float("nan")
        return float(self.aggregated(measure, self.aggregation.mean(values, qids)))

    def means(self) -> pd.DataFrame:
        """Runs x measures means under the aggregate in force."""
        import pandas as pd

        return pd.DataFrame(
            {str(m): [self.mean(m, run) for run in self.runs] for m in self.measures},
            index=pd.Index(self.runs, name="run"),
        )

    def mean_std(self, measure: MeasureLike, run: str) -> float | None:
        """Under random ties: the standard deviation over the trials of the run's mean; else
        None."""
        if self.trials is None:
            return None
        trials = self.trials[self._key(measure)][:, :, self._column(run)]
        keep = ~np.isnan(trials[0])
        means = self.aggregation.mean(trials[:, keep], self.qids[keep])
        return float(spread(np.asarray(self.aggregated(measure, means))))

    def query_std(self, measure: MeasureLike, run: str) -> np.ndarray | None:
        """Under random ties: each query's standard deviation over the trials (aligned with
        run_values)."""
        if self.trials is None:
            return None
        trials = self.trials[self._key(measure)][:, :, self._column(run)]
        return spread(trials[:, ~np.isnan(trials[0])])

    def group_means(self, measure: MeasureLike) -> pd.DataFrame:
        """Groups x runs means with the number of queries per group (``queries``), under a
        grouping."""
        import pandas as pd

        if self.aggregation.group_of is None:
            raise OptionError("group means need a group column (group_by)")
        columns = {}
        for run in self.runs:
            qids, values = self.run_values(measure, run)
            means = self.aggregation.group_means(values, qids)
            columns[run] = {g: self.aggregated(measure, m) for g, m in means.items()}
        frame = pd.DataFrame(columns).rename_axis("group")
        counts = pd.Series(self.aggregation.groups(self.matrix(measure).index)).value_counts()
        frame.insert(0, "queries", counts.reindex(frame.index).fillna(0).astype(int))
        return frame

    def summary(self, measure: MeasureLike, *, confidence_level: float = 0.95) -> pd.DataFrame:
        """Per run: the mean under the aggregate, and a t interval of the mean over queries (the
        interval is left empty for a macro or weighted mean, which it does not describe)."""
        import pandas as pd
        from scipy import stats

        matrix = self.matrix(measure)
        mean = pd.Series(
            {run: self.aggregation.mean(matrix[run].to_numpy(), matrix.index) for run in self.runs}
        )
        n = len(matrix)
        if self.aggregation.how == "query" and n > 1:
            half = matrix.std(ddof=1) / np.sqrt(n) * stats.t.ppf(0.5 + confidence_level / 2, n - 1)
        else:
            half = pd.Series(np.nan, index=matrix.columns)
        # a geometric mean's interval is the interval of the mean log, shown as its mean is
        shown = {
            key: pd.Series(self.aggregated(measure, values.to_numpy()), index=values.index)
            for key, values in (("mean", mean), ("ci_low", mean - half), ("ci_high", mean + half))
        }
        return pd.DataFrame({**shown, "queries": n})

    # --- output ------------------------------------------------------------------------------

    def conventions(self) -> list[str]:
        if not self.scores_notes:
            beside = [m.describe() for m in self.measures if isinstance(m, Score) and m.values]
            return [*self.settings.conventions(), *beside]
        missing = {
            "zero": "a query another run has a score for scores the score's worst where a run has "
            "none (0 without a declared range; refused where no worst is known: a cost, or values "
            "below 0)",
            "skip": "a run's mean covers the queries it has a score for; a paired test, those "
            "both runs have",
        }[self.settings.missing]
        known = [f"{m}: {m.known()}" for m in self.measures if isinstance(m, Score) and m.known()]
        return [*self.scores_notes, *known, missing, self.settings.conventions()[-1]]

    def records(self, *, per_query: bool = False) -> list[dict]:
        """Rows of the tidy table without pandas: every per-query row first (when asked, as
        trec_eval -q), then per run and measure its mean.

        Keys ``run, measure, qid, value``; with a group column also ``group``: each query's group,
        one mean row per group and the overall row (group ``all``); under random ties ``std``.
        """
        grouped = self.settings.group_by is not None
        query_rows: list[dict] = []
        mean_rows: list[dict] = []
        for run in self.runs:
            for measure in map(str, self.measures):
                std = self.query_std(measure, run)
                head = {"run": run, "measure": measure}
                if grouped or per_query:  # else the mean alone: no million ids gathered for it
                    qids, values = self.run_values(measure, run)
                if grouped:
                    groups = self.aggregation.groups(qids)
                    if ALL in set(groups):
                        raise OptionError(
                            f"a group of {self.settings.group_by} is named {ALL!r}, "
                            "the name of the overall row"
                        )
                    means = self.aggregation.group_means(values, qids)
                    mean_rows += [
                        {
                            **head,
                            "group": g,
                            "qid": ALL,
                            "value": float(self.aggregated(measure, v)),
                        }
                        for g, v in means.items()
                    ]
                if per_query:
                    for i, (qid, value) in enumerate(zip(qids, values)):
                        row = {
                            **head,
                            **({"group": groups[i]} if grouped else {}),
                            "qid": qid,
                            "value": float(value),
                        }
                        query_rows.append(row if std is None else {**row, "std": float(std[i])})
                overall = {
                    **head,
                    **({"group": ALL} if grouped else {}),
                    "qid": ALL,
                    "value": self.mean(measure, run),
                }
                mean_rows.append(
                    overall if std is None else {**overall, "std": self.mean_std(measure, run)}
                )
        return query_rows + mean_rows

    def to_frame(self, *, per_query: bool = False) -> pd.DataFrame:
        """The tidy table ``run, measure, [group,] qid, value[, std]`` (see :meth:`records`)."""
        import pandas as pd

        return pd.DataFrame(self.records(per_query=per_query))

    def to_frames(self) -> dict[str, pd.DataFrame]:
        """``means`` (the mean rows of :meth:`to_frame`) and ``per_query`` (every query's value,
        then the means)."""
        return {"means": self.to_frame(), "per_query": self.to_frame(per_query=True)}

    def to_dict(self, *, per_query: bool = False) -> list[dict]:
        """The records of :meth:`records`: the JSON of ``rankviz evaluate``."""
        return self.records(per_query=per_query)
