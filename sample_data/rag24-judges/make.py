"""Writes this collection from the shared TREC RAG 2024 files (see SOURCE.md): NIST's human
judgments as the qrels file, UMBRELA's labels as the source ``umbrela``, and four runs over the 301
topics, top 20 each: the real RAG 2024 run and three made from it.

- ``rag24``: the real run's top 20;
- ``umbrela-reranked``: the same 20 reordered by UMBRELA's grade (highest first, the run's order
  within a grade): a run tuned on the judge that grades it, the circularity the field warns about;
- ``shuffled``: the same 20 in an order drawn at random (seed 0);
- ``next20``: the real run's ranks 21 to 40 as a ranking of 20, often unjudged by people.

    python sample_data/rag24-judges/make.py ../shared/datasets   # the same files every time
"""

import gzip
import random
import sys
from pathlib import Path

HERE = Path(__file__).parent
DEPTH = 20


def read_run(path: Path) -> dict[str, list[str]]:
    """Each topic's segments in the run's order (rank as given)."""
    ranked: dict[str, list[tuple[int, str]]] = {}
    with gzip.open(path, "rt") as handle:
        for line in handle:
            qid, _, docid, rank, _score, _tag = line.split()
            ranked.setdefault(qid, []).append((int(rank), docid))
    return {qid: [d for _, d in sorted(pairs)] for qid, pairs in ranked.items()}


def grades(path: Path) -> dict[tuple[str, str], int]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt") as handle:
        return {(q, d): int(g) for q, _, d, g in (line.split() for line in handle)}


def write_run(name: str, ranking: dict[str, list[str]]) -> None:
    lines = [
        f"{qid} Q0 {docid} {rank} {DEPTH + 1 - rank} {name}\n"
        for qid in sorted(ranking)
        for rank, docid in enumerate(ranking[qid], start=1)
    ]
    with gzip.GzipFile(HERE / "runs" / f"{name}.run.gz", "wb", mtime=0) as sink:
        sink.write("".join(lines).encode())


def main(shared: Path) -> None:
    judges = shared / "rag24-judges"
    (HERE / "qrels.txt").write_bytes((judges / "qrels.human.txt").read_bytes())
    (HERE / "qrels.umbrela.txt.gz").write_bytes((judges / "qrels.umbrela.txt.gz").read_bytes())
    umbrela = grades(judges / "qrels.umbrela.txt.gz")
    run = read_run(shared / "trec-eval-fixtures" / "results.comment.test.gz")
    top = {qid: docs[:DEPTH] for qid, docs in run.items()}
    write_run("rag24", top)
    write_run(
        "umbrela-reranked",
        {
            qid: sorted(docs, key=lambda d, q=qid: -umbrela.get((q, d), 0))
            for qid, docs in top.items()
        },
    )
    draw = random.Random(0)
    write_run("shuffled", {qid: draw.sample(docs, len(docs)) for qid, docs in sorted(top.items())})
    write_run("next20", {qid: docs[DEPTH : 2 * DEPTH] for qid, docs in run.items()})


if __name__ == "__main__":
    main(Path(sys.argv[1]))
