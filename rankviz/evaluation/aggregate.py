"""The one place where per-query values become a mean.

An :class:`Aggregation` says what the overall mean averages (the ``aggregate`` option):

- ``query`` (default): every query once, ``values.mean()``;
- ``macro``: every group of a query attribute once: the mean of the group means;
- ``weights``: ``sum(w_q v_q) / sum(w_q)`` with weights from a file (every query needs one).

Every mean rankviz shows (CLI, API, each page, the tie intervals, random orders, metric choice) is
:meth:`Aggregation.mean` of some per-query values, so they can never disagree on what "the mean" is.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from rankviz.errors import OptionError
from rankviz.io.groups import NO_GROUP, QueryGroups, read_weights
from rankviz.settings.eval_settings import AGGREGATE, EvalSettings

if TYPE_CHECKING:
    from rankviz.io.collection import Collection


@dataclass(frozen=True, eq=False)
class Aggregation:
    """How per-query values become one number; ``group_of`` maps qids to groups (judged queries
    without one are in :data:`~rankviz.io.groups.NO_GROUP`), ``weights`` qids to weights."""

    how: str = "query"
    group_of: Mapping[str, str] | None = None
    weights: Mapping[str, float] | None = None

    def __post_init__(self) -> None:
        AGGREGATE.check(self.how)
        if self.how == "macro" and self.group_of is None:
            raise OptionError("aggregate=macro needs a group column (group_by)")
        if self.how == "weights" and self.weights is None:
            raise OptionError(
                "aggregate=weights needs a weights file (query_weights.tsv, or weights:FILE)"
            )

    def groups(self, qids) -> np.ndarray:
        """Each query's group (object array); every query is in one group without a grouping."""
        if self.group_of is None:
            return np.full(len(qids), "all", dtype=object)
        return np.array([self.group_of.get(q, NO_GROUP) for q in qids], dtype=object)

    def mean(self, values: np.ndarray, qids) -> np.ndarray | float:
        """The mean over the last axis (queries, aligned with ``qids``); leading axes (runs, trials)
        are kept."""
        values = np.asarray(values, dtype=np.float64)
        if values.shape[-1] == 0:
            raise OptionError("no query to average")
        if self.how == "query":
            return _scalar(values.mean(axis=-1))
        if self.how == "macro":
            return macro(np.stack(list(self.group_means(values, qids).values()), axis=-1))
        weights = self.weight_array(qids)
        return _scalar((values * weights).sum(axis=-1) / weights.sum())

    def group_means(self, values: np.ndarray, qids) -> dict[str, np.ndarray | float]:
        """The mean of each group's queries (groups in sorted order) over the last axis."""
        groups = self.groups(qids)
        return {
            group: _scalar(values[..., groups == group].mean(axis=-1))
            for group in sorted(set(groups))
        }

    def weight_array(self, qids) -> np.ndarray:
        if self.weights is None:
            raise OptionError("aggregate=weights needs a weights file")
        missing = [q for q in qids if q not in self.weights]
        if missing:
            shown = ", ".join(missing[:5]) + (" ..." if len(missing) > 5 else "")
            raise OptionError(f"no weight for {len(missing)} queries: {shown}")
        weights = np.array([self.weights[q] for q in qids], dtype=np.float64)
        if weights.sum() <= 0:
            raise OptionError("the weights of the evaluated queries sum to 0")
        return weights

    def describe(self, group_by: str | None) -> str:
        text = AGGREGATE.meanings[self.how]
        return text.replace("group_by", str(group_by)) if self.how == "macro" else text


def macro(group_means: np.ndarray) -> np.ndarray | float:
    """The mean of group means (last axis: the groups), each group counting once."""
    return _scalar(np.asarray(group_means, dtype=np.float64).mean(axis=-1))


def _scalar(value):
    value = np.asarray(value)
    return float(value) if value.ndim == 0 else value


def aggregate_option(
    text: str | None, collection: Collection | None
) -> tuple[str | None, dict[str, float] | None]:
    """The ``aggregate`` option as given, ``query|macro|weights[:FILE]``: the aggregate and, for
    weights, the weights (from FILE, else the collection's)."""
    if text is None:
        return None, None
    how, colon, path = text.partition(":")
    AGGREGATE.check(how)
    if colon and how != "weights":
        raise OptionError(f"--aggregate {text}: only weights takes a file (weights:FILE)")
    if how != "weights":
        return how, None
    if path:
        return how, read_weights(path).to_dict()
    if collection is not None and collection.weights is not None:
        return how, collection.weights.to_dict()
    raise OptionError(
        "--aggregate weights needs a file: weights:FILE (or a collection with query_weights.tsv)"
    )


def aggregation_of(
    settings: EvalSettings, groups: QueryGroups | None, weights: Mapping[str, float] | None
) -> Aggregation:
    """The aggregation the settings ask for, over the groups' column or the weights."""
    group_of = None
    if settings.group_by is not None:
        if groups is None:
            raise OptionError(
                "group_by needs query groups (a groups file or a collection with groups)"
            )
        group_of = groups.column(settings.group_by).to_dict()
    return Aggregation(
        settings.aggregate,
        group_of=group_of,
        weights=weights if settings.aggregate == "weights" else None,
    )
