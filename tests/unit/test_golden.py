"""The command line's outputs on the sample collections, byte for byte: a refactoring changes no number.

``RANKVIZ_UPDATE_GOLDEN=1 python -m pytest tests/unit/test_golden.py`` writes the files anew; a change of
a number is then a reviewed change of ``tests/data/golden/``, never a silent one.
"""

from __future__ import annotations

import contextlib
import io
import os

import pytest
from conftest import CAST, CRANFIELD, DATA, DL_HARD

from rankviz.cli import main

GOLDEN = DATA / "golden"

COMMANDS = {
    "cranfield-evaluate": "evaluate {cranfield} --per-query --format tsv",
    "cranfield-evaluate-expected": "evaluate {cranfield} --ties expected --missing skip --format tsv",
    "cranfield-evaluate-random": "evaluate {cranfield} rrf qld --ties random --trials 7 --seed 3 --format tsv",
    "cranfield-evaluate-unjudged": "evaluate {cranfield} rrf --unjudged relevant:2 --ties optimistic --format tsv",
    "cranfield-compare": "compare {cranfield} -m AP -m nDCG@10 --format tsv",
    "cranfield-compare-randomization": "compare {cranfield} bm25 rrf dense -m RR@10 --test randomization --resamples 500 "
    "--seed 2 --pairs all --format tsv",
    "cranfield-ties": "ties {cranfield} -m nDCG@10 -m Judged@10 --trials 5 --seed 1 --format json",
    "cranfield-unjudged": "unjudged {cranfield} -m AP -m RBP(p=0.5,residual=True) --format json",
    "dl-hard-evaluate-groups": "evaluate {dl_hard} --group-by query_intent --aggregate macro --format tsv",
    "cast-evaluate": "evaluate {cast} --per-query --format tsv",
    "cast-metrics-report": "metrics-report {cast} -m nDCG@3 -m AP --splits 20 --resamples 200 --seed 5 --format json",
}
FOLDERS = {"cranfield": CRANFIELD, "dl_hard": DL_HARD, "cast": CAST}


def _run(argv: list[str]) -> str:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        assert main(argv) == 0, err.getvalue()
    return out.getvalue().replace(str(DATA.parent.parent), "ROOT")


@pytest.mark.slow
@pytest.mark.parametrize("name", list(COMMANDS))
def test_the_command_lines_output_is_unchanged(name: str) -> None:
    path = GOLDEN / f"{name}.txt"
    got = _run([word.format(**FOLDERS) for word in COMMANDS[name].split()])
    if os.environ.get("RANKVIZ_UPDATE_GOLDEN"):
        GOLDEN.mkdir(parents=True, exist_ok=True)
        path.write_text(got)
    assert got == path.read_text(), f"{name}: the output changed; if on purpose, RANKVIZ_UPDATE_GOLDEN=1 writes it anew"
