"""Server-side time of a dashboard rerun after a widget change, on MS MARCO-sized runs.

Builds (under bench/data/) a collection folder with two MS MARCO dev-sized runs (the generated
run of bench_evaluate.py and a copy with perturbed scores), opens the Overview page through the
same frame the app runs, then times reruns after changing K, the measures and the baseline
measure on the Per-query deltas page. Prints seconds; nothing is asserted.

    python bench/bench_app_rerun.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from streamlit.testing.v1 import AppTest

HERE = Path(__file__).parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
from bench_evaluate import generate  # noqa: E402

HARNESS = """
import sys
sys.argv = ["app.py", "--data", {data!r}]
from rankviz.app.pages import navigate
navigate(default={page!r})
"""


def collection() -> Path:
    qrels, run = generate("msmarco")
    folder = HERE / "data" / "msmarco_collection"
    (folder / "runs").mkdir(parents=True, exist_ok=True)
    if not (folder / "qrels.txt").exists():
        (folder / "qrels.txt").symlink_to(qrels.resolve())
    if not (folder / "runs" / "first.run").exists():
        (folder / "runs" / "first.run").symlink_to(run.resolve())
    second = folder / "runs" / "second.run"
    if not second.exists():
        frame = pd.read_csv(
            run, sep=" ", header=None, names=["qid", "q0", "docid", "rank", "score", "tag"], dtype={"qid": str, "docid": str}
        )
        frame["score"] = np.round(frame["score"] + np.random.default_rng(7).normal(0, 1, len(frame)), 6)
        frame.to_csv(second, sep=" ", header=False, index=False)
    return folder


def app(page: str, folder: Path) -> AppTest:
    script = HARNESS.format(data=str(folder), page=page)
    at = AppTest.from_string(script, default_timeout=600)
    at.query_params["collection"] = folder.name
    return at


def timed(label: str, action) -> None:
    start = time.perf_counter()
    at = action()
    elapsed = time.perf_counter() - start
    problems = [e.value for e in at.exception] + [e.value for e in at.error]
    print(f"{label:>48}: {elapsed:6.2f} s" + (f"  ({problems})" if problems else ""))


def main() -> None:
    folder = collection()
    overview = app("overview", folder)
    timed("first load (read, order, evaluate 2 runs)", overview.run)
    timed("rerun, nothing changed", overview.run)
    timed("K 10 -> 20", lambda: overview.sidebar.number_input[0].set_value(20).run())
    timed("measures -> RR, nDCG@K", lambda: overview.sidebar.multiselect[1].set_value(["RR", "nDCG@K"]).run())
    timed("relevance threshold 1 -> 2", lambda: overview.sidebar.number_input[1].set_value(2).run())
    deltas = app("deltas", folder)
    timed("deltas page, first load (runs cached)", deltas.run)
    timed("deltas: measure -> AP", lambda: _set(deltas, "Measure", "AP"))


def _set(at: AppTest, label: str, value: str) -> AppTest:
    return next(s for s in at.selectbox if s.label == label).set_value(value).run()


if __name__ == "__main__":
    main()
