"""Benchmark protocols: each group of queries scored by its own primary measure (``[protocol]`` in
collection.toml), e.g. Hit@1 on one subtask and nDCG@10 on the rest, and their macro mean."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from rankviz.evaluation.aggregate import macro
from rankviz.evaluation.evaluate import as_measures, evaluate_tables
from rankviz.io.collection_config import Protocol
from rankviz.io.groups import QueryGroups, group_of
from rankviz.ranking.ranking_table import RankingTable
from rankviz.settings.eval_settings import EvalSettings


def protocol_values(
    tables: Mapping[str, RankingTable],
    groups: QueryGroups,
    protocol: Protocol,
    settings: EvalSettings | None = None,
) -> pd.DataFrame:
    """Runs x groups: each group's mean of its primary measure, and ``macro``, the mean over groups.

    Judged queries without a group form ``(no group)`` (scored by the protocol's default measure).
    """
    settings = (settings or EvalSettings()).replace(group_by=None, aggregate="query")
    qids = next(iter(tables.values())).qids
    members = group_of(groups, protocol.group_by, qids)
    measure_of = {
        group: as_measures(protocol.measure_for(group), defaults=settings.measure_defaults)[0]
        for group in sorted(set(members))
    }
    evaluation = evaluate_tables(tables, list(dict.fromkeys(measure_of.values())), settings)
    columns = {}
    for group, measure in measure_of.items():
        matrix = evaluation.matrix(measure)
        inside = (group_of(groups, protocol.group_by, matrix.index) == group).to_numpy()
        columns[f"{group}: {measure}"] = {
            run: evaluation.aggregated(
                measure,
                evaluation.aggregation.mean(matrix[run].to_numpy()[inside], matrix.index[inside]),
            )
            for run in matrix.columns
        }
    frame = pd.DataFrame(columns)
    frame["macro"] = macro(frame.to_numpy())
    return frame
