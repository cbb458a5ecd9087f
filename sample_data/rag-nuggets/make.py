"""A TREC RAG-shaped sample of nugget evaluation, generated here (not TREC's data): topics with
vital and okay nuggets, three systems' answers, each nugget judged supported, partially supported
or not supported by each answer (as AutoNuggetizer assigns them), and the per-query scores that
follow (Pradeep et al., "Initial Nugget Evaluation Results for the TREC 2024 RAG Track with the
AutoNuggetizer Framework", 2024).

    python sample_data/rag-nuggets/make.py   # rewrites every file here but SOURCE.md

It is a collection folder too: each system's retrieval (``runs/``, 20 segments a topic) against
graded judgments of 40 segments a topic (``qrels.txt``, 0-3), so the app shows retrieval measures
(nDCG@10) beside the answers' nugget scores, and metric choice says how far they agree.

Scores per answer, each a share of the topic's nuggets:
  all_strict    supported nuggets / nuggets
  vital_strict  supported vital nuggets / vital nuggets
  all           (supported + 0.5 partially supported) / nuggets
  vital         the same over vital nuggets
  weighted      as ``all``, a vital nugget weighing 1 and an okay one 0.5

Each row also carries the answer (``answer``: a stand-in naming the nuggets it states), which the
app's query view shows beside the scores.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
SYSTEMS = {"bm25-gpt": 0.45, "dense-gpt": 0.55, "hybrid-rerank-gpt": 0.62}  # chance of support
TOPICS = 30
CREDIT = {"support": 1.0, "partial_support": 0.5, "not_support": 0.0}
WEIGHT = {"vital": 1.0, "okay": 0.5}


def assignments(seed: int = 2024) -> list[dict[str, str]]:
    """One row per (system, topic, nugget): the nugget's importance and its support."""
    rng = np.random.default_rng(seed)
    rows = []
    for topic in range(1, TOPICS + 1):
        nuggets = int(rng.integers(4, 11))
        importance = ["vital" if rng.random() < 0.5 else "okay" for _ in range(nuggets)]
        importance[0] = "vital"  # every topic has a vital nugget
        difficulty = rng.normal(0, 0.15)
        for system, quality in SYSTEMS.items():
            for n, kind in enumerate(importance, 1):
                chance = min(max(quality - difficulty + (0.1 if kind == "vital" else 0), 0), 1)
                draw = rng.random()
                support = (
                    "support"
                    if draw < chance
                    else "partial_support"
                    if draw < chance + 0.15
                    else "not_support"
                )
                rows.append(
                    {
                        "run": system,
                        "topic": f"2024-{topic:03d}",
                        "nugget": f"n{n}",
                        "importance": kind,
                        "support": support,
                    }
                )
    return rows


def retrieval(seed: int = 2025) -> tuple[list[str], dict[str, list[str]], list[str]]:
    """Graded judgments of 40 segments a topic, and each system's top 20 (a better system ranks
    relevant segments higher): qrels lines, run lines by system, queries.tsv lines."""
    rng = np.random.default_rng(seed)
    qrels, runs, queries = [], {system: [] for system in SYSTEMS}, ["qid\ttext"]
    for topic in range(1, TOPICS + 1):
        qid = f"2024-{topic:03d}"
        queries.append(f"{qid}\tstand-in question {topic} (generated)")
        grades = rng.choice(4, size=40, p=[0.55, 0.2, 0.15, 0.1])
        segments = [f"seg-{topic:03d}-{k:02d}" for k in range(40)]
        qrels += [f"{qid} 0 {seg} {grade}" for seg, grade in zip(segments, grades, strict=True)]
        for system, quality in SYSTEMS.items():
            score = quality * grades + rng.normal(0, 0.6, size=40)
            top = np.argsort(-score, kind="stable")[:20]
            runs[system] += [
                f"{qid} Q0 {segments[k]} {rank} {score[k]:.4f} {system}"
                for rank, k in enumerate(top, 1)
            ]
    return qrels, runs, queries


def scores(rows: list[dict[str, str]]) -> list[dict[str, object]]:
    """The five scores of each (system, topic): a long table (run, query, measure, value)."""
    grouped: dict[tuple[str, str], list[dict[str, str]]] = {}
    for row in rows:
        grouped.setdefault((row["run"], row["topic"]), []).append(row)
    table = []
    for (run, topic), nuggets in grouped.items():
        vital = [n for n in nuggets if n["importance"] == "vital"]
        found = {
            "all_strict": _share(nuggets, strict=True),
            "vital_strict": _share(vital, strict=True),
            "all": _share(nuggets, strict=False),
            "vital": _share(vital, strict=False),
            "weighted": sum(WEIGHT[n["importance"]] * CREDIT[n["support"]] for n in nuggets)
            / sum(WEIGHT[n["importance"]] for n in nuggets),
        }
        answer = _answer(run, topic, nuggets)
        table += [
            {"run": run, "query": topic, "measure": m, "value": v, "answer": answer}
            for m, v in found.items()
        ]
    return table


def _answer(run: str, topic: str, nuggets: list[dict[str, str]]) -> str:
    """A stand-in for the system's answer: which nuggets it states, which only in part."""
    stated = [n["nugget"] for n in nuggets if n["support"] == "support"]
    partly = [n["nugget"] for n in nuggets if n["support"] == "partial_support"]
    return (
        f"{run} on {topic}: states {', '.join(stated) or 'no nugget'}"
        + (f"; touches {', '.join(partly)}" if partly else "")
        + "."
    )


def _share(nuggets: list[dict[str, str]], *, strict: bool) -> float:
    credit = [
        (1.0 if n["support"] == "support" else 0.0) if strict else CREDIT[n["support"]]
        for n in nuggets
    ]
    return sum(credit) / len(credit)


def write(rows: list[dict], path: Path, *, digits: bool = False) -> None:
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(
            handle, fieldnames=list(rows[0]), delimiter="\t", lineterminator="\n"
        )
        writer.writeheader()
        for row in rows:
            writer.writerow(
                {k: f"{v:.6f}" if digits and isinstance(v, float) else v for k, v in row.items()}
            )


def write_lines(lines: list[str], path: Path) -> None:
    path.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    made = assignments()
    write(made, HERE / "assignments.tsv")
    write(scores(made), HERE / "scores.tsv", digits=True)
    qrels, runs, queries = retrieval()
    write_lines(qrels, HERE / "qrels.txt")
    write_lines(queries, HERE / "queries.tsv")
    (HERE / "runs").mkdir(exist_ok=True)
    for system, lines in runs.items():
        write_lines(lines, HERE / "runs" / f"{system}.run")
