"""The grade of every retrieved line, found by (query, docid) keys
(:func:`rankviz.ranking.sorting.lookup_grades`): the strings decide wherever two judged ids of a
query share a key, and a million judged queries cost their lines."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

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


_DOCIDS = ["1", "01", "7", "4294967296", "a", "b", "doc", "doc1"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    lines=st.lists(
        st.tuples(st.sampled_from(["q1", "q2", "q3", "7"]), st.sampled_from(_DOCIDS)),
        min_size=1,
        max_size=30,
        unique=True,
    ),
    judged=st.dictionaries(
        st.tuples(st.sampled_from(["q1", "q2", "q3", "7", "q9"]), st.sampled_from(_DOCIDS)),
        st.integers(-1, 3),
        max_size=20,
    ),
    grouped=st.booleans(),
    numbers_only=st.booleans(),
    tied=st.booleans(),
)
def test_every_line_gets_the_grade_the_qrels_give_its_pair(
    lines, judged, grouped: bool, numbers_only: bool, tied: bool
) -> None:
    """Against the qrels read as a dict: runs grouped by query (the probes climb with the query
    codes) or with queries coming back (sorted probes), docids that are all numbers (some past
    32 bits: mixed keys) or words, scores falling or tied (the rows a tie moves carry their
    grades, written in place)."""
    if numbers_only:
        lines = [(q, d) for q, d in lines if d.isdigit()] or [("q1", "7")]
        judged = {(q, d): g for (q, d), g in judged.items() if d.isdigit()}
    if grouped:
        lines = sorted(lines, key=lambda line: line[0])
    score = (lambda i: 50 - i // 3) if tied else (lambda i: 50 - i)
    run_text = "".join(f"{q} Q0 {d} {i + 1} {score(i)} r\n" for i, (q, d) in enumerate(lines))
    qrels_text = "".join(f"{q} 0 {d} {g}\n" for (q, d), g in judged.items()) or "q1 0 x 1\n"
    run = rv.read_run(run_text.encode(), filename="run")
    qrels = rv.read_qrels(qrels_text.encode(), filename="qrels")
    # the whole qrels, and (a streamed block's) those of one query: a few of its docids judged
    for table in (rank(run, qrels), rank(run, qrels.restricted([lines[0][0]]))):
        found = zip(
            table.qids[table.row_query].tolist(), table.docids().tolist(), table.grade, table.judged
        )
        for q, d, grade, is_judged in found:
            expected = judged.get((q, d), 0)
            assert (int(grade), bool(is_judged)) == (expected, (q, d) in judged and expected >= 0)
        # trec_eval's order: inside a query, tied scores put the docids in descending order
        ranked = list(zip(table.row_query.tolist(), table.score.tolist(), table.docids().tolist()))
        for (q, score_a, a), (r, score_b, b) in zip(ranked, ranked[1:]):
            assert q != r or score_a > score_b or a.encode() > b.encode()


@settings(max_examples=60, deadline=None)
@given(
    segments=st.lists(st.integers(0, 6), max_size=40),
    grades=st.data(),
    huge=st.booleans(),
)
def test_ideal_rankings_hold_each_segments_grades_best_first(segments, grades, huge: bool) -> None:
    """The values of the ideal rankings against a lexsort: one sorted key where (segment, grade)
    fit it, a lexsort where grades span more than a key can hold beside the segment."""
    from rankviz.ranking.sorting import _best_first_by_segment

    bound = 2**61 if huge else 3
    drawn = grades.draw(
        st.lists(st.integers(-bound, bound), min_size=len(segments), max_size=len(segments))
    )
    segment, grade = np.array(segments, dtype=np.int64), np.array(drawn, dtype=np.int64)
    order = np.lexsort((-grade, segment))
    got_grades, got_segments = _best_first_by_segment(segment, grade)
    assert got_grades.tolist() == grade[order].tolist()
    assert got_segments.tolist() == segment[order].tolist()


@pytest.mark.parametrize("docid", [lambda i: f"d{i}", str])
def test_a_blocks_few_judgments_among_many_docids_grade_their_lines(docid) -> None:
    """A streamed block's qrels: 3 judgments of its query among 40 of the qrels' docids (keyed
    alone, not with the whole vocabulary), as words and as numbers."""
    qrels_text = "".join(f"q2 0 {docid(i)} 1\n" for i in range(40))
    qrels_text += f"q1 0 {docid(7)} 2\nq1 0 {docid(3)} 1\nq1 0 {docid(30)} -1\n"
    run_text = "".join(f"q1 Q0 {docid(i)} {i + 1} {40 - i} r\n" for i in range(35))
    qrels = rv.read_qrels(qrels_text.encode(), filename="qrels").restricted(["q1"])
    table = rank(rv.read_run(run_text.encode(), filename="run"), qrels)
    found = dict(zip(table.docids().tolist(), zip(table.grade.tolist(), table.judged.tolist())))
    assert found[docid(7)] == (2, True) and found[docid(3)] == (1, True)
    assert found[docid(30)] == (-1, False) and found[docid(8)] == (0, False)


@settings(max_examples=40, deadline=None)
@given(
    pairs=st.lists(st.tuples(st.integers(0, 50), st.integers(-(2**40), 2**40)), max_size=60),
    rows=st.lists(st.tuples(st.integers(0, 50), st.integers(-(2**40), 2**40)), max_size=200),
    wide=st.booleans(),
    subset=st.booleans(),
)
def test_the_rows_a_pair_filter_leaves_out_are_never_judged(pairs, rows, wide, subset) -> None:
    """:meth:`DocidKeys.rows_among` may keep rows whose pair is not judged, never leaves out one
    whose pair is: keys of 32 and of 64 bits (numbers past int32), every row or some of them, rows
    that repeat a judged pair among others."""
    from rankviz.io.encoding import DocidKeys

    dtype = np.int64 if wide else np.int32
    clip = (lambda k: k) if wide else (lambda k: k % 2**32 - 2**31)  # within int32
    rows = rows + pairs[::2]
    row_queries = np.array([q for q, _ in rows], dtype=np.int32)
    keys = DocidKeys(np.array([clip(k) for _, k in rows], dtype=dtype), True)
    judged = {(q, clip(k)) for q, k in pairs}
    positions = np.arange(0, len(rows), 2) if subset else np.arange(len(rows))
    found = keys.rows_among(
        np.array([k for _, k in judged], dtype=dtype),
        np.array([q for q, _ in judged], dtype=np.int64),
        row_queries,
        positions if subset else None,
    )
    kept = set(positions[found].tolist())
    for place, row in enumerate(positions.tolist()):
        if (int(row_queries[row]), int(keys.values[row])) in judged:
            assert row in kept, place


def test_a_docid_judged_for_another_query_is_seldom_a_candidate() -> None:
    """The filter keys the pair, not the docid: 100,000 rows whose docids are all judged, each
    for another query than the row's, leave a few percent (a docid-only filter keeps them all),
    and the rows whose own pair is judged stay."""
    from rankviz.io.encoding import DocidKeys

    n = 100_000
    docids = np.arange(n, dtype=np.int32)
    keys = DocidKeys(docids, True)
    row_queries = (docids % 1000).astype(np.int32)
    found = keys.rows_among(docids, (row_queries + 1).astype(np.int64), row_queries)
    assert len(found) < 0.05 * n
    own = keys.rows_among(docids[:10], row_queries[:10].astype(np.int64), row_queries)
    assert set(range(10)) <= set(own.tolist())
