"""Requests that were taken wrongly or silently (#67), each now taken as meant or refused in one
line naming what is wrong: a single path or name where the API takes a list, an unknown option,
one run fused with itself, a depth of 0, a margin of error that is no number, a score said to
read better lower that no file holds, a truncated gzip on every path in."""

from __future__ import annotations

import gzip

import pytest
from conftest import CRANFIELD, run_cli

import rankviz as rv

QRELS, BM25 = CRANFIELD / "qrels.txt", CRANFIELD / "runs" / "bm25.run.gz"


def test_one_run_file_where_the_api_takes_a_list_is_that_one_run() -> None:
    """``Study.open(qrels, "r1.run")`` said the same file was given twice (as "/" and "/"): it
    iterated the string's characters."""
    study = rv.Study.open(rv.StudyRequest(QRELS, str(BM25), measures="AP"))
    assert study.run_names == ["bm25"] and [str(m) for m in study.measures] == ["AP"]
    request = rv.StudyRequest(QRELS, BM25, measures="nDCG@10", scores=str(BM25))
    assert request.runs == (BM25,) and request.measures == ("nDCG@10",)
    assert request.scores == (str(BM25),)


def test_an_unknown_option_is_refused_naming_it_and_the_known_ones() -> None:
    with pytest.raises(rv.OptionError) as refused:
        rv.Study.open(rv.StudyRequest(QRELS, BM25, options={"tie": "expected"}))
    said = str(refused.value)
    assert "no option 'tie'" in said and "ties, missing, rel" in said
    with pytest.raises(rv.OptionError, match="options is a mapping"):
        rv.StudyRequest(QRELS, options=["ties"])  # type: ignore[arg-type]


def test_one_run_fused_with_itself_and_a_depth_of_0_are_refused(tmp_path) -> None:
    out = str(tmp_path / "fused.run")
    twice = run_cli("fuse", str(BM25), str(BM25), "-o", out)
    assert twice.returncode == 2 and "the same run file is given twice" in twice.stderr
    dense = str(CRANFIELD / "runs" / "dense.run.gz")
    none = run_cli("fuse", str(BM25), dense, "-o", out, "--depth", "0")
    (line,) = none.stderr.splitlines()
    assert none.returncode == 2 and "the depth (--depth) is the documents kept" in line
    assert "DataFrame" not in line
    run = rv.read_run(BM25)
    from rankviz.study.fusing import Recipe, fused_run

    with pytest.raises(rv.OptionError, match="one run twice fuses nothing"):
        fused_run([run, run], Recipe())


@pytest.mark.parametrize("value", ["nan", "inf", "-0.1", "0", "x"])
def test_a_margin_of_error_is_a_number_above_0(value: str) -> None:
    done = run_cli("anova", str(CRANFIELD), "--target-moe", value)
    assert done.returncode == 2 and "a margin of error is a number above 0" in done.stderr


def test_a_score_no_file_holds_cannot_be_said_to_read_better_lower() -> None:
    done = run_cli("evaluate", str(CRANFIELD), "--lower-is-better", "zz")
    (line,) = done.stderr.splitlines()
    assert done.returncode == 2 and "no score is named 'zz'" in line
    nuggets = CRANFIELD.parent / "rag-nuggets"
    done = run_cli("evaluate", str(nuggets / "scores.tsv"), "--score-range", "vitl=0:1")
    assert done.returncode == 2 and "no score is named 'vitl'" in done.stderr
    assert "vital" in done.stderr  # the files' scores are named


@pytest.mark.parametrize("role", ["qrels", "run", "scores"])
def test_a_truncated_gzip_is_named_on_every_path_in(tmp_path, role: str) -> None:
    """A gzip cut short as qrels or scores ended in an EOFError traceback, the file unnamed."""
    cut = tmp_path / "cut.gz"
    source = QRELS.read_bytes() if role == "qrels" else gzip.decompress(BM25.read_bytes())
    cut.write_bytes(gzip.compress(source)[:2000])
    argv = {
        "qrels": ["evaluate", str(cut), str(BM25)],
        "run": ["evaluate", str(QRELS), str(cut)],
        "scores": ["evaluate", str(QRELS), str(BM25), "--scores", str(cut)],
    }[role]
    done = run_cli(*argv)
    (line,) = done.stderr.splitlines()
    assert done.returncode == 2 and f"{cut}: cannot decompress" in line


def test_an_app_of_a_folder_that_holds_no_collection_is_refused_before_it_serves(tmp_path) -> None:
    """``rankviz app EMPTY_FOLDER`` started a server that served nothing."""
    empty = tmp_path / "empty"
    empty.mkdir()
    done = run_cli("app", str(empty))
    (line,) = done.stderr.splitlines()
    assert (
        done.returncode == 2 and f"{empty}: holds no collection: a collection folder holds" in line
    )
