"""What ``--ranks`` (rank intervals and Tukey groups) adds to ``rankviz evaluate``.

Two generated collections (written once under bench/data/; generated data, for timing only):
2,000 queries x 10 runs and the 20 MS MARCO-sized runs of ``bench_app_scale.py`` (6,980 queries),
every run 1,000 documents a query, listed by rank with falling scores, measures RR@10, nDCG@10 and
AP. Whole processes in turn, ``evaluate`` then ``evaluate --ranks`` (10,000 resamples, seed 1),
CPU seconds beside wall; prints the ratio of the medians. Asserts nothing.

    python bench/bench_ranks.py [--repeat N] [--only 2000x10|7000x20]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

from bench_app_scale import collection  # noqa: E402
from bench_report import alternated  # noqa: E402

PLAIN = pacsv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none")
STRINGS = pacsv.ConvertOptions(column_types={n: pa.string() for n in ("qid", "q0", "docid", "tag")})


def _read(path: Path, names: list[str]) -> pa.Table:
    return pacsv.read_csv(
        path,
        read_options=pacsv.ReadOptions(column_names=names),
        parse_options=pacsv.ParseOptions(delimiter=" "),
        convert_options=STRINGS,
    )


def smaller(n_queries: int = 2000, n_runs: int = 10) -> Path:
    """The first ``n_queries`` queries of the 20-run collection's first ``n_runs`` runs, with their
    judgments alone."""
    source = collection(n_runs)
    folder = HERE / "data" / f"ranks{n_queries}x{n_runs}"
    (folder / "runs").mkdir(parents=True, exist_ok=True)
    (folder / "collection.toml").write_text(
        (source / "collection.toml").read_text().replace("20 MS MARCO", "smaller MS MARCO")
    )
    qrels = _read(source / "qrels.txt", ["qid", "q0", "docid", "rel"])
    kept = pa.array(pc.unique(qrels.column("qid")).to_pylist()[:n_queries])
    if not (folder / "qrels.txt").exists():
        chosen = qrels.filter(pc.is_in(qrels.column("qid"), kept))
        pacsv.write_csv(chosen, folder / "qrels.txt", write_options=PLAIN)
    for i in range(n_runs):
        target = folder / "runs" / f"run{i:02d}.run"
        if not target.exists():
            run = _read(
                source / "runs" / f"run{i:02d}.run", ["qid", "q0", "docid", "rank", "score", "tag"]
            )
            pacsv.write_csv(
                run.filter(pc.is_in(run.column("qid"), kept)), target, write_options=PLAIN
            )
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", choices=("2000x10", "7000x20"))
    args = parser.parse_args()
    rankviz = [sys.executable, "-m", "rankviz", "evaluate"]
    cases = {"2000x10": smaller, "7000x20": lambda: collection(20)}
    for name, build in cases.items():
        if args.only not in (None, name):
            continue
        folder = str(build())
        print(f"{name}: {folder}")
        cpu = alternated(
            {
                "evaluate": [*rankviz, folder, "--no-check"],
                "ranks": [*rankviz, folder, "--no-check", "--ranks", "--seed", "1"],
            },
            args.repeat,
        )
        print(f"{name}: evaluate --ranks / evaluate: {cpu['ranks'] / cpu['evaluate']:.2f}x (CPU)")


if __name__ == "__main__":
    main()
