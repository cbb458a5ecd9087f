"""Writes qrels.txt (ndeval's: topic subtopic docno judgment) and run.txt: ten topics made to reach
ndeval's corners (subtopic ids with gaps, documents relevant to several subtopics, a topic with no
relevant document, a judged topic the run misses, a topic the qrels do not judge, tied scores, and a
rank column that disagrees with the scores, so that -traditional changes the order).

    python tests/data/ndeval-generated/make.py   # the same files every time (seed 40)
"""

import random
from pathlib import Path

HERE = Path(__file__).parent


def main() -> None:
    rng = random.Random(40)
    qrels, run = [], []
    for topic in range(1, 11):
        docs = [f"d{topic}-{i:02d}" for i in range(rng.randint(4, 40))]
        subtopics = sorted(rng.sample(range(1, 9), k=rng.randint(1, 5)))
        for doc in docs[: len(docs) * 3 // 4]:
            for subtopic in subtopics:
                judgment = 0 if topic == 4 else rng.choice([0, 0, 0, 1, 2])
                qrels.append(f"{topic} {subtopic} {doc} {judgment}")
        if topic == 7:
            continue  # judged, not in the run (ndeval -c counts it)
        retrieved = rng.sample(docs, k=rng.randint(1, len(docs)))
        scores = [round(rng.uniform(0, 2), 1) for _ in retrieved]  # ties
        ranks = list(range(1, len(retrieved) + 1))
        rng.shuffle(ranks)  # a rank column the scores do not follow
        for doc, score, rank in zip(retrieved, scores, ranks, strict=True):
            run.append(f"{topic} Q0 {doc} {rank} {score} gen")
    run += [f"99 Q0 x{i} {i + 1} {3 - i / 10} gen" for i in range(4)]  # not judged
    (HERE / "qrels.txt").write_text("\n".join(qrels) + "\n")
    (HERE / "run.txt").write_text("\n".join(run) + "\n")


if __name__ == "__main__":
    main()
