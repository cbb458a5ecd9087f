"""Readers: every accepted format, and a FormatError naming file, line and reason for bad input."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import CRANFIELD, pickled_with_texts, run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankviz as rv
from rankviz._arrow import to_numpy
from rankviz.io.readers import run_name_from_path

GOOD_RUN = "q1 Q0 d1 1 2.5 tag\nq1 Q0 d2 2 1.5 tag\nq2 Q0 d1 1 0.5 tag\n"


def write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    return path


@pytest.mark.parametrize(
    ("content", "line_no", "reason"),
    [
        ("q1 Q0 d1 1 2.5 tag\nq1 Q0 d2 2 tag\n", 2, "expected 6 fields"),
        ("q1 Q0 d1 1 2.5 tag\nq1 Q0 d2 2 high tag\n", 2, "score 'high' is not a number"),
        ("q1 Q0 d1 1 nan tag\n", 1, "not a finite number"),
        ("q1 Q0 d1 1 2.5 tag\nq1 Q0 d2 2 inf tag\n", 2, "not a finite number"),
        ("q1 Q0 d1 1 2.5 tag\nq1 Q0 d2 2 1.5 tag\nq1 Q0 d1 3 0.5 tag\n", 3, "appears twice"),
        ("q1 Q0 d1 one 2.5 tag\n", 1, "rank 'one' is not a number"),
    ],
)
def test_bad_run_lines_name_file_line_and_reason(tmp_path, content, line_no, reason) -> None:
    path = write(tmp_path, "bad.run", content)
    with pytest.raises(rv.FormatError) as info:
        rv.read_run(path)
    assert info.value.line_no == line_no
    assert reason in info.value.reason
    assert info.value.line == content.splitlines()[line_no - 1]
    assert str(path) in str(info.value) and f"line {line_no}" in str(info.value)


@pytest.mark.parametrize(
    ("content", "reason"),
    [(b"", "empty file"), (b"\n\n", "empty file"), (b"q1 Q0 d1 1 \x00 t\n", "binary")],
)
def test_empty_and_binary_files(tmp_path, content, reason) -> None:
    with pytest.raises(rv.FormatError, match=reason):
        rv.read_run(write(tmp_path, "x.run", content))


@pytest.mark.parametrize("field", range(6))
@pytest.mark.parametrize("gz", [False, True])
def test_non_utf8_in_any_field_names_the_line(tmp_path, field, gz) -> None:
    """The fields only checked for being there (Q0, tag) are UTF-8 text like the others."""
    second = [b"q1", b"Q0", b"d2", b"2", b"1", b"t"]
    second[field] = second[field][:1] + b"\xe9"
    content = b"q1 Q0 d1 1 2 t\n" + b" ".join(second) + b"\n"
    path = write(
        tmp_path, "latin.run" + (".gz" if gz else ""), gzip.compress(content) if gz else content
    )
    with pytest.raises(rv.FormatError) as info:
        rv.read_run(path)
    assert info.value.line_no == 2 and "UTF-8" in info.value.reason


def test_duplicates_first_keeps_the_first_line(tmp_path) -> None:
    path = write(tmp_path, "dup.run", "q1 Q0 d1 1 2.5 t\nq1 Q0 d1 2 9.0 t\n")
    run = rv.read_run(path, duplicates="first")
    assert len(run) == 1 and run.score[0] == 2.5


def test_whitespace_crlf_comments_extra_fields_and_gzip_read_alike(tmp_path) -> None:
    plain = rv.read_run(write(tmp_path, "a.run", GOOD_RUN)).to_frame()
    messy = (
        "# a comment\r\nq1\tQ0  d1 1\t2.5 tag extra junk\r\n\r\nq1 Q0 d2 2 1.5 tag\r\nq2 Q0 d1 "
        "1 .5 tag\r\n"
    )
    variants = [
        write(tmp_path, "b.run", messy),
        write(tmp_path, "c.run.gz", gzip.compress(GOOD_RUN.encode())),
        write(tmp_path, "d.txt", GOOD_RUN.replace(" ", "\t")),
    ]
    for path in variants:
        pd.testing.assert_frame_equal(rv.read_run(path).to_frame(), plain)


def test_run_name_is_file_name_without_gz_and_one_extension() -> None:
    assert run_name_from_path("/x/bm25.run.gz") == "bm25"
    assert run_name_from_path("results.test") == "results"
    assert run_name_from_path("plain") == "plain"
    assert run_name_from_path("a.b.c.trec") == "a.b.c"


def test_named_column_formats(tmp_path) -> None:
    frame = pd.DataFrame(
        {"qid": ["q1", "q1", "q2"], "docid": ["d1", "d2", "d1"], "score": [2.5, 1.5, 0.5]}
    )
    expected = rv.read_run(write(tmp_path, "a.run", GOOD_RUN)).to_frame()[["qid", "docid", "score"]]
    csv_path = tmp_path / "r.csv"
    frame.to_csv(csv_path, index=False)
    tsv_path = tmp_path / "r.tsv"
    frame.to_csv(tsv_path, sep="\t", index=False)
    parquet_path = tmp_path / "r.parquet"
    frame.to_parquet(parquet_path)
    for path in (csv_path, tsv_path, parquet_path):
        got = rv.read_run(path)
        assert got.name == "r"
        pd.testing.assert_frame_equal(got.to_frame()[["qid", "docid", "score"]], expected)


def test_named_column_errors(tmp_path) -> None:
    path = write(tmp_path, "r.csv", "qid,docid,score\nq1,d1,1.0\nq1,d2,abc\n")
    with pytest.raises(rv.FormatError) as info:
        rv.read_run(path)
    assert info.value.line_no == 3 and "score" in info.value.reason
    with pytest.raises(rv.FormatError, match="missing column 'score'"):
        rv.read_run(write(tmp_path, "s.csv", "qid,docid\nq1,d1\n"))


def test_qrels_ignore_column_two_and_keep_negative_grades(tmp_path) -> None:
    qrels = rv.read_qrels(write(tmp_path, "q.txt", "1 0 a 2\n1 Q0 b -1\n2 0 c 0\n"))
    frame = qrels.to_frame()
    assert frame.rel.tolist() == [2, -1, 0] and frame.qid.tolist() == ["1", "1", "2"]


@pytest.mark.parametrize(
    ("content", "line_no", "reason"),
    [
        ("1 0 a 2\n1 0 b 1.5\n", 2, "not an integer"),
        ("1 0 a 2\n1 0 b\n", 2, "expected 4 fields"),
        ("1 0 a 2\n1 0 b 1\n1 0 a 3\n", 3, "with grade 3 (grade 2 on line 1)"),
    ],
)
def test_bad_qrels(tmp_path, content, line_no, reason) -> None:
    with pytest.raises(rv.FormatError) as info:
        rv.read_qrels(write(tmp_path, "q.txt", content))
    assert info.value.line_no == line_no
    assert reason in info.value.reason


def test_identical_duplicate_judgments_are_merged(tmp_path) -> None:
    qrels = rv.read_qrels(write(tmp_path, "q.txt", "1 0 a 2\n1 0 a 2\n"))
    assert len(qrels) == 1


def test_missing_file_is_a_format_error(tmp_path) -> None:
    with pytest.raises(rv.FormatError, match="file not found"):
        rv.read_run(tmp_path / "nope.run")


def test_bytes_upload_uses_filename(tmp_path) -> None:
    run = rv.read_run(gzip.compress(GOOD_RUN.encode()), filename="upload.run.gz")
    assert run.name == "upload" and len(run) == 3 and np.allclose(run.score, [2.5, 1.5, 0.5])


def test_trec_eval_fixture_with_comment_lines(data_dir) -> None:
    """trec_eval's own RAG-track test run: comment lines, graded qrels; its out.comment.test
    values."""
    fixtures = data_dir / "trec-eval-fixtures"
    frame = rv.evaluate(
        rv.read_qrels(fixtures / "qrels.comment.test"),
        rv.read_run(fixtures / "results.comment.test.gz"),
        ["AP", "RR", "P@10"],
    ).to_frame()
    values = dict(zip(frame.measure, frame.value.round(4)))
    assert values == {"AP": 0.2689, "RR": 0.8595, "P@10": 0.7710}


@pytest.mark.slow
@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    rankings=st.lists(
        st.lists(
            st.sampled_from(
                [
                    "1",
                    "2",
                    "3",
                    "10",
                    "010",
                    "a",
                    "b",
                    "doc-A-0001-end",
                    "é" * 9,
                    "abcdefgh-X-1234567812345678",
                    "abcdefgh-Y-1234567812345678",
                ]
            ),
            min_size=1,
            max_size=6,
        ),
        min_size=1,
        max_size=5,
    ),
    interleave=st.booleans(),
)
def test_duplicate_detection_is_exact(tmp_path, rankings, interleave) -> None:
    """Ragged, grouped or interleaved, numeric or not: an error exactly when a pair repeats."""
    lines = [(f"q{i}", doc) for i, docs in enumerate(rankings) for doc in docs]
    if interleave:
        lines = lines[::2] + lines[1::2]
    path = write(tmp_path, "r.run", "".join(f"{q} Q0 {d} 1 1.0 t\n" for q, d in lines))
    has_duplicate = len(set(lines)) < len(lines)
    if has_duplicate:
        with pytest.raises(rv.FormatError, match="appears twice"):
            rv.read_run(path)
    else:
        assert len(rv.read_run(path)) == len(lines)


def test_a_query_listed_again_later_is_one_query(tmp_path) -> None:
    """Query codes come from where the qid changes; a query that comes back must not become two."""
    grouped = "q1 Q0 a 1 3.0 t\nq1 Q0 b 2 2.0 t\nq2 Q0 a 1 1.0 t\n"
    scattered = "q1 Q0 a 1 3.0 t\nq2 Q0 a 1 1.0 t\nq1 Q0 b 2 2.0 t\n"
    qrels = rv.read_qrels(write(tmp_path, "q.txt", "q1 0 b 1\nq2 0 a 2\n"))
    frames = [
        rv.evaluate(
            qrels, rv.read_run(write(tmp_path, f"{i}.run", text)), ["RR", "nDCG"]
        ).to_frame()
        for i, text in enumerate((grouped, scattered))
    ]
    run = rv.read_run(write(tmp_path, "s.run", scattered))
    assert list(run.query_ids) == ["q1", "q2"] and run.qid_codes.tolist() == [0, 1, 0]
    assert (
        frames[0].value.tolist()
        == frames[1].value.tolist()
        == [(0.5 + 1.0) / 2, (1 / np.log2(3) + 1.0) / 2]
    )


def test_numeric_docids_match_judgments_by_their_text(tmp_path) -> None:
    """'01' and '1' are one integer but two documents: neither a duplicate nor each other's
    judgment."""
    run = rv.read_run(
        write(tmp_path, "r.run", "q1 Q0 01 1 3.0 t\nq1 Q0 1 2 2.0 t\nq1 Q0 001 3 1.0 t\n")
    )
    assert run.docid_keys.numeric and len(run) == 3
    qrels = rv.read_qrels(write(tmp_path, "q.txt", "q1 0 1 1\n"))
    assert rv.evaluate(qrels, run, ["RR"]).to_frame().value.tolist() == [0.5]
    csv = write(tmp_path, "r.csv", "qid,docid,score\nq1,01,3.0\nq1,1,2.0\n")
    assert rv.evaluate(qrels, rv.read_run(csv), ["RR"]).to_frame().value.tolist() == [0.5]


@pytest.mark.parametrize(
    ("docids", "dtype"),
    [
        (["7", "2147483647"], np.int32),
        (["7", "2147483648"], np.int64),
        (["7", "99999999999999999999"], None),
        (["7", "D7"], None),
    ],
)
def test_docid_numbers_use_the_narrowest_integer(tmp_path, docids, dtype) -> None:
    run = rv.read_run(
        write(tmp_path, "r.run", "".join(f"q1 Q0 {d} {i} 1.0 t\n" for i, d in enumerate(docids)))
    )
    keys = run.docid_keys
    assert (not keys.numeric) if dtype is None else (keys.numeric and keys.values.dtype == dtype)
    qrels = rv.read_qrels(write(tmp_path, "q.txt", f"q1 0 {docids[1]} 1\n"))
    expected = 1.0 if docids[1].encode() > b"7" else 0.5  # equal scores: docid bytes descending
    assert rv.evaluate(qrels, run, ["RR"]).to_frame().value.tolist() == [expected]


@pytest.mark.parametrize("run_docids", [["1", "2", "3", "4"], ["d1", "d2", "d3", "d4"]])
def test_judgments_match_whatever_the_qrels_vocabulary_holds(tmp_path, run_docids) -> None:
    """Numeric run docids against qrels that also judge words, signed, huge and padded docids (and
    string run docids against the same): only the exact strings match."""
    lines = "".join(f"q1 Q0 {d} {i + 1} {4 - i}.0 t\n" for i, d in enumerate(run_docids))
    run = rv.read_run(write(tmp_path, "r.run", lines))
    judged = [run_docids[2], "abc", "+2", "02", "99999999999999999999", "-1", run_docids[3]]
    qrels = rv.read_qrels(write(tmp_path, "q.txt", "".join(f"q1 0 {d} 1\n" for d in judged)))
    assert rv.evaluate(qrels, run, ["RR", "P@4"]).to_frame().value.tolist() == [1 / 3, 0.5]


# --- one field rule for every reader (runs of C isspace, as trec_eval) ---------------------------


def _columns(run_or_qrels) -> dict:
    frame = run_or_qrels.to_frame()
    return {column: frame[column].tolist() for column in frame.columns}


def test_spaces_beside_tabs_on_later_lines_separate_fields(tmp_path) -> None:
    """The fast path used to take its separator from line 1 and keep ' d2' as a docid: AP 0.5, not
    1."""
    run = rv.read_run(write(tmp_path, "r.run", "q1\tQ0\td1\t1\t2.0\tt\nq1\tQ0\t d2\t2\t1.0\tt\n"))
    assert run.to_frame().docid.tolist() == ["d1", "d2"]
    qrels = rv.read_qrels(write(tmp_path, "q.txt", "q1 0 d1 1\nq1 0  d2 1\n"))
    assert rv.evaluate(qrels, run, ["AP"]).to_frame().value.tolist() == [1.0]


@pytest.mark.parametrize("comment", ["", "# a comment line sends the file to the checked parser\n"])
def test_a_byte_order_mark_is_skipped_by_both_readers(tmp_path, comment) -> None:
    content = b"\xef\xbb\xbf" + comment.encode() + b"q1 Q0 d1 1 2.0 t\n"
    assert rv.read_run(write(tmp_path, "r.run", content)).to_frame().qid.tolist() == ["q1"]
    qrels = rv.read_qrels(
        write(tmp_path, "q.txt", b"\xef\xbb\xbf" + comment.encode() + b"q1 0 d1 1\n")
    )
    assert qrels.to_frame().qid.tolist() == ["q1"]


@pytest.mark.parametrize("comment", ["", "# checked parser\n"])
@pytest.mark.parametrize("gzipped", [False, True])
def test_fields_split_on_c_isspace_as_in_trec_eval(tmp_path, comment, gzipped) -> None:
    """A vertical tab or form feed separates fields (trec_eval splits on C isspace); a no-break
    space is part of a docid. trec_eval 10 reads the issue's run below as map 0.8333."""
    content = (
        comment + "1 Q0 a 1 3.0 t\n1 Q0 b\x0b1 5 2.0 t\n1 Q0 d\u00a01 2 1.5 t\n1 Q0 "
        "c\x0c\x0c3 1.0 t\n"
    ).encode()
    if gzipped:
        content = gzip.compress(content)
    run = rv.read_run(write(tmp_path, "r.run", content))
    assert run.to_frame().docid.tolist() == ["a", "b", "d\u00a01", "c"]
    qrels = rv.read_qrels(write(tmp_path, "q.txt", "1 0 a 0\n1 0 b\x0b1\n1\x0c0 c 1\n"))
    assert qrels.to_frame().docid.tolist() == ["a", "b", "c"]
    # b, a, d, c
    assert rv.evaluate(qrels, run, "AP").means().iloc[0, 0] == pytest.approx((1 / 1 + 2 / 4) / 2)


@pytest.mark.parametrize(
    "line",
    [
        "q1  d1 1 2.0 t\n",
        "q1 Q0 d1 1 2.0 \n",
        " q1 d1 1 2.0 t\n",
        "q1\t\td1\t1\t2.0\tt\n",
        "q1 Q0 d1 1 2.0\t\n",
    ],
)
def test_a_missing_field_is_refused_even_where_its_separator_is_doubled(tmp_path, line) -> None:
    content = "q1 Q0 d0 1 3.0 t\n" + line if line.startswith(" ") else line
    with pytest.raises(rv.FormatError, match="expected 6 fields"):
        rv.read_run(write(tmp_path, "r.run", content))


def test_a_missing_qrels_field_is_refused(tmp_path) -> None:
    with pytest.raises(rv.FormatError, match="expected 4 fields"):
        rv.read_qrels(write(tmp_path, "q.txt", "q1  d1 1\n"))


def test_crlf_and_lone_carriage_returns_end_lines(tmp_path) -> None:
    expected = rv.read_run(write(tmp_path, "a.run", GOOD_RUN)).to_frame()
    for name, ending in (("crlf.run", "\r\n"), ("cr.run", "\r")):
        got = rv.read_run(write(tmp_path, name, GOOD_RUN.replace("\n", ending))).to_frame()
        pd.testing.assert_frame_equal(got, expected)


def test_an_out_of_range_grade_names_the_line(tmp_path) -> None:
    with pytest.raises(rv.FormatError) as info:
        rv.read_qrels(write(tmp_path, "q.txt", "1 0 a 2\n1 0 b 100000000000000000000000000000\n"))
    assert info.value.line_no == 2 and "out of range" in info.value.reason


FIELD_TEXT = st.sampled_from(
    [
        "q1",
        "q2",
        "Q0",
        "d1",
        "d2",
        "01",
        "1",
        "2",
        "-3",
        "2.5",
        ".5",
        "1e2",
        "nan",
        "#c",
        "é",
        "d\u00a0",
    ]
)
SEPARATOR = st.sampled_from([" ", " ", " ", "\t", "  ", " \t", "\u00a0", "\x0b", "\x0c"])
LINE_END = st.sampled_from(["\n", "\n", "\n", "\r\n", "\r", ""])


@st.composite
def trec_bytes(draw, n_fields: int) -> bytes:
    lines = []
    for _ in range(draw(st.integers(1, 5))):
        count = draw(st.sampled_from([n_fields, n_fields, n_fields, n_fields - 1, n_fields + 1]))
        parts = [draw(FIELD_TEXT) for _ in range(count)]
        text = parts[0] + "".join(draw(SEPARATOR) + p for p in parts[1:])
        if draw(st.integers(0, 9)) == 0:
            text = draw(SEPARATOR) + text
        if draw(st.integers(0, 9)) == 0:
            text += draw(SEPARATOR)
        lines.append(text + draw(LINE_END))
    data = "".join(lines).encode()
    if draw(st.booleans()):
        data = b"\xef\xbb\xbf" + data
    if draw(st.integers(0, 19)) == 0:
        data = data.replace(b"d", b"d\x00", 1)
    if draw(st.integers(0, 9)) == 0:  # invalid UTF-8 in any field, ignored ones (Q0, tag) too
        data = data.replace(draw(st.sampled_from([b"Q0", b"q", b"2", "é".encode()])), b"\xc3", 1)
    return data


def _fast_or_none(data: bytes, kind: str):
    """What the fast path alone makes of the bytes (None: it defers to the checked parser)."""
    from rankviz.io import trec
    from rankviz.io.sources import first_line, sniff

    head = sniff(data, "x")
    names = trec.RUN_FIELDS if kind == "run" else trec.QRELS_FIELDS
    separator = trec._separator(head)
    if separator is None or len(first_line(head).split(separator.encode())) != len(names):
        return None
    return trec._read_fast(data, names, separator, "<upload>")


def _checked(data: bytes, kind: str):
    """The checked parser alone, after the whole-file checks every TREC read starts with."""
    from rankviz.io import trec
    from rankviz.io.sources import check_text, sniff

    try:
        check_text(sniff(data, "x"), "x")
        return trec.read_checked(
            data, "x", kind, duplicates="error" if kind == "run" else "qrels"
        ), None
    except rv.FormatError as exc:
        return None, str(exc)


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(data=st.data(), kind=st.sampled_from(["run", "qrels"]), compressed=st.booleans())
def test_both_trec_readers_give_the_same_columns_or_the_same_error(data, kind, compressed) -> None:
    """Plain bytes are searched as they are; gzip content is checked column by column: both
    paths."""
    content = data.draw(trec_bytes(6 if kind == "run" else 4))
    if compressed:
        content = gzip.compress(content)
    checked, error = _checked(content, kind)
    fast = _fast_or_none(content, kind)
    if fast is not None:
        assert error is None, f"the fast path accepted what the checked parser refuses: {error}"
        columns, queries = fast
        assert list(queries["query_ids"][queries["qid_codes"]]) == checked["qid"].to_pylist()
        assert columns["docid"].to_pylist() == checked["docid"].to_pylist()
        for name in ("rank", "score", "rel"):
            if name in checked:
                # ranks: Arrow
                fast_values = (
                    columns[name]
                    if isinstance(columns[name], np.ndarray)
                    else to_numpy(columns[name])
                )
                assert fast_values.tolist() == checked[name].tolist()
    reader = rv.read_run if kind == "run" else rv.read_qrels
    if error is not None:
        with pytest.raises(rv.FormatError) as info:
            reader(content, filename="x")
        assert str(info.value) == error
    else:
        got = reader(content, filename="x").to_frame()
        assert (
            got.qid.tolist() == checked["qid"].to_pylist()
            and got.docid.tolist() == checked["docid"].to_pylist()
        )


def test_reading_a_gzipped_file_leaves_no_file_open(tmp_path) -> None:
    """A GzipFile handed an open file closes only itself: every .gz read left its file to the
    garbage collector (a ResourceWarning each, seen once a test turned warnings into errors)."""
    import gc
    import warnings

    path = tmp_path / "run.txt.gz"
    path.write_bytes(gzip.compress(b"1 Q0 d1 1 2.0 r\n1 Q0 d2 2 1.0 r\n"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ResourceWarning)
        assert len(rv.read_run(path)) == 2
        gc.collect()
    assert not [w for w in caught if issubclass(w.category, ResourceWarning)]


def _parquet_bytes() -> bytes:
    import io as _io

    buffer = _io.BytesIO()
    pd.DataFrame({"run": ["A", "B"], "query": ["1", "1"], "AP": [0.5, 0.25]}).to_parquet(buffer)
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("name", "content", "says"),
    [
        ("extra.csv", b"run,query,AP\nA,1,0.5\nA,2,0.25,9\n", "line 3: 4 fields where the header"),
        ("inf.tsv", b"run\tquery\tAP\nA\t1\tinf\nB\t1\t0.2\n", "line 2: the value 'inf' is not a"),
        ("pytrec.json", b'{"1": {"AP": Infinity}}', "the value 'inf' is not a finite number"),
        (
            "big.tsv",
            b"run\tquery\tAP\n"
            + b"".join(b"%s\t%d\t1e308\n" % (r, q) for r in (b"A", b"B") for q in range(10)),
            "line 2: the value '1e308' is too large to be averaged with the table's 20 values",
        ),
        ("corrupt.parquet", _parquet_bytes()[:200], "not a readable Parquet file"),
        ("text.parquet", b"not parquet", "not a readable Parquet file"),
        (
            "wide.tsv",
            b"run\tquery\t" + b"\t".join(b"m%d" % i for i in range(200_000)) + b"\n",
            "line 1: a header line longer than 1,048,576 bytes",
        ),
    ],
)
def test_a_score_table_that_breaks_a_guard_is_one_line(
    tmp_path: Path, name: str, content: bytes, says: str
) -> None:
    """The guards run files have, on every table of scores: one line naming the file and the line,
    exit 2, never a pandas or pyarrow traceback, a mean of inf or numpy's overflow warning."""
    path = tmp_path / name
    path.write_bytes(content)
    done = run_cli("compare", str(path), "-m", "AP")
    (line,) = done.stderr.strip().splitlines()
    assert done.returncode == 2 and line.startswith(f"rankviz: error: {path}") and says in line


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("bom.tsv", "\ufeffrun\tquery\tAP\nA\t1\t0.5\nB\t1\t0.25\nA\t2\t1.0\nB\t2\t0\n".encode()),
        (
            "excel.csv",
            b'sep=;\r\n"run";"query";"AP"\r\n"A";"1";"0,5"\r\n"B";"1";"0,25"\r\n'
            b'"A";"2";"1,0"\r\n"B";"2";"0"\r\n',
        ),
        ("semicolons.csv", b"run;query;AP\nA;1;0,5\nB;1;0,25\nA;2;1\nB;2;0\n"),
    ],
)
def test_a_table_from_excel_or_notepad_reads_as_its_numbers(
    tmp_path: Path, name: str, content: bytes
) -> None:
    """A UTF-8 byte order mark before the header, Excel's ``sep=;`` line, quoted fields and
    decimal commas: the same scores as a plain TSV, each value on its own line."""
    from rankviz.io.scores import read_scores

    path = tmp_path / name
    path.write_bytes(content)
    frame = read_scores(path).frame
    assert list(frame["value"]) == [0.5, 0.25, 1.0, 0.0]
    assert list(frame["run"]) == ["A", "B", "A", "B"] and list(frame["query"]) == [
        "1",
        "1",
        "2",
        "2",
    ]
    first = 3 if name == "excel.csv" else 2
    assert list(frame["line"]) == list(range(first, first + 4))
    done = run_cli("compare", str(path), "-m", "AP", "--format", "tsv")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[1].split("\t")[5:7] == ["0.75", "0.125"]


@pytest.mark.parametrize(
    ("name", "content", "says"),
    [
        (
            "extra.csv",
            b"qid,docid,score\n1,d1,0.5\n1,d2,0.4,7\n",
            "line 3: 4 fields where the header",
        ),
        # pandas took such a first row's first field as an index: qid d1, docid 0.5
        (
            "extra.tsv",
            b"qid\tdocid\tscore\n1\td1\t0.5\t9\n",
            "line 2: more fields than the header's 3",
        ),
        (
            "wide.tsv",
            b"qid\tdocid\tscore\t" + b"x" * (1 << 21) + b"\n1\td1\t0.5\t1\n",
            "line 1: a header line longer than 1,048,576 bytes",
        ),
    ],
)
def test_a_run_table_is_read_by_the_score_tables_reader_and_its_guards(
    tmp_path: Path, name: str, content: bytes, says: str
) -> None:
    """Run and qrels tables with a header (CSV, TSV) and score tables go through one reader
    (rankviz.io.delimited): the same bytes give the same one-line error, naming the line."""
    path = tmp_path / name
    path.write_bytes(content)
    done = run_cli("evaluate", str(CRANFIELD / "qrels.txt"), str(path), "-m", "AP")
    (line,) = done.stderr.strip().splitlines()
    assert done.returncode == 2 and line.startswith(f"rankviz: error: {path}") and says in line


@pytest.mark.parametrize("asked", [False, True])
def test_read_qrels_are_sent_with_their_query_ids_as_strings(tmp_path, asked) -> None:
    """A Dask job's qrels go to every worker pickled: the query ids go as the reader's Arrow
    strings (not a str object each) and their index as its sorted keys; what loads is the same
    qrels, whose index finds the same ids. ``asked``: its index looked up before it is sent."""
    import pickle

    qids = [f"q{i}" for i in range(300, 0, -1)]  # listed against their sort order
    path = write(
        tmp_path, "qrels", "".join(f"{q} 0 d{i % 7} {i % 3}\n" for i, q in enumerate(qids))
    )
    qrels = rv.read_qrels(path)
    probes = ["q7", "absent", "q300", "q1"]
    if asked:
        qrels.query_index.positions(np.asarray(probes, dtype=object))
    sent, texts = pickled_with_texts(qrels)
    assert not set(qids) & set(texts)
    loaded = pickle.loads(sent)
    assert loaded.query_ids.tolist() == qrels.query_ids.tolist() == qids
    assert loaded.qid_codes.tolist() == qrels.qid_codes.tolist()
    assert loaded.grade.tolist() == qrels.grade.tolist()
    assert loaded.docids.equals(qrels.docids)
    found = loaded.query_index.positions(np.asarray(probes, dtype=object))
    assert found.tolist() == [qids.index("q7"), -1, 0, 299]
    assert loaded.query_index.ids is loaded.query_ids
    assert loaded.query_index.order.tolist() == qrels.query_index.order.tolist()


def test_qrels_made_of_objects_pickle_as_they_are() -> None:
    """Qrels a caller builds from str objects (no Arrow strings) keep them."""
    import pickle

    import pyarrow as pa

    qrels = rv.Qrels(
        query_ids=np.asarray(["b", "a"], dtype=object),
        qid_codes=np.array([0, 1, 1], dtype=np.int32),
        docids=pa.array(["d1", "d1", "d2"]),
        grade=np.array([1, 0, 2]),
    )
    loaded = pickle.loads(pickle.dumps(qrels))
    assert loaded.query_ids.tolist() == ["b", "a"]
    assert loaded.query_index.positions(np.asarray(["a", "c"], dtype=object)).tolist() == [1, -1]
