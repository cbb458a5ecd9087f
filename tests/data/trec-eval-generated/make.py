"""Writes qrels.txt and run.txt (and from them judgment groups and preferences): twelve queries
made to reach trec_eval's corners (ties, grades -2..4, documents the qrels do not list, a judged
query the run misses, a query the qrels do not judge, queries judged only 0 or only below 0,
rankings shorter and longer than the cutoffs).

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
    _preferences(qrels)


def _preferences(qrels: list[str]) -> None:
    """prefs.txt (-R prefs: qid group subgroup docno level) and qrels_prefs.txt (-R qrels_prefs:
    qid group docno level) from the judged documents (grade 0 and up) of qrels.txt: user "a"
    grades in one subgroup (equivalence classes), user "b" in two to four subgroups of a hidden
    order (what one implies through another counts too), user "c" in pairs (two documents a
    subgroup); the qrels_prefs users "a" and "d" grade in one group each, "d" one grade apart."""
    rng = random.Random(42)
    by_query: dict[str, list[tuple[str, int]]] = {}
    for line in qrels:
        qid, _, doc, grade = line.split()
        if int(grade) >= 0:
            by_query.setdefault(qid, []).append((doc, int(grade)))
    prefs, flat = [], []
    for qid, judged in by_query.items():
        for doc, grade in judged:
            prefs.append(f"{qid} a s {doc} {grade}")
            flat.append(f"{qid} a {doc} {grade}")
            if rng.random() < 0.7:
                flat.append(f"{qid} d {doc} {max(0, grade + rng.choice([-1, 1]))}")
        hidden = {doc: grade * 10 + rng.randint(0, 9) if grade else 0 for doc, grade in judged}
        for subgroup in range(rng.randint(2, 4)):
            for doc in rng.sample(sorted(hidden), k=max(1, len(hidden) // 3)):
                prefs.append(f"{qid} b s{subgroup} {doc} {hidden[doc] * (subgroup + 1)}")
        for pair in range(min(6, len(judged) // 2)):
            first, second = rng.sample(sorted(hidden), k=2)
            if hidden[first] != hidden[second]:
                high, low = sorted((first, second), key=hidden.__getitem__, reverse=True)
                level = 0 if hidden[low] == 0 else 1
                prefs += [f"{qid} c p{pair} {high} 2", f"{qid} c p{pair} {low} {level}"]
    rng.shuffle(prefs)
    (HERE / "prefs.txt").write_text("\n".join(prefs) + "\n")
    (HERE / "qrels_prefs.txt").write_text("\n".join(flat) + "\n")


if __name__ == "__main__":
    main()
