"""The grade of every retrieved line, found by (query, docid) keys
(:func:`rankviz.ranking.sorting.lookup_grades`): the strings decide wherever two judged ids of a
query share a key, and a million judged queries cost their lines."""

from __future__ import annotations

import numpy as np
import pytest

import rankviz as rv
from rankviz._arrow import string_keys, strings
from rankviz.ranking.ordering import rank


def _grades(tmp_path, qrels: str, run: str) -> dict[tuple[str, str], tuple[int, bool]]:
    (tmp_path / "qrels").write_text(qrels)
    (tmp_path / "run").write_text(run)
    table = rank(rv.read_run(tmp_path / "run"), rv.read_qrels(tmp_path / "qrels"))
    docids = table.docids().tolist()
    qids = table.qids[table.row_query].tolist()
    return {
        (q, d): (int(g), bool(j))
        for q, d, g, j in zip(qids, docids, table.grade, table.judged, strict=True)
    }


def _colliding_pair() -> tuple[str, str]:
    """Two docids whose 32-bit string keys are equal (a birthday search, always the same)."""
    ids = [f"doc{i:07d}" for i in range(300_000)]
    keys = string_keys(strings(ids), bits=32)
    order = np.argsort(keys, kind="stable")
    equal = np.flatnonzero(keys[order][1:] == keys[order][:-1])
    assert len(equal), "no collision among 300,000 ids"
    first = int(equal[0])
    return ids[order[first]], ids[order[first + 1]]


def test_numbers_one_key_two_docids_each_gets_its_own_grade(tmp_path) -> None:
    """Integer docids are keyed by their number: "01" and "1" share it, and both are judged for
    one query, with other grades, beside a third judgment of another query."""
    found = _grades(
        tmp_path,
        "q1 0 1 1\nq1 0 01 2\nq2 0 1 -1\n",
        "q1 Q0 01 1 3.0 r\nq1 Q0 1 2 2.0 r\nq1 Q0 001 3 1.0 r\nq2 Q0 01 1 1.0 r\nq2 Q0 1 2 0.5 r\n",
    )
    assert found[("q1", "01")] == (2, True)
    assert found[("q1", "1")] == (1, True)
    assert found[("q1", "001")] == (0, False)
    assert found[("q2", "1")] == (-1, False)  # in the pool, unjudged
    assert found[("q2", "01")] == (0, False)


@pytest.mark.parametrize("judged_first", [True, False])
def test_strings_sharing_a_key_each_get_their_own_grade(tmp_path, judged_first: bool) -> None:
    a, b = _colliding_pair()
    judged = [f"q 0 {a} 1\n", f"q 0 {b} 3\n"]
    found = _grades(
        tmp_path,
        "".join(judged if judged_first else judged[::-1]),
        f"q Q0 {b} 1 2.0 r\nq Q0 {a} 2 1.0 r\nq Q0 other 3 0.5 r\n",
    )
    assert found[("q", a)] == (1, True)
    assert found[("q", b)] == (3, True)
    assert found[("q", "other")] == (0, False)


def test_a_key_judged_for_one_query_only_grades_that_query(tmp_path) -> None:
    a, b = _colliding_pair()
    found = _grades(tmp_path, f"q1 0 {a} 2\n", f"q1 Q0 {b} 1 1.0 r\nq2 Q0 {a} 1 1.0 r\n")
    assert found[("q1", b)] == (0, False)


def test_no_judgment_that_could_name_a_docid_of_the_run_leaves_every_line_unjudged(
    tmp_path,
) -> None:
    """A run of numeric docids against qrels restricted to a query whose one judgment is a word
    (the qrels' ids keep the other query's number): no judgment is keyed beside the run's docids
    (found by the stream engine's property test: a piece held only that query)."""
    (tmp_path / "qrels").write_text("1 0 zz 2\n11 0 0 1\n")
    (tmp_path / "run").write_text("1 Q0 0 1 0.0 r\n")
    qrels = rv.read_qrels(tmp_path / "qrels").restricted(["1"])
    table = rank(rv.read_run(tmp_path / "run"), qrels)
    assert table.grade.tolist() == [0] and table.judged.tolist() == [False]
