"""ndeval's evaluation of a run against diversity qrels, and its CSV text (``rankviz ndeval``).

The run's order is decided where every rankviz order is (:func:`rankviz.ranking.ordering.rank`):
ndeval's default follows the run's rank column (the ``run`` tie policy; a rank given twice is an
error, as in ndeval), ``-traditional`` sorts by score and then docid descending (trec_eval's order).
The measures are computed as ndeval computes them (:mod:`rankviz.ndeval.measures`).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from rankviz.errors import FormatError, OptionError
from rankviz.io.model import Run
from rankviz.io.subtopics import SubtopicQrels
from rankviz.ndeval.measures import Topic, ideal_order, scores
from rankviz.ndeval.names import COLUMNS, CUTOFFS


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

    values = ndeval_values(read_subtopic_qrels(qrels), read_run(run), options)
    return ndeval_text(values, first_runid(run))


def topics_of(qrels: SubtopicQrels, rel: int) -> dict[str, Topic]:
    """Each topic's documents (in byte order) and the subtopics each covers."""
    frame = pd.DataFrame(
        {
            "qid": qrels.qids,
            "subtopic": qrels.subtopics,
            "docid": qrels.docids,
            "relevant": np.asarray(qrels.judgments) >= rel,
        }
    )
    topics = {}
    for qid, rows in frame.groupby("qid", sort=False):
        _topic_number(str(qid), qrels.source)
        docids = sorted(set(rows.docid))
        at = {d: i for i, d in enumerate(docids)}
        matrix = np.zeros((len(docids), int(rows.subtopic.max()) + 1), dtype=np.int8)
        matrix[[at[d] for d in rows.docid], rows.subtopic.to_numpy()] = rows.relevant.to_numpy()
        topics[str(qid)] = Topic(tuple(docids), matrix)
    return topics


def ndeval_values(qrels: SubtopicQrels, run: Run, options: NdevalOptions) -> pd.DataFrame:
    """One row per topic of the run, in ndeval's order (by topic number), with ndeval's 21
    columns; a topic the qrels do not judge scores 0, as ndeval prints it. ``attrs["topics"]``:
    how many topics the mean covers (judged ones of the run; with -c every judged one)."""
    topics = topics_of(qrels, options.rel)
    ranked = ranked_lists(run, topics, options)
    rows = {}
    for qid, docids in ranked.items():
        topic = topics.get(qid)
        if topic is None:
            rows[qid] = [0.0] * len(COLUMNS)
            continue
        relevance = topic.relevance()
        ideal = [relevance[topic.docids[i]] for i in ideal_order(topic, options.alpha)]
        best = scores(ideal, topic, alpha=options.alpha, beta=options.beta)
        got = scores(
            [relevance.get(d) for d in docids], topic, alpha=options.alpha, beta=options.beta
        )
        rows[qid] = _columns(got, best)
    frame = pd.DataFrame.from_dict(rows, orient="index", columns=list(COLUMNS))
    frame.index.name = "topic"
    judged = [q for q in ranked if q in topics]
    frame.attrs["topics"] = len(topics) if options.complete else len(judged)
    return frame


def _columns(got, best) -> list[float]:
    """ndeval's renormalize and its columns: the n- measures where the run has gained anything by
    that rank, nNRBP always (0 / 0 where no subtopic is covered: its NaN)."""
    ndcg = [g / b if g else 0.0 for g, b in zip(got.dcg, best.dcg, strict=True)]
    nerr = [e / b if g else 0.0 for g, e, b in zip(got.dcg, got.err, best.err, strict=True)]
    nnrbp = got.nrbp / best.nrbp if best.nrbp else (-math.nan if got.nrbp == 0 else math.inf)
    at = [k - 1 for k in CUTOFFS]
    return [
        *(got.err[i] for i in at),
        *(nerr[i] for i in at),
        *(got.dcg[i] for i in at),
        *(ndcg[i] for i in at),
        got.nrbp,
        nnrbp,
        got.map_ia,
        *(got.precision[i] for i in at),
        *(got.strec[i] for i in at),
    ]


def ranked_lists(
    run: Run, topics: dict[str, Topic], options: NdevalOptions
) -> dict[str, list[str]]:
    """Each run topic's docids in ndeval's order (after -M), topics by number; a run's topic may
    carry a task prefix ending in ``-`` (``wt09-1``), as ndeval reads it."""
    from rankviz.io.frames import qrels_from_frame
    from rankviz.ranking.ordering import rank

    numbers = [_topic_number(str(q), run.source, prefixed=True) for q in run.query_ids]
    if len(set(numbers)) < len(numbers):
        raise FormatError(run.source, 0, None, "two topics of the run have one number")
    if not options.traditional:
        _refuse_repeated_ranks(run)
    run = dataclasses.replace(run, query_ids=np.asarray([str(n) for n in numbers], dtype=object))
    judged = pd.DataFrame(
        [(q, d, 1) for q, t in topics.items() for d in t.docids], columns=["qid", "docid", "rel"]
    )
    ties = "trec_eval" if options.traditional else "run"
    table = rank(run, qrels_from_frame(judged), ties=ties)
    ranked: dict[str, list[str]] = {}
    for index, qid in enumerate(table.qids):
        if table.in_run[index]:
            rows = slice(table.offsets[index], table.offsets[index + 1])
            docids = [str(d) for d in table.docids(rows)]
            ranked[str(qid)] = docids[: options.depth]  # -M: the first N in ndeval's order
    for qid in table.ignored_qids:  # ndeval prints a topic it has no judgments for, all 0
        ranked[str(qid)] = []
    for qid, docids in ranked.items():
        if len(set(docids)) < len(docids):
            raise FormatError(run.source, 0, None, f"topic {qid} lists a docno twice")
    return {q: ranked[q] for q in sorted(ranked, key=int)}


def _topic_number(text: str, source: str, *, prefixed: bool = False) -> int:
    """A topic as ndeval reads it: a natural number (in a run, after a prefix ending in ``-``)."""
    number = text if text[:1].isdigit() or not prefixed else text.partition("-")[2]
    if not number.isdigit():
        raise FormatError(
            source, 0, None, f"topic {text!r} is not a natural number, as ndeval needs"
        )
    return int(number)


def _refuse_repeated_ranks(run: Run) -> None:
    """ndeval orders a run by its rank column, and stops on a rank given twice in a topic."""
    ranks = np.asarray(run.rank_column, dtype=np.float64)
    frame = pd.DataFrame({"qid": run.qid_codes, "rank": ranks})
    repeated = frame.duplicated(["qid", "rank"])
    if repeated.any():
        row = int(np.flatnonzero(repeated.to_numpy())[0])
        qid, value = run.query_ids[run.qid_codes[row]], ranks[row]
        raise FormatError(
            run.source,
            0,
            None,
            f"rank {value:g} is given twice for topic {qid} (ndeval orders by the rank column; "
            "-traditional orders by score)",
        )


def ndeval_text(values: pd.DataFrame, runid: str) -> str:
    """ndeval's CSV: a header, a line per topic, ``amean`` (sums in topic order over the topics
    the mean covers), ``%.6f`` (a NaN as C prints it, ``-nan``)."""
    lines = ["runid,topic," + ",".join(COLUMNS)]
    totals = [0.0] * len(COLUMNS)
    for topic, row in values.iterrows():
        lines.append(f"{runid},{int(topic)}," + ",".join(_number(v) for v in row))
        totals = [t + float(v) for t, v in zip(totals, row, strict=True)]
    n = values.attrs["topics"]
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
