"""The diversity family (:mod:`rankviz.measures.diversity`, vectorised) equals pyndeval (ndeval
4.5's C source) on every topic of generated collections full of ties: documents covering the same
subtopics (the greedy ideal ranking's ties, broken by docid), equal scores in the run, topics with
nothing relevant, documents the qrels do not list, any alpha and beta, relevance levels and depths.
The diversity qrels are read back from the bytes written, by both the fast and the checked reader.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankviz as rv
from rankviz.io.subtopics import read_subtopic_qrels
from rankviz.measures.diversity import COLUMNS, DiversityJudgments, diversity_values

pyndeval = pytest.importorskip("pyndeval")


@st.composite
def collections(draw):
    """(diversity qrels lines, run lines): up to 4 topics of up to 12 documents judged for up to
    4 subtopics (numbers with gaps), grades 0 to 2; the run retrieves some of them and some
    unjudged documents, scores from a small set (many ties)."""
    judged, ranked = [], []
    for topic in range(1, draw(st.integers(1, 4)) + 1):
        docs = [f"d{i}" for i in range(draw(st.integers(1, 12)))]
        subtopics = draw(st.lists(st.integers(1, 9), min_size=1, max_size=4, unique=True))
        for doc in docs:
            for subtopic in subtopics:
                if draw(st.booleans()):
                    judged.append(f"{topic} {subtopic} {doc} {draw(st.integers(0, 2))}")
        pool = docs + [f"u{i}" for i in range(draw(st.integers(0, 4)))]
        retrieved = draw(st.lists(st.sampled_from(pool), unique=True, max_size=len(pool)))
        for rank, doc in enumerate(retrieved, start=1):
            ranked.append(f"{topic} Q0 {doc} {rank} {draw(st.integers(0, 3))} r")
    if not judged:
        judged.append("1 1 d0 1")
    if not ranked:
        ranked.append("1 Q0 d0 1 1 r")
    return judged, ranked


def _trec_eval_order(ranked: list[str]) -> list[tuple[str, str, float]]:
    """Each topic's documents by score descending, then docid descending (by hand), as falling
    scores for pyndeval (which sorts by score)."""
    lists: dict[str, list[tuple[float, str]]] = {}
    for line in ranked:
        topic, _, doc, _, score, _ = line.split()
        lists.setdefault(topic, []).append((float(score), doc))
    return [
        (topic, doc, -float(i))
        for topic, docs in lists.items()
        for i, (_, doc) in enumerate(sorted(docs, reverse=True))
    ]


@settings(max_examples=150, deadline=None)
@given(
    collection=collections(),
    alpha=st.sampled_from([0.0, 0.5, 0.3, 0.9, 1.0]),
    beta=st.sampled_from([0.0, 0.5, 0.8, 1.0]),
    rel=st.sampled_from([1, 2]),
    depth=st.sampled_from([None, 1, 3]),
    tabs=st.booleans(),
)
@pytest.mark.slow
def test_every_value_is_pyndevals(tmp_path_factory, collection, alpha, beta, rel, depth, tabs):
    judged, ranked = collection
    folder = tmp_path_factory.mktemp("diverse")
    text = "\n".join(judged) + "\n"
    (folder / "qrels").write_text(text.replace(" ", "\t") if tabs else text)
    (folder / "run").write_text("\n".join(ranked) + "\n")
    qrels = read_subtopic_qrels(folder / "qrels")
    values = diversity_values(
        DiversityJudgments.of(qrels, rel=rel),
        rv.read_run(folder / "run"),
        alpha=alpha,
        beta=beta,
        depth=depth,
        by_rank=False,
    )
    scored = _trec_eval_order(ranked)
    if depth is not None:
        scored = [(q, d, s) for q, d, s in scored if -s < depth]
    theirs = pyndeval.RelevanceEvaluator(
        [tuple(line.split()[:3]) + (int(line.split()[3]),) for line in judged],
        list(COLUMNS),
        relevance_level=rel,
        alpha=alpha,
        beta=beta,
    ).evaluate(scored)
    judged_topics = {line.split()[0] for line in judged}
    answered = {q for q, _, _ in scored} & judged_topics
    assert set(theirs) <= answered
    for topic in answered:
        at = values.topics.index(topic)
        for index, name in enumerate(COLUMNS):
            ours = float(values.values[at, index])
            expected = theirs.get(topic, {}).get(name, 0.0)
            if math.isnan(expected):
                assert math.isnan(ours), (topic, name)
            else:
                assert ours == pytest.approx(expected, abs=1e-12), (topic, name, ours, expected)


def test_the_fast_reader_and_the_checked_one_give_the_same_columns(tmp_path) -> None:
    """A file pyarrow can read (single spaces) and the same lines with a doubled space (read line
    by line): the same columns."""
    lines = ["3 2 b 1", "1 1 a 0", "1 7 a 2", "3 1 c 1"]
    fast, checked = tmp_path / "fast", tmp_path / "checked"
    fast.write_text("\n".join(lines) + "\n")
    checked.write_text("\n".join(lines).replace("3 2 b", "3  2 b") + "\n")
    one, two = read_subtopic_qrels(fast), read_subtopic_qrels(checked)
    for name in ("qids", "docids"):
        assert getattr(one, name).to_pylist() == getattr(two, name).to_pylist()
    for name in ("subtopics", "judgments"):
        assert getattr(one, name).tolist() == getattr(two, name).tolist()
    assert one.qids.to_pylist() == ["3", "1", "1", "3"] and one.subtopics.tolist() == [2, 1, 7, 1]
