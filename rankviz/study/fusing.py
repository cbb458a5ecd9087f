"""A fused run of several runs, as every front end makes it: a run like any other, named by its
recipe, written as a TREC run file (:mod:`rankviz.analyses.fusion` combines the rankings)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rankviz.analyses.fusion import METHODS, NORMS, Recipe, fuse
from rankviz.errors import OptionError
from rankviz.io.frames import run_from_frame
from rankviz.io.model import Run
from rankviz.io.readers import read_run, run_names


def fused_run(runs: Sequence[Run], recipe: Recipe, *, depth: int | None = None) -> Run:
    """The runs fused by ``recipe`` (each query's first ``depth`` documents kept), named by it."""
    if depth is not None and depth < 1:
        raise OptionError(
            f"the depth (--depth) is the documents kept a query, 1 or more, not {depth}"
        )
    if len({r.name for r in runs}) < len(runs):
        raise OptionError(
            f"the runs fused are {', '.join(r.name for r in runs)}: one run twice fuses nothing"
        )
    frame = fuse(runs, recipe)
    if depth is not None:
        frame = frame[frame["rank"] <= depth]
    return run_from_frame(frame, name=recipe.name([r.name for r in runs]))


def trec_text(run: Run) -> str:
    """``qid Q0 docid rank score tag`` lines in the run's order, scores at full precision (``repr``
    of the double: read back, the same number)."""
    qids = run.query_ids[run.qid_codes]
    docids = run.docids.to_pylist()
    ranks = run.rank_column
    tag = "".join(c if not c.isspace() else "_" for c in run.name)
    return "".join(
        f"{q} Q0 {d} {int(r)} {s!r} {tag}\n"
        for q, d, r, s in zip(qids, docids, ranks, run.score.tolist(), strict=True)
    )


def fuse_files(paths: Sequence[str | Path], recipe: Recipe, *, depth: int | None = None) -> Run:
    """The run files fused (each read as every rankviz command reads a run; one file given twice
    is refused, as by every command)."""
    names = run_names(paths)
    runs = [read_run(p, name=n) for p, n in zip(paths, names, strict=True)]
    return fused_run(runs, recipe, depth=depth)


__all__ = ["METHODS", "NORMS", "Recipe", "fuse_files", "fused_run", "trec_text"]
