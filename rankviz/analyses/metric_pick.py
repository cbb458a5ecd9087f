"""One measure to report for a task: among the measures that fit it (:func:`recommend`), the one
this collection's own evidence favours, with its reasons and the runners-up. A list of four that
"fit" leaves the choice to whoever reads it; the evidence that decides (how many run pairs a
measure separates, how often two runs swap order between halves of the queries) was shown screens
away and never joined to the advice."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from rankviz.analyses.task import Recommendation


@dataclass(frozen=True)
class Evidence:
    """What this collection says of one measure: run pairs its test separates, of how many, and
    its swap rate (None where not measured)."""

    measure: str
    separated: int | None
    pairs: int | None
    swap_rate: float | None

    def sentence(self) -> str:
        said = []
        if self.separated is not None and self.pairs:
            said.append(f"separates {self.separated} of {self.pairs} run pairs")
        if self.swap_rate is not None:
            said.append(f"swap rate {self.swap_rate:.3f}")
        return ", ".join(said) if said else "no evidence on this collection"

    def rank_key(self, order: int) -> tuple:
        """Most pairs separated first, then the fewest swaps (to 9 decimals: a ratio of counts,
        never the last bits of a sum), then the task's own order; unmeasured last."""
        separated = -1 if self.separated is None else self.separated
        swaps = math.inf if self.swap_rate is None else round(self.swap_rate, 9)
        return (-separated, swaps, order)


@dataclass(frozen=True)
class Choice:
    """The measure to report for the task and why; the others that fit, best first; and the
    measures that separate more run pairs but do not fit, with the answers each ignores (said
    beside the advice, never chosen over it)."""

    recommendation: Recommendation
    evidence: Evidence
    runners_up: tuple[tuple[Recommendation, Evidence], ...]
    stronger: tuple[tuple[Recommendation, Evidence, tuple[str, ...]], ...] = ()

    @property
    def measure(self) -> str:
        return self.recommendation.measure

    def sentence(self) -> str:
        """The advice in one sentence: the measure, why it fits the task, and why it over the
        others that fit."""
        said = f"Report {self.measure}: {self.recommendation.reason}"
        best = self.evidence
        if not self.runners_up or best.separated is None:
            return f"{said}; on these runs it {best.sentence()}.{self._beside()}"
        fit = len(self.runners_up) + 1
        level = [e for _, e in self.runners_up if e.separated == best.separated]
        share = f"{best.separated} of {best.pairs}"
        swaps = "" if best.swap_rate is None else f"swap rate {best.swap_rate:.3f}"
        if level and swaps:
            why = f"separates as many run pairs as any ({share}) and swaps least of those ({swaps})"
        elif level:
            why = f"separates as many run pairs as any ({share}) and comes first for the task"
        else:
            why = f"separates the most run pairs ({share}{'; ' + swaps if swaps else ''})"
        return f"{said}. Of the {fit} measures that fit, on these runs it {why}.{self._beside()}"

    def _beside(self) -> str:
        """What the measures that do not fit the task would separate more, and what they ignore."""
        return "".join(
            f" {pick.measure} separates more run pairs ({evidence.separated} of "
            f"{evidence.pairs}) but ignores {' and '.join(ignored)}."
            for pick, evidence, ignored in self.stronger
        )

    def to_dict(self) -> dict:
        return {
            "measure": self.measure,
            "reason": self.recommendation.reason,
            "evidence": vars(self.evidence),
            "runners_up": [vars(e) for _, e in self.runners_up],
            "stronger_but_unfit": [
                {**vars(e), "ignores": list(ignored)} for _, e, ignored in self.stronger
            ],
        }


def evidence_of(measure: str, power: pd.DataFrame, stability: pd.DataFrame) -> Evidence:
    """A measure's row of the discriminative power and stability frames (None where absent)."""

    def cell(frame: pd.DataFrame, column: str):
        if measure not in frame.index or column not in frame.columns:
            return None
        value = frame.loc[measure, column]
        return None if pd.isna(value) else value

    separated, pairs = cell(power, "significant"), cell(power, "pairs")
    swap = cell(stability, "swap rate")
    return Evidence(
        measure,
        None if separated is None else int(separated),
        None if pairs is None else int(pairs),
        None if swap is None else float(swap),
    )


def choose(
    picks: Sequence[Recommendation],
    names: Sequence[str],
    power: pd.DataFrame,
    stability: pd.DataFrame,
    *,
    unfit: Sequence[tuple[Recommendation, str, Sequence[str]]] = (),
) -> Choice | None:
    """The pick the evidence favours (:meth:`Evidence.rank_key`), None without picks; ``names``:
    each pick's measure as the evidence frames name it. ``unfit``: the measures that do not fit
    the task (each with its name in the frames and the answers it ignores): those separating more
    run pairs than the choice are said beside it, most first."""
    if not picks:
        return None
    ranked = sorted(
        (
            (pick, evidence_of(name, power, stability), order)
            for order, (pick, name) in enumerate(zip(picks, names, strict=True))
        ),
        key=lambda item: item[1].rank_key(item[2]),
    )
    (best, evidence, _), rest = ranked[0], ranked[1:]
    stronger = sorted(
        (
            (pick, found, tuple(ignored), order)
            for order, (pick, name, ignored) in enumerate(unfit)
            if (found := evidence_of(name, power, stability)).separated is not None
            and found.separated > (evidence.separated or 0)
        ),
        key=lambda item: item[1].rank_key(item[3]),
    )
    return Choice(
        best,
        evidence,
        tuple((pick, ev) for pick, ev, _ in rest),
        tuple((pick, ev, ignored) for pick, ev, ignored, _ in stronger),
    )
