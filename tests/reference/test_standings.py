"""Rank intervals and tie groups: the intervals against a direct bootstrap written here (one
resample at a time, ranks by scipy's rankdata), reproducible from the seed; the letters against
every pair's Tukey verdict, on generated matrices with ties and on the bundled collections; the
CLI's
``--ranks``."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest
from conftest import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import rankviz as rv
from rankviz.analyses.standings import compact_letters, measure_standing, rank_intervals
from rankviz.analyses.tukey import tukey_hsd
from rankviz.cli import main
from rankviz.errors import OptionError
from rankviz.settings.significance_settings import TestSettings
from rankviz.study import STANDINGS, TIE_REPORT

SAMPLES = ROOT / "sample_data"


def direct_bootstrap(
    values: np.ndarray, n_resamples: int, level: float, seed: int
) -> tuple[list[int], list[int]]:
    """The percentile interval of each run's rank, one resample at a time (Efron's paired
    bootstrap)."""
    rng = np.random.default_rng(seed)
    n = len(values)
    ranks = []
    for _ in range(n_resamples):
        means = values[rng.integers(0, n, size=n)].mean(axis=0)
        ranks.append(stats.rankdata(-np.round(means, 9), method="min"))
    ranks_by_run = np.array(ranks).T
    lower, upper = (1 - level) / 2 * (n_resamples - 1), (1 + level) / 2 * (n_resamples - 1)
    lows = [int(sorted(r)[math.floor(lower)]) for r in ranks_by_run]
    highs = [int(sorted(r)[math.ceil(upper)]) for r in ranks_by_run]
    return lows, highs


# Per-query values from a few levels, so that runs tie on queries and in their means.
matrices = st.integers(2, 5).flatmap(
    lambda runs: st.lists(
        st.lists(st.sampled_from([0.0, 0.25, 0.5, 1.0]), min_size=runs, max_size=runs),
        min_size=2,
        max_size=25,
    )
)


@pytest.mark.slow
@settings(max_examples=15, deadline=None)
@given(rows=matrices, seed=st.integers(0, 2**32 - 1), level=st.sampled_from([0.8, 0.9, 0.95]))
def test_rank_intervals_are_a_direct_paired_bootstrap_of_the_queries(rows, seed, level) -> None:
    values = np.array(rows)
    ours = rank_intervals(values, n_resamples=300, confidence_level=level, rng=seed, batch=7)
    lows, highs = direct_bootstrap(values, 300, level, seed)
    assert list(ours.low) == lows
    assert list(ours.high) == highs
    assert list(ours.rank) == list(stats.rankdata(-np.round(values.mean(axis=0), 9), method="min"))


def test_rank_intervals_are_reproducible_from_the_seed_and_move_with_it() -> None:
    values = (
        rv.Study.open(rv.StudyRequest(SAMPLES / "cranfield"))
        .evaluation()
        .matrix("nDCG@10")
        .to_numpy()
    )
    first = rank_intervals(values, n_resamples=2000, rng=11)
    again = rank_intervals(values, n_resamples=2000, rng=11, batch=333)
    assert (list(first.low), list(first.high)) == (list(again.low), list(again.high))
    assert all(
        low <= rank <= high
        for low, rank, high in zip(first.low, first.rank, first.high, strict=True)
    )
    widths = {
        seed: tuple(rank_intervals(values, n_resamples=200, rng=seed).high) for seed in range(8)
    }
    assert len(set(widths.values())) > 1  # the draws come from the seed: not a constant


@settings(max_examples=200, deadline=None)
@given(data=st.data(), runs=st.integers(1, 7))
def test_letters_are_shared_exactly_by_the_pairs_not_separated(data, runs) -> None:
    names = [f"r{i}" for i in range(runs)]
    pairs = list(itertools.combinations(names, 2))
    separated = data.draw(st.lists(st.sampled_from(pairs), unique=True) if pairs else st.just([]))
    letters = compact_letters(names, separated)
    for a, b in pairs:
        assert bool(set(letters[a]) & set(letters[b])) == ((a, b) not in separated), (a, b, letters)
    assert letters[names[0]].startswith("a")


@settings(max_examples=25, deadline=None)
@given(rows=matrices, seed=st.integers(0, 2**32 - 1), alpha=st.sampled_from([0.05, 0.2, 0.5]))
def test_the_groups_follow_every_pairs_tukey_verdict(rows, seed, alpha) -> None:
    import pandas as pd

    matrix = pd.DataFrame(rows, columns=[f"run{i}" for i in range(len(rows[0]))])
    table, grouped_by = measure_standing(
        matrix, n_resamples=400, confidence_level=0.95, alpha=alpha, seed=seed
    )
    tukey = tukey_hsd(matrix.to_numpy(), n_resamples=400, rng=seed)
    np.testing.assert_array_equal(grouped_by.pvalue, tukey.pvalue)  # before the first look
    for (i, a), (j, b) in itertools.combinations(enumerate(matrix.columns), 2):
        shared = bool(set(table.loc[a, "group"]) & set(table.loc[b, "group"]))
        assert shared == (tukey.pvalue[i, j] >= alpha)
    assert list(table["mean"]) == sorted(table["mean"], reverse=True)


@pytest.mark.slow
@pytest.mark.parametrize("collection", ["cranfield", "dl-hard-passage", "trec-cast-2021"])
def test_the_bundled_collections_standings_agree_with_tukey_and_the_means(collection) -> None:
    study = rv.Study.open(rv.StudyRequest(SAMPLES / collection))
    evaluation = study.evaluation()
    test = TestSettings(seed=5, n_resamples=1000)
    frame = study.ask(STANDINGS, test, evaluation=evaluation).to_frames()["standings"]
    for measure in evaluation.measures:
        rows = frame[frame["measure"] == str(measure)].set_index("run")
        matrix = evaluation.matrix(measure)
        tukey = tukey_hsd(matrix.to_numpy(), n_resamples=1000, rng=5)
        for (i, a), (j, b) in itertools.combinations(enumerate(matrix.columns), 2):
            assert bool(set(rows.loc[a, "group"]) & set(rows.loc[b, "group"])) == (
                tukey.pvalue[i, j] >= 0.05
            )
        for run in matrix.columns:
            assert rows.loc[run, "mean"] == pytest.approx(evaluation.mean(measure, run), abs=1e-12)
            assert rows.loc[run, "rank_low"] <= rows.loc[run, "rank"] <= rows.loc[run, "rank_high"]


def test_rank_intervals_need_the_query_mean_and_two_runs() -> None:
    study = rv.Study.open(
        rv.StudyRequest(
            SAMPLES / "dl-hard-passage", aggregate="macro", options={"group_by": "query_intent"}
        )
    )
    with pytest.raises(OptionError, match="aggregate query"):
        study.ask(STANDINGS, TestSettings(seed=1))
    with pytest.raises(OptionError, match="two runs"):
        rv.Study.open(rv.StudyRequest(SAMPLES / "cranfield", ["bm25"])).ask(
            STANDINGS, TestSettings(seed=1)
        )


def test_evaluate_and_compare_print_the_standings_reproducibly(capsys) -> None:
    folder = str(SAMPLES / "dl-hard-passage")
    args = [
        "evaluate",
        folder,
        "bm25",
        "bm25_t5-zs",
        "bm25_rm3",
        "-m",
        "nDCG@10",
        "--ranks",
        "--seed",
        "7",
        "--resamples",
        "500",
        "--format",
        "json",
    ]
    assert main(args) == 0
    first = json.loads(capsys.readouterr().out)
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out) == first
    rows = first["standings"]["standings"]
    assert [r["run"] for r in rows] == ["bm25_t5-zs", "bm25", "bm25_rm3"]
    assert {r["run"]: r["mean"] for r in rows} == {
        r["run"]: r["value"] for r in first["evaluation"] if r["qid"] == "all"
    }
    assert (
        main(["compare", folder, "bm25", "bm25_t5-zs", "-m", "nDCG@10", "--ranks", "--seed", "7"])
        == 0
    )
    text = capsys.readouterr().out
    standings = text.split("\n\nmeasure  run")[1]  # the table after the comparison
    assert "interval" in standings and standings.index("bm25_t5-zs") < standings.index("bm25 ")
    assert "randomised Tukey HSD" in text


@pytest.mark.slow
def test_standings_tell_their_progress_in_resamples_and_say_an_early_stop() -> None:
    """Every measure's HSD counts up to --resamples (the resamples it skipped told when it stops
    early), and the footer names the measures whose HSD stopped and after how many."""
    study = rv.Study.open(rv.StudyRequest(SAMPLES / "cranfield"))
    evaluation = study.evaluation()
    told: list[int] = []
    found = study.ask(
        STANDINGS,
        TestSettings(seed=4, n_resamples=20_000),
        evaluation=evaluation,
        progress=told.append,
    )
    assert sum(told) == 20_000 * len(evaluation.measures) and len(told) > len(evaluation.measures)
    assert found.settled_after and set(found.settled_after) <= {str(m) for m in evaluation.measures}
    assert all(1_000 <= n < 20_000 for n in found.settled_after.values())
    said = found.describe()
    for measure, n in found.settled_after.items():
        assert f"{n:,} resamples for {measure}" in said
    assert found.to_dict()["tukey_settled_after"] == dict(found.settled_after)


def test_the_tie_report_tells_each_run_done() -> None:
    study = rv.Study.open(rv.StudyRequest(SAMPLES / "cranfield", measures=["AP"]))
    told: list[int] = []
    study.ask(TIE_REPORT, progress=told.append)
    assert told == [1] * len(study.run_names)


@pytest.mark.parametrize("trials", [0, 3])
def test_the_tie_report_of_runs_side_by_side_is_the_one_of_runs_in_turn(trials: int) -> None:
    """The app takes two runs at once (each thread keeps its own run's tables): the same report,
    number for number and in the runs' order, as one run after another; with random orders (whose
    draws follow the runs' order) too, since those are then taken in turn."""
    from rankviz.settings.report_settings import TieReportSettings

    study = rv.Study.open(rv.StudyRequest(SAMPLES / "cranfield", measures=["AP", "nDCG@10", "RR"]))
    options = TieReportSettings(trials=trials)
    told: list[int] = []
    side_by_side = study.ask(
        TIE_REPORT, options=options, rng=5, progress=told.append, runs_at_once=2
    )
    in_turn = study.ask(TIE_REPORT, options=options, rng=5)
    assert told == [1] * len(study.run_names)
    assert side_by_side.to_dict() == in_turn.to_dict()
    assert list(side_by_side.statistics.index) == study.run_names
