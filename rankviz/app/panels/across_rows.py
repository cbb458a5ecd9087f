"""The "Across collections" page's choices: which run of each collection plays which part.

Collections name their runs their own way (Cranfield's ``bm25`` is CAsT's ``org_manual_bm25``), so
the page asks, per row of the summary (the baseline, then each compared run), which run of each
collection fills it. A row is named by its runs: the name they share, else their names joined. The
summary itself is :func:`rankviz.study.studies.summarise`, cached on the folders' contents and the
choices.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from rankviz.app.caches.cache import SHARED, folder_stamp
from rankviz.errors import OptionError
from rankviz.study import Summary
from rankviz.study.studies import summarise

#: The most runs compared with the baseline on the page.
MOST_COMPARED = 6


def _tokens(run: str) -> set[str]:
    return set(re.split(r"[^a-z0-9]+", run.lower())) - {""}


def default_rows(runs: Mapping[str, Sequence[str]], rows: int) -> dict[str, list[str]]:
    """Per collection, a first guess at its run for each row: a name most collections have, as a
    run's name or a word of it (``bm25`` is CAsT's ``org_manual_bm25``), takes the first rows, most
    widespread first; each collection fills the rest with its other runs in its order."""
    return _guess(runs, rows)[0]


def matched_rows(runs: Mapping[str, Sequence[str]]) -> int:
    """How many of the first rows :func:`default_rows` fills with one name every collection has
    (as a run's name or a word of it): the rows pooled unasked. The others pair runs by
    position, which only a person can vouch for."""
    return _guess(runs, max(len(names) for names in runs.values()))[1]


def _guess(runs: Mapping[str, Sequence[str]], rows: int) -> tuple[dict[str, list[str]], int]:
    def match(name: str, names: Sequence[str], taken: Sequence[str]) -> str | None:
        free = [run for run in names if run not in taken]
        return next((run for run in free if run == name), None) or next(
            (run for run in free if name in _tokens(run)), None
        )

    candidates = sorted(
        {run for names in runs.values() for run in names},
        key=lambda name: (
            -sum(match(name, names, ()) is not None for names in runs.values()),
            name,
        ),
    )
    guesses: dict[str, list[str]] = {collection: [] for collection in runs}
    everywhere = 0
    for name in candidates:
        found = {
            collection: match(name, names, guesses[collection])
            for collection, names in runs.items()
        }
        matches = sum(run is not None for run in found.values())
        # a row needs a run of every collection: the guessing ends when one has none left
        exhausted = any(
            len(guesses[collection]) >= len(names) for collection, names in runs.items()
        )
        if len(next(iter(guesses.values()))) >= rows or matches < 2 or exhausted:
            break
        if matches == len(runs) and everywhere == len(next(iter(guesses.values()))):
            everywhere += 1  # the first rows alone: a row after a guessed one is guessed too
        for collection, names in runs.items():
            guesses[collection].append(
                found[collection] or next(r for r in names if r not in guesses[collection])
            )
    for collection, names in runs.items():
        guesses[collection] += [run for run in names if run not in guesses[collection]][
            : rows - len(guesses[collection])
        ]
    return guesses, everywhere


def row_name(runs: Sequence[str]) -> str:
    """A summary row's name: the name its runs share, else their names joined by " / "."""
    return runs[0] if len(set(runs)) == 1 else " / ".join(runs)


def names_and_rows(
    choices: Mapping[str, Sequence[str]],
) -> tuple[list[str], dict[str, dict[str, str]]]:
    """The rows' names (baseline first) and, per collection, its runs -> their rows' names; an error
    when a collection fills two rows with one run, or two rows have the same runs."""
    for collection, runs in choices.items():
        if len(set(runs)) < len(runs):
            raise OptionError(
                f"{collection}: one run is chosen for two rows; choose a different run for each row"
            )
    rows = list(zip(*choices.values(), strict=True))
    names = [row_name(row) for row in rows]
    if len(set(names)) < len(names):
        raise OptionError("two rows choose the same runs in every collection")
    mapping = {
        collection: {run: names[i] for i, run in enumerate(runs)}
        for collection, runs in choices.items()
    }
    return names, mapping


def summary(
    folders: Mapping[str, Path],
    choices: Mapping[str, Sequence[str]],
    measure: str,
    *,
    standardised: bool,
    level: float,
) -> Summary:
    """The summary of the rows chosen (per collection, its runs: baseline first) on ``measure``,
    each collection with its own conventions; cached on the folders' files and the choices."""
    names, mapping = names_and_rows(choices)
    key = (
        "across",
        tuple((name, str(folders[name]), folder_stamp(folders[name])) for name in choices),
        tuple(tuple(runs) for runs in choices.values()),
        measure,
        standardised,
        level,
    )
    paths = [folders[name] for name in choices]
    renamed = {folders[name].name: mapping[name] for name in choices}
    return SHARED.get(
        key,
        lambda: summarise(
            paths,
            baseline=names[0],
            runs=names[1:],
            measures=[measure],
            names=renamed,
            standardised=standardised,
            level=level,
        ),
    )
