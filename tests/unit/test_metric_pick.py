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


# --- the advice honours every answer about the task (#66) ------------------------------------

from itertools import product  # noqa: E402

import pytest  # noqa: E402

from rankviz.analyses import task as guidance  # noqa: E402
from rankviz.measures import parse  # noqa: E402

#: what each measure's user is, read from its name (the families' own meaning, not the code's table)
GRADED = {"nDCG", "ERR"}  # and RBP(graded=True)
STOPS = {"ERR", "RR", "RBP"}  # a user who stops: ERR, RR, RBP
ONE = {"RR", "Hits", "ERR"}  # one correct answer


def _kind(name: str) -> tuple[str, bool]:
    measure = parse(name)
    graded = measure.family.name in GRADED or dict(measure.params).get("graded") is True
    return measure.family.name, graded


def _warnings() -> guidance.CollectionWarnings:
    return guidance.CollectionWarnings(
        queries=10, no_relevant_in_qrels=[], none_found=[], many_relevant=["1"], many=10,
        judged=pd.Series({"a": 1.0}), k=10,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("single", "graded", "stops", "top"), list(product((True, False), repeat=2 * 2))
)
def test_every_measure_recommended_honours_every_answer(single, graded, stops, top) -> None:
    """graded -> a graded measure; users who stop -> ERR, RR or RBP; one answer -> RR, Hits or
    ERR; many answers -> no measure of the first relevant item alone unless users stop."""
    task = guidance.Task(single, 10 if top else None, graded, stops)
    picks = guidance.recommend(task, _warnings(), graded_share=0.4, rel=1)
    assert picks
    for pick in picks:
        family, is_graded = _kind(pick.measure)
        assert is_graded == graded, pick.measure
        if stops:
            assert family in STOPS, pick.measure
        if single:
            assert family in ONE, pick.measure
        elif not stops:
            assert family not in {"RR", "Hits"}, pick.measure
        if not top:
            assert "@" not in pick.measure or family == "ERR", pick.measure


def test_graded_and_stopping_users_never_get_p_at_10_however_many_pairs_it_separates() -> None:
    """P@10 separated the most run pairs and led the advice for 'graded: yes, stops: yes'; now
    the advice is among the measures that fit, and says beside it what P@10 would separate."""
    task = guidance.Task(False, 10, True, True)
    weighed = guidance.weighed(task, _warnings(), graded_share=0.4, rel=1)
    fits = [p for p, ignored in weighed if not ignored]
    unfit = [(p, str(parse(p.measure)), ignored) for p, ignored in weighed if ignored]
    names = [str(parse(p.measure)) for p in fits]
    rows = {n: (3, 0.2) for n in names} | {"P@10": (9, 0.05), "AP@10": (8, 0.06)}
    power, stability = _frames(rows)
    choice = choose(fits, names, power, stability, unfit=unfit)
    assert choice.measure in {p.measure for p in fits} and "P" not in choice.measure
    said = choice.sentence()
    assert (
        "P@10 separates more run pairs (9 of 15) but ignores the grades and that users stop at "
        "the first satisfying result." in said
    )
    assert said.index("P@10") < said.index("AP@10")  # most first
