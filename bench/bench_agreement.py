"""``rankviz agreement`` of two qrels of a million pairs each, beside what a person would write
instead, in the same run: pandas reading both files, an outer merge, and scikit-learn's Cohen's
kappa (plain and linear) on the pairs both judge.

The qrels are generated once under bench/data/ (generated data, for timing only): 1,000,000 pairs
over 20,000 queries, grades 0-3; the second judges 90% of them, each grade moved by -1, 0 or +1.
Each command runs in its own process; prints CPU seconds (user + system) beside wall time, medians
of ``--repeat`` runs alternated, and rankviz's cost as a multiple of the reference's. Asserts
nothing.

    python bench/bench_agreement.py [--repeat N]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from bench_report import alternated  # noqa: E402

DATA = HERE / "data"
REFERENCE = """
import sys
import pandas as pd
from sklearn.metrics import cohen_kappa_score
names = ["qid", "iter", "docid", "rel"]
ids = {"qid": str, "docid": str}
a, b = (pd.read_csv(p, sep=" ", names=names, dtype=ids) for p in sys.argv[1:3])
pairs = a.merge(b, on=["qid", "docid"], how="outer", suffixes=("_a", "_b"))
both = pairs.dropna(subset=["rel_a", "rel_b"])
for weights in (None, "linear"):
    print(cohen_kappa_score(both["rel_a"], both["rel_b"], weights=weights))
"""


def qrels() -> tuple[Path, Path]:
    """The two generated qrels files (written once)."""
    first, second = DATA / "agreement_a.qrels", DATA / "agreement_b.qrels"
    if first.exists() and second.exists():
        return first, second
    DATA.mkdir(exist_ok=True)
    rng = np.random.default_rng(3)
    queries, docs = rng.integers(0, 20_000, 1_100_000), rng.integers(0, 10**8, 1_100_000)
    pairs = np.unique(np.stack([queries, docs], 1), axis=0)[:1_000_000]
    grades = rng.integers(0, 4, len(pairs))
    moved = np.clip(grades + rng.integers(-1, 2, len(pairs)), 0, 3)
    kept = rng.random(len(pairs)) < 0.9
    with open(first, "w") as out:
        out.writelines(f"{q} 0 D{d} {g}\n" for (q, d), g in zip(pairs, grades, strict=True))
    with open(second, "w") as out:
        out.writelines(
            f"{q} 0 D{d} {g}\n" for (q, d), g, k in zip(pairs, moved, kept, strict=True) if k
        )
    return first, second


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    first, second = qrels()
    commands = {
        "reference": [sys.executable, "-c", REFERENCE, str(first), str(second)],
        "rankviz": [sys.executable, "-m", "rankviz", "agreement", str(first), str(second)],
    }
    cpu = alternated(commands, args.repeat)
    print(f"rankviz / reference: {cpu['rankviz'] / cpu['reference']:.2f}x (CPU)")


if __name__ == "__main__":
    main()
