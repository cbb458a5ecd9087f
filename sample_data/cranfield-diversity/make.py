"""Writes subtopics.txt: each Cranfield question's relevant abstracts (grade 1 and up) split into
subtopics by clustering their texts (scikit-learn's k-means on TF-IDF vectors of the abstracts,
seeded), one cluster a subtopic, each document judged with its Cranfield grade for its own
subtopic. The subtopics are inferred, not judged: a stand-in for a diversity collection's intents,
so that the app and the command line show ndeval's measures on real rankings and real judgments.

    python sample_data/cranfield-diversity/make.py   # the same file every time
"""

import gzip
import json
from pathlib import Path

from sklearn.cluster import KMeans
from sklearn.feature_extraction.text import TfidfVectorizer

HERE = Path(__file__).parent


def subtopics_of(count: int) -> int:
    """Subtopics for a question with ``count`` relevant abstracts: 1 below 4, 2 below 8, else 3."""
    return 1 if count < 4 else 2 if count < 8 else 3


def main() -> None:
    with gzip.open(HERE / "docs.jsonl.gz", "rt") as handle:
        texts = {d["doc_id"]: d["text"] for d in map(json.loads, handle)}
    vectors = TfidfVectorizer(stop_words="english", sublinear_tf=True).fit(texts.values())
    relevant: dict[str, dict[str, int]] = {}
    for line in (HERE / "qrels.txt").read_text().splitlines():
        qid, _, docid, grade = line.split()
        if int(grade) >= 1:
            relevant.setdefault(qid, {})[docid] = int(grade)
    lines = []
    for qid, judged in relevant.items():
        docs = sorted(judged, key=int)
        k = subtopics_of(len(docs))
        labels = (
            KMeans(n_clusters=k, n_init=10, random_state=0)
            .fit_predict(vectors.transform([texts[d] for d in docs]))
            .tolist()
            if k > 1
            else [0] * len(docs)
        )
        order = {label: i + 1 for i, label in enumerate(dict.fromkeys(labels))}  # 1, 2, 3
        lines += [f"{qid} {order[label]} {d} {judged[d]}" for d, label in zip(docs, labels)]
    (HERE / "subtopics.txt").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
