"""Server-side time of the app's reruns after a widget change, page by page (the meeting's pace).

On Cranfield (six runs) and on a collection folder of two MS MARCO dev-sized runs (the generated
run of bench_evaluate.py and a copy with perturbed scores, built once under bench/data/), every page
is opened through the same frame the app runs (AppTest), then one of its widgets is switched back
and forth; each switch is a rerun as a user's click makes it. Then the meeting's pace: a judgment
made by a colleague (the Overview and Deltas rerun with it), Next through the discussion queue, a
note recorded, and the Overview over a record of 100,000 judgments. Prints, per page, the first load
and the median and slowest switch, in seconds and as a multiple of a reference measured in the same
run (a rerun of a page that only draws a table of the collection's queries x runs, on the same
sidebar switch), so a figure from a slower or busier machine still says whether the app keeps the
meeting's pace: the goal, with the caches warm, is every switch under :data:`GOALS`' multiple of
the reference. Then the CPU seconds of the whole bench. Asserts nothing.

The process runs with the memory settings ``rankviz app`` gives its server (rankviz/_memory.py: it
starts itself again with them); ``--plain`` keeps the allocator's defaults, as ``streamlit run
app.py`` has them.

    python bench/bench_app_rerun.py [--only cranfield|msmarco] [--switches N] [--plain]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd
from streamlit.testing.v1 import AppTest

HERE = Path(__file__).parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
from bench_evaluate import generate  # noqa: E402

from rankviz._memory import server_environment  # noqa: E402

HARNESS = """
import sys
sys.argv = ["app.py", "--data", {data!r}]
from rankviz.app.frame.pages import navigate
navigate(default={page!r})
"""


def msmarco_collection() -> Path:
    qrels, run = generate("msmarco")
    folder = HERE / "data" / "msmarco_collection"
    (folder / "runs").mkdir(parents=True, exist_ok=True)
    for source, target in ((qrels, folder / "qrels.txt"), (run, folder / "runs" / "first.run")):
        # made by an older version: the app does not follow links out of a collection
        if target.is_symlink():
            target.unlink()
        if not target.exists():
            try:
                # the same bytes, no copy, and no link leading out of the folder
                os.link(source, target)
            except OSError:
                shutil.copyfile(source, target)
    second = folder / "runs" / "second.run"
    if not second.exists():
        frame = pd.read_csv(
            run,
            sep=" ",
            header=None,
            names=["qid", "q0", "docid", "rank", "score", "tag"],
            dtype={"qid": str, "docid": str},
        )
        frame["score"] = np.round(
            frame["score"] + np.random.default_rng(7).normal(0, 1, len(frame)), 6
        )
        frame.to_csv(second, sep=" ", header=False, index=False)
    return folder


#: the reference every rerun is measured against, in the same run: a page that only draws a table
#: of the collection's queries x runs and reruns on the same sidebar switch as the Overview
REFERENCE = """
import numpy as np
import pandas as pd
import streamlit as st

k = st.sidebar.number_input("K (cutoff of the @K measures)", value=10)
st.dataframe(pd.DataFrame(np.random.default_rng(int(k)).random(({rows}, {columns}))))
"""
#: the goal of every switch, as a multiple of the reference's median rerun: 0.3 s on Cranfield and
#: 0.5 s on the MS MARCO-sized runs where they were set (2026-12-05, a reference of 3 ms)
GOALS = {"cranfield": 100, "msmarco": 160}


def bench_reference(rows: int, columns: int, switches: int) -> Timed:
    """Reruns of :data:`REFERENCE` with a table of ``rows`` x ``columns``."""
    at = AppTest.from_string(REFERENCE.format(rows=rows, columns=columns), default_timeout=900)
    return _timed(
        at,
        switches,
        lambda at, i: _switch(
            at, "sidebar number_input", "K (cutoff of the @K measures)", (20, 10)[i % 2]
        ),
        "reference",
    )


def _pick(elements, label: str):
    return next(e for e in elements if e.label == label)


# per page: the widget switched back and forth (kind, label, two values)
SWITCHES = {
    "overview": ("sidebar number_input", "K (cutoff of the @K measures)", (20, 10)),
    "deltas": ("selectbox", "Measure", None),
    "histograms": ("toggle", "One panel per run", (True, False)),
    "significance": ("selectbox", "Test", ("randomization", "t")),
    "ties": ("selectbox", "Measure", None),
    "unjudged": ("selectbox", "Measure", None),
    "metric_choice": ("radio", "Is relevance graded?", ("no", "yes")),
}


def _switch(at: AppTest, kind: str, label: str, value) -> AppTest:
    scope, _, kind = kind.rpartition(" ")
    elements = getattr(at.sidebar if scope == "sidebar" else at, kind)
    return _pick(elements, label).set_value(value).run()


def _page(data: str | None, collection: str, page: str, **params: str) -> AppTest:
    """``page`` as the app runs it, on ``collection`` (of the ``--data`` folder ``data``), with URL
    ``params``."""
    bare = f"from rankviz.app.frame.pages import navigate\nnavigate(default={page!r})\n"
    at = AppTest.from_string(
        HARNESS.format(data=data, page=page) if data else bare, default_timeout=900
    )
    at.query_params["collection"] = collection
    for key, value in params.items():
        at.query_params[key] = value
    return at


class Timed(NamedTuple):
    """A page's first load (wall and CPU seconds) and each timed step's."""

    first: float
    first_cpu: float
    times: list[float]
    cpu: list[float]


def _timed(
    at: AppTest,
    switches: int,
    step: Callable[[AppTest, int], AppTest],
    what: str,
    *,
    ready: Callable[[AppTest], AppTest] | None = None,
    before: Callable[[int], None] | None = None,
) -> Timed:
    """The first load, then ``switches`` timed steps, wall and CPU seconds of each (``ready``:
    once, untimed, after the load; ``before``: untimed, before each step)."""

    def checked(at: AppTest) -> AppTest:
        if at.exception:
            raise RuntimeError(f"{what}: {at.exception[0].value}")
        return at

    start, start_cpu = time.perf_counter(), time.process_time()
    at = checked(at.run())
    first = time.perf_counter() - start
    first_cpu = time.process_time() - start_cpu
    at = checked(ready(at)) if ready else at
    times, cpu = [], []
    for i in range(switches):
        if before:
            before(i)
        start, start_cpu = time.perf_counter(), time.process_time()
        at = checked(step(at, i))
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return Timed(first, first_cpu, times, cpu)


def bench_page(page: str, data: str | None, collection: str, switches: int) -> Timed:
    kind, label, values = SWITCHES[page]

    def step(at: AppTest, i: int) -> AppTest:
        # a measure selector: its first two
        shown = values or tuple(_pick(getattr(at, kind), label).options[:2])[::-1]
        return _switch(at, kind, label, shown[i % 2])

    return _timed(_page(data, collection, page), switches, step, page)


def _record(data: str | None, collection: str) -> tuple[Path, Path]:
    """A fresh meeting's record for the collection, and the collection's folder."""
    os.environ["RANKVIZ_NOTES"] = tempfile.mkdtemp(prefix="rankviz-bench-notes-")
    folder = Path(data) if data else ROOT / "sample_data" / collection
    return Path(os.environ["RANKVIZ_NOTES"]) / f"{folder.name}.sqlite", folder


def bench_judgments(data: str | None, collection: str, switches: int, page: str) -> Timed:
    """Reruns of ``page``, each after one more judgment in the meeting's record (qrels=meeting)."""
    from rankviz.io.meeting import MeetingStore

    path, folder = _record(data, collection)
    store = MeetingStore(path)
    qid = (folder / "qrels.txt").read_text().split(maxsplit=1)[0]
    store.judge(qid, "meeting-doc-0", 1, by="bench", via="typed name")
    return _timed(
        _page(data, collection, page, qrels="meeting"),
        switches,
        lambda at, i: at.run(),
        "judgment",
        before=lambda i: store.judge(qid, f"meeting-doc-{i + 1}", 2, by="bench", via="typed name"),
    )


def bench_next(data: str | None, collection: str, switches: int) -> Timed:
    """The Deltas page: Next through the discussion queue, as the presenter steps."""
    return _timed(
        _page(data, collection, "deltas"),
        switches,
        lambda at, i: _pick(at.button, "Next").click().run(),
        "next",
    )


def bench_note(data: str | None, collection: str, switches: int) -> Timed:
    """The Deltas page: a note typed and confirmed, recorded, and the page shown again with it."""
    _record(data, collection)
    return _timed(
        _page(data, collection, "deltas"),
        switches,
        lambda at, i: _pick(at.text_area, "Note on this query").input(f"note {i}").run(),
        "note",
        ready=lambda at: at.text_input(key="meeting.name").input("bench").run(),
    )


def bench_large_record(
    data: str | None, collection: str, switches: int, judgments: int = 100_000
) -> Timed:
    """The Overview with the meeting's qrels in force from a record of ``judgments`` entries: reruns
    after a K switch."""
    from rankviz.io.meeting import MeetingStore

    path, folder = _record(data, collection)
    qids = list(
        dict.fromkeys(
            line.split(maxsplit=1)[0]
            for line in (folder / "qrels.txt").read_text().splitlines()
            if line
        )
    )
    MeetingStore(path).judge_many(
        [(qids[i % len(qids)], f"bench-doc-{i}", i % 3) for i in range(judgments)],
        by="bench",
        via="typed name",
    )
    step = lambda at, i: _switch(  # noqa: E731
        at, "sidebar number_input", "K (cutoff of the @K measures)", (20, 10)[i % 2]
    )
    return _timed(
        _page(data, collection, "overview", qrels="meeting"), switches, step, "large record"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=("cranfield", "msmarco"), action="append")
    parser.add_argument("--switches", type=int, default=6, help="switches per page (default 6)")
    parser.add_argument(
        "--plain", action="store_true", help="the allocator's defaults, not rankviz app's"
    )
    args = parser.parse_args()
    environment = server_environment()
    if not args.plain and environment != dict(os.environ):
        # the settings glibc reads at a process's start: this bench again, with them
        os.execve(sys.executable, [sys.executable, *sys.argv], environment)
    print(
        "memory settings: "
        + ("the allocator's defaults" if args.plain else "rankviz app's (rankviz/_memory.py)")
    )
    start_cpu = time.process_time()
    targets = {"cranfield": (None, "cranfield"), "msmarco": (None, "msmarco_collection")}
    for name, (data, collection) in targets.items():
        if args.only and name not in args.only:
            continue
        if name == "msmarco":
            data = str(msmarco_collection())
        folder = Path(data) if data else ROOT / "sample_data" / collection
        queries = len({line.split(maxsplit=1)[0] for line in open(folder / "qrels.txt") if line})
        runs = len(list((folder / "runs").iterdir()))
        _, _, times, cpu = bench_reference(queries, runs, max(args.switches, 6))
        reference = statistics.median(times)
        goal = GOALS[name] * reference
        print(
            f"\n== {name}: server-side seconds per rerun; reference (a table of {queries} x "
            f"{runs}) {reference:.4f} s, CPU-s {statistics.median(cpu):.4f}; goal: every "
            f"switch under {GOALS[name]}x the reference ({goal:.2f} s)"
        )
        extra = ["judgment overview", "judgment deltas", "next", "note", "100k judgments"]
        for page in [*SWITCHES, *extra]:
            if page.startswith("judgment"):
                first, first_cpu, times, cpu = bench_judgments(
                    data, collection, args.switches, page.split()[1]
                )
            elif page == "next":
                first, first_cpu, times, cpu = bench_next(data, collection, args.switches)
            elif page == "note":
                first, first_cpu, times, cpu = bench_note(data, collection, args.switches)
            elif page == "100k judgments":
                first, first_cpu, times, cpu = bench_large_record(data, collection, args.switches)
            else:
                first, first_cpu, times, cpu = bench_page(page, data, collection, args.switches)
            # the first switch may fill a cache
            worst = max(times[1:]) if len(times) > 1 else times[0]
            median = statistics.median(times)
            print(
                f"{page:>14}: first load {first:6.2f} ({first_cpu:5.2f} CPU-s)  switch median "
                f"{median:5.2f} "
                f"({median / reference:4.0f}x)  slowest {worst:5.2f} ({worst / reference:4.0f}x)"
                f"  (CPU-s median {statistics.median(cpu):5.2f})"
                f"  {'ok' if worst < goal else 'over the goal'}"
            )
    print(f"\nCPU seconds of the whole bench: {time.process_time() - start_cpu:.1f}")


if __name__ == "__main__":
    main()
