"""A study of studies: the same runs over several collections, matched by name, summarised
(:mod:`rankviz.analyses.summary`). Each collection is opened as the command line opens one, with
its own conventions (relevance threshold, gmax) unless the options given set them."""

from __future__ import annotations

import csv
import dataclasses
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rankviz.analyses.summary import Summary, summary
from rankviz.errors import OptionError
from rankviz.study import Study

DEFAULT_MEASURE = "nDCG@10"


def read_names(path: str | Path) -> dict[str, dict[str, str]]:
    """A names file: ``collection<TAB>run<TAB>name`` lines (the run of that collection goes by the
    name), a header line allowed -> {collection: {run: name}}."""
    found: dict[str, dict[str, str]] = {}
    with open(path, newline="", encoding="utf-8") as handle:
        for number, row in enumerate(csv.reader(handle, delimiter="\t"), 1):
            if not row or (number == 1 and row[:3] == ["collection", "run", "name"]):
                continue
            if len(row) != 3:
                raise OptionError(f"{path}:{number}: expected collection<TAB>run<TAB>name, found {len(row)} fields")
            found.setdefault(row[0], {})[row[1]] = row[2]
    return found


def summarise(folders: Sequence[str | Path], *, baseline: str, runs: Sequence[str] | None = None,
              measures: Sequence[str] | None = None, names: Mapping[str, Mapping[str, str]] | None = None,
              standardised: bool = False, level: float = 0.95, **options: Any) -> Summary:  # fmt: skip
    """``runs`` (default: those every collection has) against ``baseline`` over the collection
    ``folders``; ``names``: per collection (its folder's name or its collection.toml name), its run
    names -> the names the summary matches them by."""
    if len(folders) < 2:
        raise OptionError("summary needs two or more collections")
    wanted = list(measures or [DEFAULT_MEASURE])
    opened = {}
    for folder in folders:
        study = Study.open(folder, measures=wanted, **options)
        collection = study.collection.config.name if study.collection is not None else Path(folder).name
        renamed = {**dict((names or {}).get(Path(folder).name, {})), **dict((names or {}).get(collection, {}))}
        by_name = {renamed.get(run, run): run for run in study.run_names}
        opened[collection] = (folder, study, by_name)
    shared = set.intersection(*(set(by_name) for _, _, by_name in opened.values()))
    if baseline not in shared:
        lacking = [c for c, (_, _, by_name) in opened.items() if baseline not in by_name]
        raise OptionError(f"--baseline {baseline!r} is no run of {', '.join(lacking)} (a names file maps runs named otherwise)")
    chosen = list(runs) if runs else sorted(shared - {baseline})
    for run in chosen:
        if run not in shared:
            lacking = [c for c, (_, _, by_name) in opened.items() if run not in by_name]
            raise OptionError(f"run {run!r} is not in {', '.join(lacking)} (a names file maps runs named otherwise)")
    if not chosen:
        raise OptionError("no run besides the baseline is in every collection: name them with --runs, or map names")
    per_collection = {}
    for collection, (folder, study, by_name) in opened.items():
        local = [by_name[name] for name in (baseline, *chosen)]
        evaluation = Study.open(folder, local, measures=wanted, **options).evaluation()
        evaluation = dataclasses.replace(evaluation, runs=(baseline, *chosen))  # the summary's names
        per_collection[collection] = (evaluation, dict(zip(wanted, study.measures, strict=True)))
    return summary(per_collection, baseline, chosen, standardised=standardised, level=level)
