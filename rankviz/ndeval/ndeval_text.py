"""ndeval's command line and CSV (``rankviz ndeval``): its options, and its text of the values the
diversity family computes (:mod:`rankviz.measures.diversity`, where the run's order is decided as
ndeval decides it: by the rank column, or by score and docid under ``-traditional``)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from rankviz.errors import OptionError
from rankviz.measures.diversity import COLUMNS, DiversityValues


@dataclass(frozen=True)
class NdevalOptions:
    """ndeval's flags: ``alpha`` (redundancy), ``beta`` (NRBP's patience), ``depth`` (``-M``: the
    first N documents of each topic), ``complete`` (``-c``: average over every judged topic),
    ``traditional`` (order by score, not by the rank column) and ``rel`` (pyndeval's relevance
    level: a judgment counts from this value; ndeval's is 1)."""

    alpha: float = 0.5
    beta: float = 0.5
    depth: int | None = None
    complete: bool = False
    traditional: bool = False
    rel: int = 1

    def __post_init__(self) -> None:
        for name in ("alpha", "beta"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise OptionError(f"ndeval: {name} must lie in [0, 1], not {getattr(self, name)}")
        if self.depth is not None and self.depth <= 0:
            raise OptionError(f"ndeval: -M must be positive, not {self.depth}")


def ndeval_of_files(qrels: str, run: str, options: NdevalOptions) -> str:
    """What ndeval 4.5 prints for the diversity qrels and run files (the run read as every rankviz
    command reads it: the same columns or the same one-line error)."""
    from rankviz.io.readers import read_run
    from rankviz.io.subtopics import read_subtopic_qrels
    from rankviz.measures.diversity import DiversityJudgments, diversity_values

    judgments = DiversityJudgments.of(read_subtopic_qrels(qrels), rel=options.rel)
    values = diversity_values(
        judgments,
        read_run(run),
        alpha=options.alpha,
        beta=options.beta,
        depth=options.depth,
        by_rank=not options.traditional,
        complete=options.complete,
    )
    return ndeval_text(values, first_runid(run))


def ndeval_text(values: DiversityValues, runid: str) -> str:
    """ndeval's CSV: a header, a line per topic, ``amean`` (sums in topic order over the topics
    the mean covers), ``%.6f`` (a NaN as C prints it, ``-nan``)."""
    lines = ["runid,topic," + ",".join(COLUMNS)]
    totals = [0.0] * len(COLUMNS)
    for topic, row in zip(values.topics, values.values.tolist(), strict=True):
        lines.append(f"{runid},{int(topic)}," + ",".join(_number(v) for v in row))
        totals = [t + v for t, v in zip(totals, row, strict=True)]
    n = values.averaged
    means = [t / n if n else (-math.nan if t == 0 else math.copysign(math.inf, t)) for t in totals]
    lines.append(f"{runid},amean," + ",".join(_number(v) for v in means))
    return "\n".join(lines) + "\n"


def _number(value: float) -> str:
    if math.isnan(value):
        return "-nan" if math.copysign(1.0, value) < 0 else "nan"
    return f"{value:.6f}"


def first_runid(path: str) -> str:
    """ndeval's runid: the last field of the run file's first line (a gzip file decompressed)."""
    import gzip

    with open(path, "rb") as raw:
        compressed = raw.read(2) == b"\x1f\x8b"
    with gzip.open(path, "rb") if compressed else open(path, "rb") as handle:
        for line in handle:
            if line.split():
                return line.split()[-1].decode()
    return ""
