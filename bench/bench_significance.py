"""Time of the significance tests on 20 runs x 6,980 queries (MS MARCO dev size).

Per-query values are generated (RR-like: mostly 0, 1, 1/2, ...), one baseline and 19 runs. Times,
best of N, every test of ``rankviz.analyses.significance`` against the baseline with 10,000
resamples, and scipy's ``permutation_test`` on the same job as the reference. Prints times and
ratios; asserts nothing.

    python bench/bench_significance.py [--repeat N] [--resamples B]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

sys.path.insert(0, str(Path(__file__).parent.parent))
sys.path.insert(0, str(Path(__file__).parent))

from bench_evaluate import best  # noqa: E402

from rankviz.analyses import comparisons  # noqa: E402
from rankviz.analyses import significance as sg  # noqa: E402
from rankviz.analyses.tukey import tukey_hsd  # noqa: E402


def values(n_queries: int = 6980, n_runs: int = 20, seed: int = 20261130) -> pd.DataFrame:
    """Reciprocal-rank-like per-query values with correlated runs (generated, for timing only)."""
    rng = np.random.default_rng(seed)
    quality = rng.normal(0, 1, n_queries)
    columns = {}
    for run in range(n_runs):
        rank = np.ceil(np.exp(rng.normal(1.2 - 0.4 * quality - 0.02 * run, 1.0)))
        columns[f"run{run:02d}"] = np.where(rank <= 10, 1.0 / np.maximum(rank, 1), 0.0)
    return pd.DataFrame(columns)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--resamples", type=int, default=10_000)
    args = parser.parse_args()
    matrix = values()
    baseline, runs = matrix.iloc[:, 0].to_numpy(), matrix.iloc[:, 1:].to_numpy().T
    B = args.resamples
    print(f"{runs.shape[0]} runs against a baseline on {matrix.shape[0]} queries, {B} resamples")
    timed = {
        "t": lambda: sg.paired_t(runs, baseline),
        "wilcoxon": lambda: sg.wilcoxon(runs, baseline),
        "sign": lambda: sg.sign_test(runs, baseline),
        "randomization": lambda: sg.randomization(runs, baseline, n_resamples=B, rng=1),
        "bootstrap": lambda: sg.bootstrap(runs, baseline, n_resamples=B, rng=1),
        "tukey (all 190 pairs)": lambda: tukey_hsd(matrix.to_numpy(), n_resamples=B, rng=1),
        "compare_runs t + holm": lambda: comparisons.compare_runs(
            matrix, measure="RR@10", test="t"
        ),
    }
    results = {name: best(action, args.repeat) for name, action in timed.items()}
    for name, seconds in results.items():
        print(f"{name:>24}: {seconds:7.2f} s")

    def scipy_randomization() -> None:
        stats.permutation_test(
            (runs, np.broadcast_to(baseline, runs.shape)),
            lambda x, y, axis: np.mean(x - y, axis=axis),
            permutation_type="samples",
            n_resamples=B,
            vectorized=True,
            axis=-1,
            batch=100,
            rng=1,
        )

    reference = best(scipy_randomization, 1)
    print(
        f"{'scipy permutation_test':>24}: {reference:7.2f} s (same 19 runs, same resamples count)"
    )
    print(f"randomization: rankviz / scipy = {results['randomization'] / reference:.3f}")


if __name__ == "__main__":
    main()
