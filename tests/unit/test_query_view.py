"""The meeting's analyses: rank-biased overlap against the paper's formula, the discussion queue,
one query's two rankings aligned by document, and the query's words found in a text."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankviz as rv
from rankviz.analyses.query_view import aligned, discussion_queue, rank_biased_overlap
from rankviz.app.widgets.text import highlighted, query_terms


def rbo_ext(S: list, T: list, p: float) -> float:
    """Webber, Moffat & Zobel (TOIS 2010), eq. 32, written out with sets: the reference."""
    if not S and not T:
        return 1.0
    if not S or not T:
        return 0.0
    if len(S) > len(T):
        S, T = T, S
    s, l = len(S), len(T)  # noqa: E741

    def X(d: int) -> int:
        return len(set(S[: min(d, s)]) & set(T[:d]))

    first = sum(X(d) / d * p**d for d in range(1, l + 1))
    second = sum(X(s) * (d - s) / (s * d) * p**d for d in range(s + 1, l + 1))
    return (1 - p) / p * (first + second) + ((X(l) - X(s)) / l + X(s) / s) * p**l


def _tables(rankings: dict[str, tuple[list, list]]):
    """Two runs' tables from {qid: (docids of run a, docids of run b)}, scores descending."""
    qrels = rv.qrels_from_dict({q: {"judged": 1} for q in rankings})
    runs = []
    for side in (0, 1):
        run = {
            q: {d: float(100 - i) for i, d in enumerate(pair[side])}
            for q, pair in rankings.items()
            if pair[side]
        }
        runs.append(rv.rank(rv.run_from_dict(run or {"other": {"x": 1.0}}), qrels))
    return runs


DOCS = st.lists(st.sampled_from([f"d{i}" for i in range(25)]), unique=True, max_size=18)


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(
    st.dictionaries(st.sampled_from(["q1", "q2", "q3"]), st.tuples(DOCS, DOCS), min_size=1),
    st.sampled_from([0.5, 0.9, 0.98]),
)
def test_rbo_is_the_papers_extrapolated_formula(rankings, p) -> None:
    a, b = _tables(rankings)
    found = rank_biased_overlap(a, b, p=p)
    for qid, (left, right) in rankings.items():
        assert found[qid] == pytest.approx(rbo_ext(left, right, p), abs=1e-12)


def test_rbo_bounds_and_depth() -> None:
    a, b = _tables(
        {
            "same": (["x", "y", "z"], ["x", "y", "z"]),
            "apart": (["x", "y"], ["u", "v"]),
            "empty": (["x"], []),
        }
    )
    found = rank_biased_overlap(a, b)
    assert found["same"] == pytest.approx(1.0) and found["apart"] == 0.0 and found["empty"] == 0.0
    deep = [f"d{i}" for i in range(300)]
    a, b = _tables({"q": (deep, deep[:100] + deep[150:])})
    # they differ only past the compared depth
    assert rank_biased_overlap(a, b)["q"] == pytest.approx(1.0)


def test_the_queue_lists_losses_gains_then_disagreements_once_each() -> None:
    frame = pd.DataFrame(
        {"baseline": [0.5, 0.2, 0.4, 0.3, 0.9], "run": [0.1, 0.6, 0.4, 0.3, 0.95]},
        index=pd.Index(list("abcde"), name="qid"),
    )
    frame["delta"] = frame["run"] - frame["baseline"]
    overlap = pd.Series({"a": 0.9, "b": 0.2, "c": 0.1, "d": 1.0, "e": 0.95})
    queue = discussion_queue(frame, overlap, per_reason=1)
    assert list(queue.index) == ["a", "b", "c"] and list(queue["why"]) == [
        "loss",
        "gain",
        "rankings differ",
    ]
    queue = discussion_queue(frame, overlap, per_reason=2)
    assert list(queue.index) == ["a", "b", "e", "c"]
    assert queue.loc["b", "why"] == "gain, rankings differ"  # once, with both reasons


def test_aligned_rows_follow_the_documents_with_moves_ties_and_grades() -> None:
    qrels = rv.qrels_from_dict({"q": {"a": 2, "b": 0, "c": 1}})
    baseline = rv.rank(rv.run_from_dict({"q": {"a": 3.0, "b": 2.0, "c": 1.0, "d": 0.5}}), qrels)
    run = rv.rank(rv.run_from_dict({"q": {"c": 5.0, "e": 5.0, "a": 1.0}}), qrels)
    view = aligned(baseline, run, "q", 2).set_index("docid")
    # by the better rank (e and c tie at 5.0: docid descending)
    assert list(view.index) == ["a", "e", "b", "c"]
    # out of the run's top 2, still shown
    assert view.loc["a", "move"] == "dropped" and view.loc["a", "run rank"] == 3
    assert view.loc["c", "move"] == "new" and view.loc["b", "move"] == "dropped"
    assert (
        view.loc["c", "run tie"] == "1-2"
        and view.loc["e", "run tie"] == "1-2"
        and view.loc["a", "baseline tie"] == ""
    )
    assert view.loc["a", "grade"] == 2 and np.isnan(view.loc["e", "grade"])
    moved = aligned(
        baseline, rv.rank(rv.run_from_dict({"q": {"b": 3.0, "a": 2.0}}), qrels), "q", 2
    ).set_index("docid")
    assert moved.loc["a", "move"] == "down 1" and moved.loc["b", "move"] == "up 1"


@given(st.text(max_size=80), st.text(alphabet="abc xyz", max_size=20))
def test_highlighting_keeps_the_text_and_marks_only_query_words(text, query) -> None:
    terms = query_terms(query)
    parts = highlighted(text, terms)
    assert "".join(part for part, _ in parts) == text
    for part, hit in parts:
        if hit:
            assert any(part.lower().startswith(term) for term in terms)


def test_highlighting_finds_inflections_and_skips_stopwords() -> None:
    assert query_terms("What is the flow of heat?") == ["flow", "heat"]
    parts = highlighted("Flows of flowing heat, overflow.", ["flow", "heat"])
    # 'overflow' does not start with a term
    assert [p for p, hit in parts if hit] == ["Flows", "flowing", "heat"]
