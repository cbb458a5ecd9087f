"""A number a team copies into a report comes back the same (#66): every draw (resampled tests,
bootstrap intervals, rank intervals, swap rates, random tie orders) takes a fixed default seed, said
in the footer; ``--seed N`` gives others, ``--seed fresh`` fresh entropy, said so."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import CRANFIELD, run_cli

import rankviz as rv

DRAWN = [
    pytest.param(  # over a second: the compare cases are its quicker siblings
        ["metrics-report", str(CRANFIELD), "bm25", "dense", "rrf", "--splits", "60"]
        + ["--resamples", "100"],
        marks=pytest.mark.slow,
        id="metrics-report",
    ),
    pytest.param(
        ["compare", str(CRANFIELD), "-m", "AP", "--test", "randomization", "--resamples", "300"],
        id="compare randomization",
    ),
    pytest.param(
        ["compare", str(CRANFIELD), "-m", "AP", "--test", "bootstrap", "--resamples", "300"],
        id="compare bootstrap",
    ),
    pytest.param(
        ["evaluate", str(CRANFIELD), "-m", "AP", "--ranks", "--resamples", "300"], id="ranks"
    ),
    pytest.param(
        ["evaluate", str(CRANFIELD), "bm25", "rrf", "-m", "AP", "--ties", "random"]
        + ["--trials", "3"],
        id="random ties",
    ),
]


@pytest.mark.parametrize("argv", DRAWN)
@pytest.mark.few
def test_the_same_command_prints_the_same_numbers_and_says_its_seed(argv: list[str]) -> None:
    first, again = run_cli(*argv), run_cli(*argv)
    assert first.returncode == 0, first.stderr
    assert first.stdout == again.stdout
    assert "seed 0" in first.stdout
    fresh = run_cli(*argv, "--seed", "fresh")
    assert fresh.returncode == 0, fresh.stderr
    assert "fresh entropy" in fresh.stdout and "seed 0" not in fresh.stdout
    other = run_cli(*argv, "--seed", "7")
    assert "seed 7" in other.stdout


@pytest.mark.slow
def test_fresh_entropy_gives_other_numbers_and_a_seed_the_same() -> None:
    argv = [
        "metrics-report",
        str(CRANFIELD),
        "bm25",
        "dense",
        "rrf",
        "--splits",
        "200",
        "--resamples",
        "100",
    ]
    argv += ["--format", "json"]
    fresh = [run_cli(*argv, "--seed", "fresh").stdout for _ in range(2)]
    assert fresh[0] != fresh[1]  # 200 random splits of 225 queries: never twice the same rates
    assert run_cli(*argv, "--seed", "3").stdout == run_cli(*argv, "--seed", "3").stdout


def test_the_apis_draws_are_seeded_unless_a_generator_is_given() -> None:
    evaluation = rv.evaluate(
        CRANFIELD / "qrels.txt", [CRANFIELD / "runs" / f"{n}.run.gz" for n in ("bm25", "rrf")], "AP"
    )
    tables = [rv.compare(evaluation, test="randomization", n_resamples=300).table for _ in "ab"]
    assert tables[0]["p_value"].equals(tables[1]["p_value"])
    from rankviz.analyses.standings import rank_intervals

    matrix = evaluation.matrix("AP")
    a, b = (rank_intervals(matrix, n_resamples=200) for _ in "ab")
    np.testing.assert_array_equal(a.low, b.low)
    fresh = rank_intervals(matrix, n_resamples=200, rng=np.random.default_rng())
    assert fresh.low.shape == a.low.shape
    assert rv.EvalSettings().seed == 0 and rv.TestSettings().seed == 0
    assert rv.EvalSettings.from_url({"seed": "fresh"}).seed is None
    assert rv.EvalSettings(seed=None).to_text() == {"seed": "fresh"}
