"""The CI gate of ``rankviz compare``: ``--fail-if worse|not-better [--margin DELTA]`` exits 1 and
says which comparison failed, 0 otherwise. On Cranfield with the paired t-test, dense beats bm25 on
AP (delta +0.0271, p 0.014) and not on nDCG@10 (delta +0.0139, p 0.29)."""

from __future__ import annotations

import pytest
from conftest import ROOT

from rankviz.cli import main

CRANFIELD = str(ROOT / "sample_data" / "cranfield")


def compare(capsys, *args: str) -> tuple[int, str]:
    status = main(["compare", CRANFIELD, "bm25", "dense", "--test", "t", "--no-check", *args])
    return status, capsys.readouterr().err


@pytest.mark.parametrize(
    ("args", "status", "said"),
    [
        (["-m", "AP", "--fail-if", "worse"], 0, "gate passed"),
        (
            ["-m", "AP", "--fail-if", "worse", "--baseline", "dense"],
            1,
            "gate failed: bm25 against dense on AP: delta -0.0271",
        ),
        (["-m", "AP", "--fail-if", "not-better"], 0, "gate passed"),
        (
            ["-m", "nDCG@10", "--fail-if", "not-better"],
            1,
            "dense against bm25 on nDCG@10: delta +0.0139, adjusted p 0.291: not significantly "
            "better",
        ),
        (
            ["-m", "AP", "--fail-if", "not-better", "--margin", "0.05"],
            1,
            "not better by more than 0.05",
        ),
        # n.s.: no failure
        (["-m", "nDCG@10", "--fail-if", "worse", "--baseline", "dense"], 0, "gate passed"),
        (
            ["-m", "nDCG@10", "--fail-if", "worse", "--baseline", "dense", "--margin", "0.01"],
            1,
            "lower by more than the margin",
        ),
        (
            ["-m", "nDCG@10", "--fail-if", "worse", "--baseline", "dense", "--margin", "0.02"],
            0,
            "gate passed",
        ),
    ],
)
def test_the_gate_fails_the_comparisons_it_names(capsys, args, status, said) -> None:
    got, err = compare(capsys, *args)
    assert got == status and said in err, err


def test_a_margin_without_a_gate_is_an_error(capsys) -> None:
    got, err = compare(capsys, "-m", "AP", "--margin", "0.01")
    assert got == 2 and "--margin goes with --fail-if" in err


def test_a_gate_that_could_test_nothing_does_not_pass(tmp_path, capsys) -> None:
    """One query: no paired test has a distribution, the p-value is n/a. The gate said "gate passed"
    with exit 0; it now says which comparison it cannot judge, exit 2 (neither passed nor
    failed)."""
    qrels, a, b = tmp_path / "qrels.txt", tmp_path / "a.txt", tmp_path / "b.txt"
    qrels.write_text("1 0 d1 1\n1 0 d2 0\n")
    a.write_text("1 Q0 d1 1 2.0 a\n1 Q0 d2 2 1.0 a\n")
    b.write_text("1 Q0 d2 1 2.0 b\n1 Q0 d1 2 1.0 b\n")
    assert (
        main(
            ["compare", str(qrels), str(a), str(b), "-m", "AP", "--fail-if", "worse", "--no-check"]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert (
        "cannot judge b against a on AP: 1 queries both answer, too few to test" in err
        and "gate passed" not in err
    )


def test_the_summary_gate_says_its_verdict(capsys) -> None:
    """Cranfield and DL-HARD pooled (the shipped names file): expansion +0.0182 [-0.0052, 0.0416]
    and reranked +0.0531 [0.0405, 0.0657] on AP. The summary's gate printed no verdict line at
    all."""
    folders = [str(ROOT / "sample_data" / name) for name in ("cranfield", "dl-hard-passage")]
    names = str(ROOT / "sample_data" / "summary-names.tsv")
    summary = ["summary", *folders, "--baseline", "bm25", "--names", names, "-m", "AP", "--fail-if"]
    assert main([*summary, "worse"]) == 0
    assert "gate passed: no pooled delta lies below 0" in capsys.readouterr().err
    assert main([*summary, "not-better"]) == 1
    err = capsys.readouterr().err
    assert (
        "gate failed: expansion against bm25 on AP over 2 collections: pooled delta +0.0182: "
        "its interval reaches 0"
    ) in err
    assert "reranked" not in err and "gate passed" not in err
