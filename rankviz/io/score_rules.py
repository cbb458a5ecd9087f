"""What is known of a file's scores beyond their values: which read better lower (a latency, a
cost) and the range each one's values lie in (a nugget score in [0, 1], a judge's grade in [0, 3]).

A collection says it in its ``collection.toml`` (``[scores]``), the command line with
``--lower-is-better`` and ``--score-range``. A value outside its declared range is a mistake of the
file (a score on another scale, a percentage among fractions) caught before any mean is shown: one
line naming the file and its line.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rankviz.errors import FormatError, OptionError

if TYPE_CHECKING:
    from rankviz.io.scores import Scores

RANGE_TEXT = re.compile(r"^(?P<name>.+)=(?P<low>[^:]+):(?P<high>[^:]+)$")


@dataclass(frozen=True)
class ScoreRules:
    """The scores read better lower, and each declared range (name -> (lowest, highest))."""

    lower_is_better: frozenset[str] = frozenset()
    ranges: Mapping[str, tuple[float, float]] | None = None

    def range_of(self, name: str) -> tuple[float, float] | None:
        return (self.ranges or {}).get(name)

    def joined(self, other: ScoreRules) -> ScoreRules:
        """Both rules: ``other``'s range of a score over this one's (the command line's over the
        collection's)."""
        return ScoreRules(
            self.lower_is_better | other.lower_is_better,
            {**(self.ranges or {}), **(other.ranges or {})} or None,
        )

    def refuse_unknown(self, names: Iterable[str]) -> None:
        """An OptionError naming a score said to read better lower, or given a range, that none
        of the files holds (a misspelt name would otherwise be taken silently)."""
        held = set(names)
        said = [*sorted(self.lower_is_better), *sorted(self.ranges or {})]
        unknown = [name for name in dict.fromkeys(said) if name not in held]
        if unknown:
            listed = ", ".join(sorted(held)) if held else "none: no file of scores was given"
            raise OptionError(
                f"no score is named {', '.join(map(repr, unknown))} (said to read better lower, "
                f"or given a range); the files' scores: {listed}"
            )

    def check(self, scores: Scores) -> None:
        """Refuse the first value outside its score's range, naming the file and its line."""
        for name, (low, high) in (self.ranges or {}).items():
            part = scores.frame[scores.frame["measure"] == name]
            outside = part[(part["value"] < low) | (part["value"] > high)]
            if len(outside):
                row = outside.iloc[0]
                value = float(row["value"])
                raise FormatError(
                    scores.source,
                    int(row["line"]),
                    None,
                    f"{name} of run {row['run']!r}, query {row['query']!r} is {value!r}, "
                    f"outside its range [{low:g}, {high:g}] (declared for it)",
                )


#: nothing said of any score
NO_RULES = ScoreRules()


def score_rules(
    lower_is_better: Sequence[str] = (), ranges: Mapping[str, Sequence[float]] | None = None
) -> ScoreRules:
    """The rules given as names and ``{name: (lowest, highest)}``, each range checked."""
    checked = {name: _range(name, bounds) for name, bounds in (ranges or {}).items()}
    return ScoreRules(frozenset(lower_is_better), checked or None)


def parse_range(text: str) -> tuple[str, tuple[float, float]]:
    """``NAME=LOW:HIGH`` (the command line's ``--score-range``)."""
    match = RANGE_TEXT.match(text)
    if match is None:
        raise OptionError(f"--score-range takes NAME=LOW:HIGH (e.g. nugget_all=0:1), not {text!r}")
    try:
        bounds = (float(match["low"]), float(match["high"]))
    except ValueError:
        raise OptionError(f"--score-range {text!r}: LOW and HIGH are numbers") from None
    return match["name"], _range(match["name"], bounds)


def rules_of_table(table: object) -> ScoreRules:
    """``[scores]`` of collection.toml: ``lower_is_better = ["latency"]`` and a ``[scores.range]``
    table of ``name = [LOW, HIGH]``."""
    if not isinstance(table, dict) or set(table) - {"lower_is_better", "range"}:
        raise OptionError(
            '[scores] takes lower_is_better = ["NAME", ...] and a [scores.range] table of '
            "NAME = [LOW, HIGH]"
        )
    lower = table.get("lower_is_better", [])
    if not isinstance(lower, list) or not all(isinstance(n, str) for n in lower):
        raise OptionError('[scores] lower_is_better must be a list of names, e.g. ["latency"]')
    ranges = table.get("range", {})
    if not isinstance(ranges, dict):
        raise OptionError("[scores.range] must be a table of NAME = [LOW, HIGH]")
    return score_rules(lower, ranges)


def _range(name: str, bounds: object) -> tuple[float, float]:
    if (
        not isinstance(bounds, (list, tuple))
        or len(bounds) != 2
        or not all(isinstance(b, (int, float)) and not isinstance(b, bool) for b in bounds)
        or not all(math.isfinite(b) for b in bounds)
        or bounds[0] > bounds[1]
    ):
        raise OptionError(
            f"the range of {name!r} is [LOW, HIGH], two finite numbers, LOW <= HIGH; not {bounds!r}"
        )
    return float(bounds[0]), float(bounds[1])
