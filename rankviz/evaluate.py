"""Evaluate runs against qrels under explicit conventions; the result is one tidy table."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from rankviz.errors import OptionError, RankvizError
from rankviz.groups import AGGREGATES, QueryGroups, coverage, group_of
from rankviz.groups import aggregate as aggregate_values
from rankviz.io.readers import Qrels, Run, read_qrels, read_run
from rankviz.measures import Measure, parse
from rankviz.ranking import RankingTable, rank, shuffle_ties

if TYPE_CHECKING:
    import pandas as pd

MISSING_POLICIES = ("zero", "skip")
ALL = "all"

RunLike = Run | str | os.PathLike
MeasureLike = Measure | str


@dataclass(frozen=True)
class Conventions:
    """The conventions in force for an evaluation, for display next to every number."""

    ties: str = "trec_eval"
    missing: str = "zero"
    trials: int = 100
    seed: int | None = None

    def describe(self) -> list[str]:
        ties = {
            "trec_eval": "ties: score descending, then docid descending (trec_eval)",
            "run": "ties: the run file's rank column, then file order",
            "optimistic": "ties: relevant documents first within equal scores (optimistic)",
            "pessimistic": "ties: relevant documents last within equal scores (pessimistic)",
            "expected": "ties: exact mean over all orders within equal scores (expected)",
            "random": f"ties: mean of {self.trials} random orders within equal scores (seed {self.seed}); std over trials",
        }[self.ties]
        missing = {
            "zero": "queries missing from a run score 0 and count in the mean (trec_eval -c)",
            "skip": "the mean covers only the queries a run answers",
        }[self.missing]
        return [ties, missing]


def as_measures(measures: MeasureLike | Iterable[MeasureLike], *, defaults: dict | None = None) -> list[Measure]:
    """Parse measure names; a single name or a list is accepted. Duplicates are kept once."""
    items = [measures] if isinstance(measures, (str, Measure)) else list(measures)
    parsed = [parse(m, defaults=defaults) for m in items]
    if not parsed:
        raise OptionError("no measure given")
    return list(dict.fromkeys(parsed))


def as_runs(runs: RunLike | Iterable[RunLike]) -> list[Run]:
    """Runs or paths to runs; names must be unique within one comparison."""
    items = [runs] if isinstance(runs, (Run, str, os.PathLike)) else list(runs)
    loaded = [r if isinstance(r, Run) else read_run(r) for r in items]
    names = [r.name for r in loaded]
    duplicated = sorted({n for n in names if names.count(n) > 1})
    if duplicated:
        raise OptionError(f"run names must be unique in a comparison; repeated: {', '.join(duplicated)}")
    if not loaded:
        raise OptionError("no run given")
    return loaded


def check_missing(missing: str) -> None:
    if missing not in MISSING_POLICIES:
        raise OptionError(f"unknown missing-query policy {missing!r}; choose one of {', '.join(MISSING_POLICIES)}")


def query_values(table: RankingTable, measure: Measure, *, missing: str = "zero") -> tuple[np.ndarray, np.ndarray]:
    """One measure's (qids, values) in trec_eval's query order (qid strcmp order).

    ``missing="zero"``: every qrels query, 0 where the run has none (trec_eval ``-c``);
    ``missing="skip"``: only queries the run answers.
    """
    check_missing(missing)
    values = measure(table)
    keep = np.arange(table.n_queries) if missing == "zero" else np.flatnonzero(table.in_run)
    order = keep[np.argsort(table.qids[keep].astype(str), kind="stable")]  # code point order = UTF-8 byte order
    return table.qids[order], values[order]


def per_query(table: RankingTable, measure: Measure, *, missing: str = "zero") -> pd.Series:
    """:func:`query_values` as a Series indexed by qid."""
    import pandas as pd

    qids, values = query_values(table, measure, missing=missing)
    return pd.Series(values, index=pd.Index(qids, name="qid"), name=str(measure))


@dataclass(frozen=True, eq=False)
class Block:
    """One run and measure: per-query values (trec_eval's query order) and their mean.

    Under ``ties="random"`` the values are means over trials; ``trials`` then holds every trial's
    per-query values (trials x queries), whose spread :attr:`std` and :attr:`mean_std` report.
    """

    run: str
    measure: str
    qids: np.ndarray
    values: np.ndarray
    trials: np.ndarray | None = None

    @property
    def mean(self) -> float:
        return float(self.values.mean())

    @property
    def std(self) -> np.ndarray | None:
        """Per query: standard deviation over the random trials (ddof=1); None without trials."""
        return None if self.trials is None else spread(self.trials)

    @property
    def mean_std(self) -> float | None:
        """Standard deviation over the random trials of the mean over queries."""
        return None if self.trials is None else float(spread(self.trials.mean(axis=1)))


def spread(trials: np.ndarray) -> np.ndarray:
    """Sample standard deviation over trials (axis 0); exactly 0 where every trial agrees.

    Values are taken relative to the first trial, which leaves the deviation unchanged but keeps
    rounding from showing a spread of 1e-17 for a query without ties. 0 for a single trial.
    """
    if len(trials) < 2:
        return np.zeros(trials.shape[1:]) if trials.ndim > 1 else np.float64(0.0)
    return (trials - trials[0]).std(axis=0, ddof=1)


def random_trials(
    table: RankingTable, measures: list[Measure], *, trials: int, rng: np.random.Generator | int | None, missing: str = "zero"
) -> dict[Measure, tuple[np.ndarray, np.ndarray]]:
    """Each measure's (qids, trials x queries values) over ``trials`` uniformly random orders inside tie groups.

    ``table`` is in score order (any policy but ``run``); every trial draws from one Generator, so a
    seed reproduces all trials.
    """
    if trials < 1:
        raise OptionError(f"trials={trials}: need at least one random order")
    generator = np.random.default_rng(rng)
    values: dict[Measure, list[np.ndarray]] = {m: [] for m in measures}
    qids: dict[Measure, np.ndarray] = {}
    for _ in range(trials):
        shuffled = shuffle_ties(table, generator)
        for measure in measures:
            qids[measure], trial = query_values(shuffled, measure, missing=missing)
            values[measure].append(trial)
    return {m: (qids[m], np.vstack(values[m])) for m in measures}


def evaluate_blocks(
    qrels: Qrels,
    runs: list[Run],
    measures: list[Measure],
    *,
    ties: str = "trec_eval",
    missing: str = "zero",
    trials: int = 100,
    rng: np.random.Generator | int | None = None,
) -> tuple[list[Block], dict[str, list[str]]]:
    """The engine behind :func:`evaluate`, without pandas: blocks of values and ignored queries per run."""
    check_missing(missing)
    generator = np.random.default_rng(rng)
    blocks, ignored = [], {}
    for run in runs:
        table = rank(run, qrels, ties="trec_eval" if ties == "random" else ties)
        ignored[run.name] = list(table.ignored_qids)
        if ties == "random":
            results = random_trials(table, measures, trials=trials, rng=generator, missing=missing)
            found = [Block(run.name, str(m), qids, values.mean(axis=0), values) for m, (qids, values) in results.items()]
        else:
            found = [Block(run.name, str(m), *query_values(table, m, missing=missing)) for m in measures]
        if any(len(block.values) == 0 for block in found):
            raise RankvizError(f"run {run.name!r} answers none of the judged queries; nothing to average")
        blocks += found
    return blocks, ignored


def evaluate(
    qrels: Qrels | str | os.PathLike,
    runs: RunLike | Iterable[RunLike],
    measures: MeasureLike | Sequence[MeasureLike],
    *,
    ties: str = "trec_eval",
    missing: str = "zero",
    per_query_rows: bool = False,
    trials: int = 100,
    rng: np.random.Generator | int | None = None,
    groups: QueryGroups | None = None,
    group_by: str | None = None,
    aggregate: str = "query",
    weights: pd.Series | None = None,
) -> pd.DataFrame:
    """Evaluate one or more runs; a tidy DataFrame ``run, measure, qid, value`` whatever the counts.

    The mean of each run and measure has qid ``"all"``; with ``per_query_rows=True`` each query's
    value precedes it (as ``trec_eval -q``). ``df.attrs["ignored_qids"]`` maps each run to the
    queries it answers that the qrels do not judge (ignored, as trec_eval does).
    ``ties="random"`` averages ``trials`` random orders drawn from ``rng`` (a seed or Generator) and
    adds a column ``std``: the spread over trials of each value (of the mean, on ``all`` rows).

    ``group_by`` (a column of ``groups``) adds a column ``group``: each query's group, one mean row
    per group, and the overall row (group ``all``). ``aggregate`` makes the overall mean ``query``
    (each query once), ``macro`` (each group once) or ``weights`` (``weights``: qid -> weight).
    ``df.attrs["coverage"]`` reports groups-file queries not judged and judged queries with no group.
    """
    qrels = qrels if isinstance(qrels, Qrels) else read_qrels(qrels)
    blocks, ignored = evaluate_blocks(
        qrels, as_runs(runs), as_measures(measures), ties=ties, missing=missing, trials=trials, rng=rng
    )
    result = tidy(blocks, per_query_rows=per_query_rows, groups=groups, group_by=group_by, aggregate=aggregate, weights=weights)
    result.attrs["ignored_qids"] = ignored
    if groups is not None:
        result.attrs["coverage"] = coverage(groups.frame.index, qrels.query_ids)
    return result


def tidy(
    blocks: list[Block],
    *,
    per_query_rows: bool = False,
    groups: QueryGroups | None = None,
    group_by: str | None = None,
    aggregate: str = "query",
    weights: pd.Series | None = None,
) -> pd.DataFrame:
    """Blocks as one tidy frame, with group rows and the chosen aggregate (see :func:`evaluate`)."""
    import pandas as pd

    if aggregate not in AGGREGATES:
        raise OptionError(f"unknown aggregate {aggregate!r}; choose one of {', '.join(AGGREGATES)}")
    if (group_by is None) != (groups is None) and group_by is not None:
        raise OptionError("group_by needs query groups (a groups file or a collection with groups)")
    if aggregate == "macro" and group_by is None:
        raise OptionError("aggregate=macro needs a group column (group_by)")
    frames = []
    for block in blocks:
        values = pd.Series(block.values, index=pd.Index(block.qids, name="qid"))
        head = {"run": block.run, "measure": block.measure}
        spread = {} if block.trials is None else {"std": block.std}
        if group_by is None:
            if per_query_rows:
                frames.append(pd.DataFrame({**head, "qid": block.qids, "value": block.values, **spread}))
            overall = block.mean if aggregate == "query" else aggregate_values(values, how=aggregate, weights=weights)
            mean_spread = {} if block.trials is None else {"std": [block.mean_std if aggregate == "query" else np.nan]}
            frames.append(pd.DataFrame({**head, "qid": [ALL], "value": [overall], **mean_spread}))
            continue
        group = group_of(groups, group_by, block.qids)
        if (group == ALL).any():
            raise OptionError(f"a group of {group_by} is named {ALL!r}, which stands for the overall row; rename it")
        if per_query_rows:
            frames.append(pd.DataFrame({**head, "group": group.to_numpy(), "qid": block.qids, "value": block.values, **spread}))
        means = values.groupby(group).mean()
        frames.append(pd.DataFrame({**head, "group": means.index.to_numpy(), "qid": ALL, "value": means.to_numpy()}))
        overall = aggregate_values(values, how=aggregate, groups=group, weights=weights)
        frames.append(pd.DataFrame({**head, "group": [ALL], "qid": [ALL], "value": [overall]}))
    return pd.concat(frames, ignore_index=True)
