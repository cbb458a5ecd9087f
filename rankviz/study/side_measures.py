"""Measures whose judgments are not the qrels', beside the others: ndeval's diversity measures
(diversity qrels: :mod:`rankviz.study.diversity`) and trec_eval's judgment-group measures
(``qrels_jg``: :mod:`rankviz.study.judgment_groups`). Each run carries their per-query values as
scores. Every front end asks here which names are such measures, how they are printed, where their
judgments are and for their values."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rankviz.errors import OptionError
from rankviz.study.diversity import (
    DIVERSITY_MEASURES,
    diversity_name,
    diversity_scores,
    needs_qrels,
)
from rankviz.study.judgment_groups import GROUP_MEASURES, group_name, group_scores, needs_groups

if TYPE_CHECKING:
    from rankviz.io.collection import Collection
    from rankviz.io.model import Run
    from rankviz.measures.score import Score
    from rankviz.settings.eval_settings import EvalSettings


@dataclass(frozen=True)
class Side:
    """One kind of judgments beside the qrels and the measures they give."""

    name_of: Callable[[object], str | None]  # how a measure of this kind is printed, else None
    offered: tuple[str, ...]  # what a collection with such judgments offers
    path_in: Callable[[Collection], Path | None]  # a collection's file of them
    compute: Callable[[Path, Mapping[str, Run], list[str], EvalSettings], list[Score]]
    needs: Callable[[Sequence[str]], OptionError]  # the error when no file was given


SIDES = {
    "diversity": Side(
        diversity_name,
        DIVERSITY_MEASURES,
        lambda collection: collection.subtopics_path,
        lambda path, runs, names, settings: diversity_scores(
            path,
            runs,
            names,
            zero=settings.missing == "zero",
            by_rank=settings.ties.by_rank_column,
            rel=settings.rel,
            depth=settings.depth,
        ),
        needs_qrels,
    ),
    "judgment_groups": Side(
        group_name,
        GROUP_MEASURES,
        lambda collection: collection.judgment_groups_path,
        lambda path, runs, names, settings: group_scores(
            path,
            runs,
            names,
            zero=settings.missing == "zero",
            rel=settings.rel,
            depth=settings.depth,
        ),
        needs_groups,
    ),
}


def side_name(name: object) -> str | None:
    """How ``name`` is printed when it is a measure of judgments beside the qrels, else None (a
    MeasureError for one such a measure cannot take)."""
    for side in SIDES.values():
        printed = side.name_of(name)
        if printed is not None:
            return printed
    return None


def split_sides(names: Sequence[str | object]) -> tuple[dict[str, list[str]], list]:
    """(each kind's measures among ``names``, as printed; the other names)."""
    wanted: dict[str, list[str]] = {}
    others = []
    for name in names:
        for kind, side in SIDES.items():
            printed = side.name_of(name)
            if printed is not None:
                wanted.setdefault(kind, []).append(printed)
                break
        else:
            others.append(name)
    return wanted, others


def side_scores(
    wanted: Mapping[str, list[str]],
    paths: Mapping[str, Path | str | None],
    runs: Mapping[str, Run],
    settings: EvalSettings,
) -> list[Score]:
    """The values of each kind's ``wanted`` measures for ``runs``, against the kind's file in
    ``paths``; an OptionError naming the measures whose kind has no file."""
    found: list[Score] = []
    for kind, names in wanted.items():
        path = paths.get(kind)
        if path is None:
            raise SIDES[kind].needs(names)
        found += SIDES[kind].compute(Path(path), runs, names, settings)
    return found


def offered(collection: Collection) -> list[str]:
    """The measures of the judgments beside the qrels a collection keeps."""
    return [m for side in SIDES.values() if side.path_in(collection) for m in side.offered]
