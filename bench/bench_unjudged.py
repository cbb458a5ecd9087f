"""The cost of the unjudged-documents sensitivity against one ordinary evaluation, on an MS
MARCO-sized run.

Takes the MS MARCO dev-sized run of ``bench_evaluate.py`` (6,980 queries x 1,000 documents, about
one judgment a query: nearly every document is unjudged, the worst case for filling) and times,
best of N, in this process on the already-ranked table: (a) one evaluation of the seven measures,
(b) the same evaluation with the unjudged documents of each top K judged relevant, (c) the whole
report (both ends, Judged@10, the documents to judge); then, in rounds, ``rankviz evaluate``,
``rankviz evaluate --unjudged relevant`` and ``rankviz unjudged`` end to end, as ratios to the
first. Asserts nothing.

    python bench/bench_unjudged.py [--repeat N]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from bench_evaluate import MEASURES, best, generate, measure  # noqa: E402

import rankviz  # noqa: E402
from rankviz.analyses.unjudged import report_from_tables  # noqa: E402
from rankviz.settings.report_settings import UnjudgedSettings  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    qrels_path, run_path = generate("msmarco")
    qrels, run = rankviz.read_qrels(qrels_path), rankviz.read_run(run_path)
    measures = [rankviz.parse(m) for m in MEASURES]
    table = rankviz.rank(run, qrels)
    settings = rankviz.EvalSettings()
    fresh = lambda: {"run": rankviz.rank(run, qrels)}  # noqa: E731  (filled tables are cached on a table)
    one = best(lambda: rankviz.evaluate_tables({"run": table}, measures, settings), args.repeat)
    filled = best(
        lambda: rankviz.evaluate_tables(fresh(), measures, settings.replace(unjudged="relevant")),
        args.repeat,
    )
    ranking = best(fresh, args.repeat)
    report = best(
        lambda: report_from_tables(fresh(), measures, settings, None, UnjudgedSettings(k=10)),
        args.repeat,
    )
    print(f"one evaluation (7 measures, table ready): {one:.3f} s")
    print(f"filled end alone (incl. a fresh ranking of {ranking:.3f} s): {filled:.3f} s")
    print(
        "whole report (both ends, Judged@10, documents to judge; incl. the ranking): "
        f"{report:.3f} s"
    )
    base = [
        sys.executable,
        "-m",
        "rankviz",
        "evaluate",
        str(qrels_path),
        str(run_path),
        "--format",
        "tsv",
    ]
    for m in MEASURES:
        base += ["-m", m]
    commands = {
        "evaluate": base,
        "evaluate --unjudged relevant": [*base, "--unjudged", "relevant"],
        "unjudged (the report)": [*base[:3], "unjudged", *base[4:]],
    }
    timings: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(args.repeat):  # rounds over the commands, so a slow spell hits each alike
        for name, command in commands.items():
            timings[name].append(measure(command)[0])
    plain = min(timings["evaluate"])
    for name, runs in timings.items():
        print(
            f"end to end: rankviz {name}: {min(runs):.2f} s, {min(runs) / plain:.2f}x rankviz "
            "evaluate"
        )
    print(
        "goal: the sensitivity (rankviz unjudged: both ends of every measure) at most 2x one "
        "ordinary evaluation"
    )


if __name__ == "__main__":
    main()
