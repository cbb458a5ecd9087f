"""Byte ranges of whole queries (rankviz.io.byte_ranges): the plan the Dask engine's client makes
without reading the run, and the reads its workers make of their own ranges."""

from __future__ import annotations

import gzip
import os
import re

import pytest
from conftest import CRANFIELD
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankviz as rv
from rankviz.evaluation.engines import evaluate_sources
from rankviz.evaluation.evaluate import as_measures
from rankviz.evaluation.pieces import Job, RunSource, values_of_range
from rankviz.io import byte_ranges
from rankviz.io.byte_ranges import expand_urls, is_url, plan_ranges
from rankviz.settings.eval_settings import EvalSettings


def _data_qids(data: bytes) -> list[bytes]:
    """The query id of each data line, in order (blank lines and comments left out; a byte-order
    mark at the start skipped)."""
    found = []
    data = data[len(byte_ranges.BOM) :] if data.startswith(byte_ranges.BOM) else data
    for line in re.split(rb"\r\n|\r|\n", data):
        qid = (re.match(rb"[ \t]*([^ \t]*)", line) or re.match(b"", b"")).group(1)
        if qid and not qid.startswith(b"#"):
            found.append(qid)
    return found


@st.composite
def run_files(draw) -> bytes:
    """A run file of grouped queries: lines of any length, ``\\n``, ``\\r\\n`` or ``\\r`` ends,
    comments and blank lines anywhere, sometimes a byte-order mark, sometimes no last line end."""
    queries = draw(st.lists(st.integers(1, 30), min_size=1, max_size=12))
    end = draw(st.sampled_from([b"\n", b"\r\n", b"\r"]))
    lines = []
    for q, count in enumerate(queries):
        for rank in range(count):
            if draw(st.integers(0, 9)) == 0:
                lines.append(draw(st.sampled_from([b"", b"# a comment", b"   "])))
            pad = b"x" * draw(st.integers(0, 60))
            lines.append(b"q%d Q0 d%d%s %d %d run" % (q, rank, pad, rank + 1, 100 - rank))
    data = end.join(lines) + (end if draw(st.booleans()) else b"")
    return (byte_ranges.BOM if draw(st.integers(0, 4)) == 0 else b"") + data


# over a second: the hand-made ranges below (a query longer than a range, lines numbered as
# the file numbers them) are its quicker siblings
@pytest.mark.slow
@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=run_files(), range_bytes=st.integers(1, 400), probe=st.sampled_from([3, 16, 4096]))
def test_ranges_hold_whole_queries_and_the_files_bytes(
    tmp_path, monkeypatch, data, range_bytes, probe
):
    monkeypatch.setattr(byte_ranges, "_PROBE_BYTES", probe)
    path = tmp_path / "r.run"
    path.write_bytes(data)
    ranges = plan_ranges(str(path), range_bytes=range_bytes)
    assert ranges[0].start == 0 and ranges[-1].stop == len(data)
    assert all(a.stop == b.start for a, b in zip(ranges, ranges[1:]))
    read = [r.read() for r in ranges]
    assert b"".join(read) == data
    seen: set[bytes] = set()
    for r, part in zip(ranges, read):
        qids = set(_data_qids(part))
        assert not qids & seen  # no query in two ranges
        seen |= qids
        if r.start:  # a range begins with another query than the line before it
            assert _data_qids(part)[0] != r.before_qid == _data_qids(data[: r.start])[-1]
    assert all(r.size >= range_bytes for r in ranges[:-1])  # a cut comes at its target or after


def test_a_query_longer_than_a_range_is_one_range(tmp_path) -> None:
    path = tmp_path / "r.run"
    lines = [f"q1 Q0 d{i} {i + 1} 1 run\n" for i in range(500)] + ["q2 Q0 d1 1 1 run\n"]
    path.write_text("".join(lines))
    ranges = plan_ranges(str(path), range_bytes=100)
    assert [(r.start, r.stop) for r in ranges] == [
        (0, sum(map(len, lines[:-1]))),
        (sum(map(len, lines[:-1])), path.stat().st_size),
    ]


def test_a_gzip_file_is_one_range(tmp_path) -> None:
    path = tmp_path / "r.run.gz"
    path.write_bytes(gzip.compress(b"q1 Q0 d1 1 1 run\nq2 Q0 d1 1 1 run\n" * 1000))
    ranges = plan_ranges(str(path), range_bytes=100)
    assert len(ranges) == 1 and ranges[0].compressed and ranges[0].size == path.stat().st_size


def _job() -> Job:
    qrels = rv.read_qrels(CRANFIELD / "qrels.txt")
    return Job(qrels, tuple(as_measures(["AP"])), EvalSettings(), 0, None)


def test_a_file_that_changes_after_the_plan_is_refused(tmp_path) -> None:
    path = tmp_path / "r.run"
    path.write_text("".join(f"{q} Q0 d{i} {i} 1 run\n" for q in (1, 2, 3) for i in range(1, 40)))
    ranges = plan_ranges(str(path), range_bytes=500)
    assert len(ranges) == 3
    values_of_range(ranges[1], _job(), "r")  # read as planned
    with open(path, "a") as handle:  # a line appended
        handle.write("4 Q0 d1 1 1 run\n")
    with pytest.raises(rv.FormatError, match="changed while it was read"):
        values_of_range(ranges[1], _job(), "r")


def test_a_file_rewritten_to_the_same_size_and_time_is_refused_at_a_moved_cut(tmp_path) -> None:
    """Same size, its modification time set back: the stamp cannot tell, the cut's lines can."""
    path = tmp_path / "r.run"
    path.write_text("".join(f"{q} Q0 d{i} {i} 1 run\n" for q in (1, 2, 3) for i in range(1, 40)))
    ranges = plan_ranges(str(path), range_bytes=500)
    stat = path.stat()
    # query 1 takes the first line of query 2: the same bytes but one, where the cut was
    path.write_bytes(path.read_bytes().replace(b"2 Q0 d1 ", b"1 Q0 d1 "))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert plan_ranges(str(path), range_bytes=500)[0].stamp == ranges[0].stamp
    with pytest.raises(rv.FormatError, match="its lines moved"):
        ranges[1].read()


def test_a_range_numbers_its_lines_as_the_file_does(tmp_path) -> None:
    path = tmp_path / "r.run"
    good = [f"{q} Q0 d{i} {i} 1 run\n" for q in (1, 2) for i in range(1, 40)]
    path.write_text("".join(good) + "3 Q0 d1 1 x run\n")
    last = plan_ranges(str(path), range_bytes=500)[-1]
    with pytest.raises(rv.FormatError, match="line 1:"):
        values_of_range(last, _job(), "r")
    with pytest.raises(rv.FormatError, match=f"line {len(good) + 1}:"):
        values_of_range(last, _job(), "r", first_line=len(good) + 1)


def test_urls_expand_to_the_files_they_match(tmp_path) -> None:
    for name in ("b.run", "a.run", "c.txt"):
        (tmp_path / name).write_text("1 Q0 d 1 1 r\n")
    (tmp_path / "sub").mkdir()
    url = f"file://{tmp_path}"
    assert expand_urls([f"{url}/*.run", "plain/*.run"]) == [
        f"file://{tmp_path}/a.run",
        f"file://{tmp_path}/b.run",
        "plain/*.run",  # not a URL: the shell's to expand
    ]
    assert expand_urls([f"{url}/"]) == [
        f"file://{tmp_path}/{n}" for n in ("a.run", "b.run", "c.txt")
    ]
    with pytest.raises(rv.OptionError, match="no run file matches"):
        expand_urls([f"{url}/*.trec"])
    names = [s.name for s in RunSource.of_paths([f"{url}/*.run"])]
    assert names == ["a", "b"]
    assert is_url("s3://b/r") and is_url("file:///x") and not is_url("C:\\runs\\r")


def test_a_url_run_needs_the_dask_engine(tmp_path) -> None:
    with pytest.raises(rv.OptionError, match="read by the Dask engine's workers"):
        evaluate_sources(
            rv.read_qrels(CRANFIELD / "qrels.txt"),
            [RunSource.of(f"file://{CRANFIELD}/runs/bm25.run.gz")],
            ["AP"],
        )
