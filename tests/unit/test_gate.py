"""The CI gate of ``rankviz compare``: ``--fail-if worse|not-better [--margin DELTA]`` exits 1 and says
which comparison failed, 0 otherwise. On Cranfield with the paired t-test, dense beats bm25 on AP
(delta +0.0271, p 0.014) and not on nDCG@10 (delta +0.0139, p 0.29)."""

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
        (["-m", "AP", "--fail-if", "worse", "--baseline", "dense"], 1, "gate failed: bm25 against dense on AP: delta -0.0271"),
        (["-m", "AP", "--fail-if", "not-better"], 0, "gate passed"),
        (
            ["-m", "nDCG@10", "--fail-if", "not-better"],
            1,
            "dense against bm25 on nDCG@10: delta +0.0139, adjusted p 0.291: not significantly better",
        ),  # fmt: skip
        (["-m", "AP", "--fail-if", "not-better", "--margin", "0.05"], 1, "not better by more than 0.05"),
        (["-m", "nDCG@10", "--fail-if", "worse", "--baseline", "dense"], 0, "gate passed"),  # n.s.: no failure
        (["-m", "nDCG@10", "--fail-if", "worse", "--baseline", "dense", "--margin", "0.01"], 1, "lower by more than the margin"),
        (["-m", "nDCG@10", "--fail-if", "worse", "--baseline", "dense", "--margin", "0.02"], 0, "gate passed"),
    ],
)
def test_the_gate_fails_the_comparisons_it_names(capsys, args, status, said) -> None:
    got, err = compare(capsys, *args)
    assert got == status and said in err, err


def test_a_margin_without_a_gate_is_an_error(capsys) -> None:
    got, err = compare(capsys, "-m", "AP", "--margin", "0.01")
    assert got == 2 and "--margin goes with --fail-if" in err
