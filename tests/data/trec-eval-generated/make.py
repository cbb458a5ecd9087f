"""Writes qrels.txt and run.txt: twelve queries made to reach trec_eval's corners (ties, grades
-2..4, documents the qrels do not list, a judged query the run misses, a query the qrels do not
judge, queries judged only 0 or only below 0, rankings shorter and longer than the cutoffs).

    python tests/data/trec-eval-generated/make.py   # the same files every time (seed 40)
"""

import random
from pathlib import Path

HERE = Path(__file__).parent


def main() -> None:
    rng = random.Random(40)
    qrels, run = [], []
    for q in range(1, 13):
        qid = f"q{q}"
        docs = [f"d{q}-{i:03d}" for i in range(rng.randint(3, 80))]
        judged = rng.sample(docs, k=len(docs) * 2 // 3)
        for doc in sorted(judged):
            if q == 4:
                grade = 0  # judged, nothing relevant
            elif q == 5:
                grade = rng.choice([-1, -2])  # only "in the pool, unjudged"
            else:
                grade = rng.choice([-2, -1, 0, 0, 0, 1, 1, 2, 3, 4])
            qrels.append(f"{qid} 0 {doc} {grade}")
        if q == 9:
            continue  # judged, not in the run (needs -c)
        for i, doc in enumerate(rng.sample(docs, k=rng.randint(1, len(docs)))):
            score = round(rng.uniform(0, 3), 1)  # few distinct scores: many ties
            run.append(f"{qid} Q0 {doc} {i + 1} {score} gen")
    run += [f"q99 Q0 x{i} {i + 1} {3 - i / 10} gen" for i in range(5)]  # not judged
    (HERE / "qrels.txt").write_text("\n".join(qrels) + "\n")
    (HERE / "run.txt").write_text("\n".join(run) + "\n")
    # judgment groups (-R qrels_jg): three users, each judging part of every query's pool their own
    # way; user "c" judges no document of q3 (a query with two groups)
    users = random.Random(41)
    grouped = []
    for line in qrels:
        qid, _, doc, grade = line.split()
        for user in "abc":
            if users.random() < 0.8 and not (user == "c" and qid == "q3"):
                moved = max(-2, min(4, int(grade) + users.choice([-1, 0, 0, 1])))
                grouped.append(f"{qid} {user} {doc} {moved}")
    (HERE / "qrels_jg.txt").write_text("\n".join(grouped) + "\n")


if __name__ == "__main__":
    main()
