"""What a study is opened from, said once: the qrels (or a collection, or scores), the runs, the
measures, the options and the other judgments, as one frozen value every front end builds (the
command line with :meth:`StudyRequest.from_args`, the API with keywords) and
:meth:`Study.open <rankviz.study.study.Study.open>` opens. A new opening input is a field here
and a line where it is read, nowhere else."""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from types import MappingProxyType
from typing import Any

from rankviz.errors import OptionError
from rankviz.io.collection import Collection
from rankviz.io.model import Qrels, Run
from rankviz.io.score_rules import parse_range
from rankviz.measures import Measure
from rankviz.settings.eval_settings import EvalSettings


@dataclass(frozen=True)
class StudyRequest:
    """The inputs of a study, as given (nothing read yet).

    Parameters
    ----------
    qrels
        A qrels file, a collection folder (its qrels, its runs unless ``runs`` names some, its
        conventions, measures, groups and weights as defaults), ``irds:DATASET_ID``, or a file or
        folder of per-query scores; or a collection already opened (a server's, confined to its
        folder: :func:`~rankviz.io.collection.open_collection`); or qrels already read (an
        upload), with ``collection``.
    runs
        Run files, or names of a collection's runs (score files and run names beside scores); or
        runs already read, by name (a mapping that opens each run when asked is kept as given).
    measures
        Measure names, or measures already parsed (None: the collection's, else the defaults).
    judgments
        A meeting record ("" for the collection's own), whose judgments are put in force.
    qrels_in_force
        ``file``, ``meeting``, ``NAME`` or ``file+NAME`` (None: the meeting's when ``judgments``
        is given).
    correct_with
        People's judgments that correct the ones in force (an LLM's): ``file``, ``meeting``,
        ``NAME``, ``file+NAME`` or a qrels file. Every corrected number is the LLM's mean
        corrected by the queries people judged (:mod:`rankviz.analyses.prediction_powered`).
    groups
        A file of query groups.
    aggregate
        How the mean is taken (``query``, ``weights``, ``macro``).
    options
        The conventions by option name (:data:`EvalSettings.OPTIONS`), over the collection's.
    scores
        Files of per-query scores from any evaluator, beside the runs' measures.
    lower_is_better
        Score names where lower is better.
    ranges
        A score name's known (low, high) range.
    diversity
        Diversity qrels (subtopic judgments), for ndeval's measures.
    judgment_groups
        trec_eval's judgment groups qrels (``-R qrels_jg``), for its ``*_avgjg`` measures.
    preferences
        trec_eval's preference judgments (``-R prefs``), for its ``prefs_*`` measures.
    collection
        With qrels already read: the collection they stand in for, whose conventions, measures,
        scores and judgments beside the qrels are the defaults (its query groups, weights and
        meeting's record belong to its own qrels, not to these).
    """

    qrels: str | Path | Collection | Qrels
    runs: Sequence[str | Path] | Mapping[str, Run] = ()
    measures: Sequence[str | Measure] | None = None
    judgments: str | None = None
    qrels_in_force: str | None = None
    correct_with: str | Path | None = None
    groups: str | None = None
    aggregate: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    scores: Sequence[str | Path] = ()
    lower_is_better: Sequence[str] = ()
    ranges: Mapping[str, Sequence[float]] | None = None
    diversity: str | Path | None = None
    judgment_groups: str | Path | None = None
    preferences: str | Path | None = None
    collection: Collection | None = None

    def __post_init__(self) -> None:
        # frozen all the way down: a sequence kept as a tuple, a mapping as a read-only copy; one
        # path or name where a list is taken is that one item (as pandas and scipy take it), never
        # its characters
        put = object.__setattr__
        for name in ("scores", "lower_is_better"):
            put(self, name, _items(getattr(self, name)))
        if not isinstance(self.runs, Mapping):
            put(self, "runs", _items(self.runs))
        if self.measures is not None:
            put(self, "measures", _items(self.measures))
        if not isinstance(self.options, Mapping | None):
            raise OptionError(
                f"options is a mapping of option names to values (e.g. {{'ties': 'expected'}}), "
                f"not {type(self.options).__name__}"
            )
        unknown = sorted(set(self.options or {}) - set(EvalSettings.OPTIONS))
        if unknown:
            raise OptionError(
                f"options: no option {', '.join(map(repr, unknown))}; the options are "
                f"{', '.join(EvalSettings.OPTIONS)}"
            )
        put(self, "options", MappingProxyType(dict(self.options or {})))
        if self.ranges is not None:
            put(self, "ranges", MappingProxyType({k: tuple(v) for k, v in self.ranges.items()}))

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> StudyRequest:
        """What a command's parsed arguments ask for: the inputs and the conventions, each
        command's own flags (``--judgments``, ``--diversity``, ...) where it has them."""
        given = vars(args)
        named = [f.name for f in fields(cls) if f.name != "collection"]  # files, not objects
        asked = {name: given[name] for name in named if given.get(name) is not None}
        asked["measures"] = given.get("measures") or None
        asked["options"] = {
            n: v for n, v in given.items() if n in EvalSettings.OPTIONS and n != "aggregate"
        }
        asked["ranges"] = dict(parse_range(text) for text in given.get("score_range") or ())
        return cls(**asked)


def _items(given) -> tuple:
    """A list's items as a tuple; one path, name or measure given alone, the one item."""
    if given is None:
        return ()
    if isinstance(given, str | bytes | os.PathLike | Measure):
        return (given,)
    return tuple(given)
