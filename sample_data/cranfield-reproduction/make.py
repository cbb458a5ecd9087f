"""Makes this folder from ../cranfield: a reproduction of Cranfield's BM25 run and of its fusion
with the dense run, by another BM25 implementation (see SOURCE.md).

Cranfield's judgments, queries and abstracts are copied, and the originals (``bm25``: bm25s,
Lucene's BM25; ``bm25_rrf``: Cranfield's ``rrf``, RRF k=60 of ``bm25`` and ``dense``). The
reproductions: ``reproduced-bm25``, rank_bm25's BM25Okapi at the same k1 = 1.2 and b = 0.75 on the
same tokens (bm25s's tokenizer: English stopwords, Snowball stemming), whose IDF is Robertson's
(with rank_bm25's floor for negative IDFs) where Lucene's is log(1 + ...); ``reproduced-bm25_rrf``,
RRF k=60 of ``reproduced-bm25`` and the same ``dense``. Each run: the top 100 documents of each of
the 225 queries.

    pip install -e ".[samples]"
    python sample_data/cranfield-reproduction/make.py
"""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import bm25s
import numpy as np
import Stemmer
from rank_bm25 import BM25Okapi

HERE = Path(__file__).parent
CRANFIELD = HERE.parent / "cranfield"
DEPTH = 100
K_RRF = 60


def _ranking(path: Path) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    with gzip.open(path, "rt") as lines:
        for line in lines:
            qid, _, docid, *_ = line.split()
            found.setdefault(qid, []).append(docid)
    return found


def _write(path: Path, scored: dict[str, list[tuple[str, float]]], tag: str) -> None:
    with gzip.open(path, "wt") as out:
        for qid, docs in scored.items():
            for rank, (docid, score) in enumerate(docs, start=1):
                out.write(f"{qid} Q0 {docid} {rank} {score:.6f} {tag}\n")


def _fused(*rankings: dict[str, list[str]]) -> dict[str, list[tuple[str, float]]]:
    fused = {}
    for qid in rankings[0]:
        scores: dict[str, float] = {}
        for ranking in rankings:
            for rank, docid in enumerate(ranking.get(qid, [])[:DEPTH], start=1):
                scores[docid] = scores.get(docid, 0.0) + 1.0 / (K_RRF + rank)
        ordered = sorted(scores.items(), key=lambda item: (-item[1], item[0]))
        fused[qid] = ordered[:DEPTH]
    return fused


def main() -> None:
    runs = HERE / "runs"
    runs.mkdir(exist_ok=True)
    for name in ("qrels.txt", "queries.tsv", "docs.jsonl.gz"):
        shutil.copyfile(CRANFIELD / name, HERE / name)
    shutil.copyfile(CRANFIELD / "runs" / "bm25.run.gz", runs / "bm25.run.gz")
    shutil.copyfile(CRANFIELD / "runs" / "rrf.run.gz", runs / "bm25_rrf.run.gz")
    with gzip.open(CRANFIELD / "docs.jsonl.gz", "rt") as lines:
        docs = [json.loads(line) for line in lines]
    stemmer = Stemmer.Stemmer("english")

    def tokens(texts: list[str]) -> list[list[str]]:
        ids = bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False)
        vocabulary = {index: word for word, index in ids.vocab.items()}
        return [[vocabulary[i] for i in row] for row in ids.ids]

    index = BM25Okapi(tokens([d["text"] for d in docs]), k1=1.2, b=0.75)
    docids = [d["doc_id"] for d in docs]
    queries = [line.split("\t", 1) for line in (HERE / "queries.tsv").read_text().splitlines()]
    bm25 = {}
    for (qid, _), query in zip(queries, tokens([text for _, text in queries]), strict=True):
        scores = index.get_scores(query)
        top = np.argsort(-scores, kind="stable")[:DEPTH]
        bm25[qid] = [(docids[i], float(scores[i])) for i in top]
    _write(runs / "reproduced-bm25.run.gz", bm25, "reproduced.bm25")
    dense = _ranking(CRANFIELD / "runs" / "dense.run.gz")
    reproduced = {qid: [d for d, _ in docs] for qid, docs in bm25.items()}
    _write(runs / "reproduced-bm25_rrf.run.gz", _fused(reproduced, dense), "reproduced.rrf")


if __name__ == "__main__":
    main()
