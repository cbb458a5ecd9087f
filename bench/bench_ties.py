"""Time of ``ties="expected"`` (and of one ``random`` order) against the default policy on a
tie-heavy run.

Takes the MS MARCO-sized run of ``bench_evaluate.py`` (generated under bench/data/), rounds every
score to one decimal (groups of equal scores of about 5 to 15 documents below the top ranks), and
times, best of N, (a) ranking plus every measure in this process on the already-read run and (b)
``python -m rankviz evaluate`` end to end, under each policy, and the time and peak memory of
``python -m rankviz ties`` on that run. Prints the ratios; asserts nothing.

    python bench/bench_ties.py [--repeat N]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from bench_evaluate import DATA, MEASURES, best, generate, measure  # noqa: E402

import rankviz  # noqa: E402


def rounded_run() -> tuple[Path, Path]:
    """The MS MARCO-sized run with scores rounded to one decimal (written once)."""
    qrels, run = generate("msmarco")
    target = DATA / "msmarco_ties.run"
    if not target.exists():
        names = ["qid", "q0", "docid", "rank", "score", "tag"]
        table = pacsv.read_csv(
            run,
            read_options=pacsv.ReadOptions(column_names=names),
            parse_options=pacsv.ParseOptions(delimiter=" "),
            convert_options=pacsv.ConvertOptions(
                column_types={"qid": pa.string(), "docid": pa.string()}
            ),
        )
        rounded = np.round(table["score"].to_numpy(), 1)
        table = table.set_column(names.index("score"), "score", pa.array(rounded))
        pacsv.write_csv(
            table,
            target,
            write_options=pacsv.WriteOptions(
                include_header=False, delimiter=" ", quoting_style="none"
            ),
        )
    return qrels, target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    qrels_path, run_path = rounded_run()
    qrels, run = rankviz.read_qrels(qrels_path), rankviz.read_run(run_path)
    measures = [rankviz.parse(m) for m in MEASURES]
    table = rankviz.rank(run, qrels)
    sizes = np.bincount(table.tie_group)
    print(
        f"{len(run):,} run lines; {np.mean(sizes[table.tie_group] > 1):.0%} of documents in tie "
        f"groups, largest {sizes.max()}"
    )
    print(f"measures: {', '.join(MEASURES)}")

    timed = {}
    for policy in ("trec_eval", "expected", "random"):
        timed[policy] = best(
            lambda p=policy: rankviz.evaluate(qrels, [run], measures, ties=p, trials=1, seed=0),
            args.repeat,
        )
        print(f"rank + measures, ties={policy:>9}: {timed[policy]:.2f} s")
    print(f"in process: expected / trec_eval = {timed['expected'] / timed['trec_eval']:.2f}")
    print(f"in process: one random order / trec_eval = {timed['random'] / timed['trec_eval']:.2f}")

    cli = {}
    for policy in ("trec_eval", "expected"):
        command = [
            sys.executable,
            "-m",
            "rankviz",
            "evaluate",
            str(qrels_path),
            str(run_path),
            "--ties",
            policy,
            "--format",
            "tsv",
        ]
        command += [arg for m in MEASURES for arg in ("-m", m)]
        cli[policy] = best(
            lambda c=command: subprocess.run(
                c, check=True, stdout=subprocess.DEVNULL, cwd=HERE.parent
            ),
            args.repeat,
        )
        print(f"python -m rankviz evaluate --ties {policy:>9}: {cli[policy]:.2f} s")
    print(
        f"end to end: expected / trec_eval = {cli['expected'] / cli['trec_eval']:.2f}  (target "
        "<= 2)"
    )

    report = [
        sys.executable,
        "-m",
        "rankviz",
        "ties",
        str(qrels_path),
        str(run_path),
        "-m",
        "RR@10",
        "-m",
        "nDCG@10",
    ]
    seconds, peak = measure(report)
    print(
        f"python -m rankviz ties (one run, RR@10 and nDCG@10, five policies): {seconds:.2f} s, "
        f"peak {peak:.0f} MB"
    )


if __name__ == "__main__":
    main()
