"""One recommendation for a task (#55): of the measures that fit, the one separating the most run
pairs, then the fewest swaps, then the task's own order; a measure without evidence never leads."""

from __future__ import annotations

import pandas as pd

from rankviz.analyses.metric_pick import choose
from rankviz.analyses.task import Recommendation


def _picks(*names: str) -> list[Recommendation]:
    return [Recommendation(n, f"why {n}", f"what {n} hides") for n in names]


def _frames(rows: dict[str, tuple]) -> tuple[pd.DataFrame, pd.DataFrame]:
    power = pd.DataFrame(
        {n: {"pairs": 15, "significant": sig} for n, (sig, _) in rows.items() if sig is not None}
    ).T
    stability = pd.DataFrame({n: {"swap rate": swap} for n, (_, swap) in rows.items()}).T
    return power, stability


def test_the_most_pairs_separated_leads_then_the_fewest_swaps() -> None:
    power, stability = _frames(
        {"AP@10": (8, 0.085), "P@10": (9, 0.049), "nDCG@10": (8, 0.105), "ERR@10": (1, 0.378)}
    )
    names = ["AP@10", "P@10", "nDCG@10", "ERR@10"]
    choice = choose(_picks(*names), names, power, stability)
    assert choice.measure == "P@10"
    assert [e.measure for _, e in choice.runners_up] == ["AP@10", "nDCG@10", "ERR@10"]
    assert choice.sentence() == (
        "Report P@10: why P@10. Of the 4 measures that fit, on these runs it separates the most "
        "run pairs (9 of 15; swap rate 0.049)."
    )


def test_equal_pairs_go_to_the_fewer_swaps_and_equal_ratios_to_the_tasks_order() -> None:
    # 0.1 + 0.2 and 0.3 differ in their last bits: the same swap rate
    power, stability = _frames({"A": (6, 0.1 + 0.2), "B": (6, 0.3), "C": (6, 0.09)})
    names = ["A", "B", "C"]
    choice = choose(_picks(*names), names, power, stability)
    assert choice.measure == "C" and [e.measure for _, e in choice.runners_up] == ["A", "B"]
    assert "separates as many run pairs as any (6 of 15) and swaps least of those" in (
        choice.sentence()
    )
    power, stability = _frames({"A": (6, 0.1 + 0.2), "B": (6, 0.3)})
    assert choose(_picks("B", "A"), ["B", "A"], power, stability).measure == "B"


def test_a_measure_without_evidence_never_leads_and_no_pick_is_no_choice() -> None:
    power, stability = _frames({"A": (None, float("nan")), "B": (0, 0.5)})
    choice = choose(_picks("A", "B"), ["A", "B"], power, stability)
    assert choice.measure == "B"
    assert choice.runners_up[0][1].sentence() == "no evidence on this collection"
    assert choose([], [], power, stability) is None
