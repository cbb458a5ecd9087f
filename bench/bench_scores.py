"""Per-query scores read and evaluated: ``rankviz evaluate`` on a long table of 420,000 rows (20
runs x 7,000 queries x 3 scores, uniform, seed 0), wall and CPU seconds, beside a bare pandas read
and group-by of the same file in a process of its own (the reference measured in the same run).

    python bench/bench_scores.py [--repeat N]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

from bench_trec_eval import timed  # noqa: E402

DATA = HERE / "data" / "scores"
BARE = (
    "import sys, pandas as pd; f = pd.read_csv(sys.argv[1], sep='\\t'); "
    "f.groupby(['run', 'measure'])['value'].mean()"
)


def generate(seed: int = 0) -> Path:
    """The long table (written once)."""
    path = DATA / "long.tsv"
    if path.exists():
        return path
    import numpy as np
    import pandas as pd

    DATA.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    runs, queries = [f"r{i}" for i in range(20)], [str(q) for q in range(7000)]
    n = len(runs) * len(queries)
    wide = pd.DataFrame(
        {"run": np.repeat(runs, len(queries)), "query": np.tile(queries, len(runs))}
    )
    wide = wide.assign(nugget=rng.random(n), judge=rng.random(n), latency=rng.random(n))
    wide.melt(id_vars=["run", "query"], var_name="measure", value_name="value").to_csv(
        path, sep="\t", index=False
    )
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    path = generate()
    ours = min(
        timed([sys.executable, "-m", "rankviz", "evaluate", str(path)]) for _ in range(args.repeat)
    )
    bare = min(timed([sys.executable, "-c", BARE, str(path)]) for _ in range(args.repeat))
    print(f"rankviz evaluate   {ours[0]:6.2f} s wall {ours[1]:6.2f} CPU-s")
    print(f"pandas read+mean   {bare[0]:6.2f} s wall {bare[1]:6.2f} CPU-s")
    print(f"ratio (CPU)        {ours[1] / bare[1]:6.2f}x")


if __name__ == "__main__":
    main()
