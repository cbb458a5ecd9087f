"""Which runs each run beats (#55): the Overview's marks, every pair of runs tested and corrected
together, as ranx's report marks them; checked against scipy's paired t tests with statsmodels'
Holm correction, and on hand-made tables."""

from __future__ import annotations

from itertools import combinations

import pandas as pd
from conftest import CRANFIELD
from scipy import stats
from statsmodels.stats.multitest import multipletests

import rankviz as rv
from rankviz.analyses.verdicts import beaten
from rankviz.study import BEATS


def test_a_pair_marks_its_winner_and_nothing_else() -> None:
    table = pd.DataFrame(
        {
            "baseline": ["a", "a", "b"],
            "run": ["b", "c", "c"],
            "delta": [0.2, -0.1, 0.0],
            "p_adjusted": [0.01, 0.04, 0.001],
        }
    )
    assert beaten(table, alpha=0.05) == {"a": ["c"], "b": ["a"], "c": []}
    # lower is better: the signs turn; at alpha 0.02 the second pair is not separated
    assert beaten(table, alpha=0.02, lower_is_better=True) == {"a": ["b"], "b": [], "c": []}
    # a pair without a p is no win
    missing = table.assign(p_adjusted=[float("nan"), 0.04, 0.5])
    assert beaten(missing, alpha=0.05) == {"a": ["c"], "b": [], "c": []}


def test_every_runs_wins_are_scipys_t_tests_holm_corrected_over_all_pairs() -> None:
    runs = ["bm25", "dense", "rrf", "tfidf"]
    study = rv.Study.open(rv.StudyRequest(CRANFIELD, runs, measures=["AP", "RR@10"]))
    beats = study.ask(BEATS, rv.TestSettings(test="t", correction="holm", alpha=0.05))
    evaluation = study.evaluation()
    for measure in ("AP", "RR@10"):
        values = evaluation.matrix(measure)
        pairs = list(combinations(runs, 2))
        p = [stats.ttest_rel(values[b], values[a]).pvalue for a, b in pairs]
        reject = multipletests(p, alpha=0.05, method="holm")[0]
        expected: dict[str, set[str]] = {run: set() for run in runs}
        for (a, b), separated in zip(pairs, reject, strict=True):
            if separated:
                winner, loser = (b, a) if values[b].mean() > values[a].mean() else (a, b)
                expected[winner].add(loser)
        assert {run: set(beats.loc[run, measure]) for run in runs} == expected
    assert any(beats.loc[run, "AP"] for run in runs)  # Cranfield separates some pairs on AP
