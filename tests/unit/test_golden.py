"""The command line's outputs on the sample collections: a refactoring changes no word and no
number.

Text is compared exactly; numbers to a relative tolerance of 1e-12 (:data:`RELATIVE`), far above the
last-digit differences a new numpy or pandas makes in a sum, far below any digit a measure reports.
Integers (counts, ranks, query ids) compare exactly. Randomised outputs (``--seed``) are
reproducible from the seed for a given numpy version: ``constraints.txt`` pins the one CI installs.

``RANKVIZ_UPDATE_GOLDEN=1 python -m pytest tests/unit/test_golden.py`` writes the files anew; a
change of a number is then a reviewed change of ``tests/data/golden/``, never a silent one.
"""

from __future__ import annotations

import contextlib
import io
import math
import os
import re

import pytest
from conftest import CAST, CRANFIELD, DATA, DL_HARD

from rankviz.cli import main

GOLDEN = DATA / "golden"

COMMANDS = {
    "cranfield-evaluate": "evaluate {cranfield} --per-query --format tsv",
    "cranfield-evaluate-expected": "evaluate {cranfield} --ties expected --missing skip --format "
    "tsv",
    "cranfield-evaluate-random": "evaluate {cranfield} rrf qld --ties random --trials 7 --seed 3 "
    "--format tsv",
    "cranfield-evaluate-unjudged": "evaluate {cranfield} rrf --unjudged relevant:2 --ties "
    "optimistic --format tsv",
    "cranfield-compare": "compare {cranfield} -m AP -m nDCG@10 --format tsv",
    "cranfield-compare-randomization": "compare {cranfield} bm25 rrf dense -m RR@10 --test "
    "randomization --resamples 500 "
    "--seed 2 --pairs all --format tsv",
    "cranfield-ties": "ties {cranfield} -m nDCG@10 -m Judged@10 --trials 5 --seed 1 --format json",
    "cranfield-unjudged": "unjudged {cranfield} -m AP -m RBP(p=0.5,residual=True) --format json",
    "dl-hard-evaluate-groups": "evaluate {dl_hard} --group-by query_intent --aggregate macro "
    "--format tsv",
    "cast-evaluate": "evaluate {cast} --per-query --format tsv",
    "cast-metrics-report": "metrics-report {cast} -m nDCG@3 -m AP --splits 20 --resamples 200 "
    "--seed 5 --format json",
}
FOLDERS = {"cranfield": CRANFIELD, "dl_hard": DL_HARD, "cast": CAST}
RELATIVE = 1e-12
_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?(?![\w.])")


def differences(got: str, expected: str) -> list[str]:
    """Where ``got`` differs from ``expected``: any text, an integer, or a real number by more than
    :data:`RELATIVE`."""
    got_lines, expected_lines = got.splitlines(), expected.splitlines()
    if len(got_lines) != len(expected_lines):
        return [f"{len(got_lines)} lines, {len(expected_lines)} expected"]
    found = []
    for number, (line, want) in enumerate(zip(got_lines, expected_lines), 1):
        if _NUMBER.split(line) != _NUMBER.split(want):
            found.append(f"line {number}: {line!r} != {want!r}")
            continue
        for a, b in zip(_NUMBER.findall(line), _NUMBER.findall(want)):
            real = any(c in a + b for c in ".eE")
            if (
                (a != b)
                if not real
                else not math.isclose(float(a), float(b), rel_tol=RELATIVE, abs_tol=1e-300)
            ):
                found.append(f"line {number}: {a} != {b}")
    return found


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
    changed = differences(got, path.read_text())
    assert not changed, (
        f"{name}: the output changed ({changed[:5]}); if on purpose, "
        "RANKVIZ_UPDATE_GOLDEN=1 writes it anew"
    )


@pytest.mark.slow
@pytest.mark.parametrize("core", ["Prescott", "Sandybridge", "Haswell"])
def test_the_outputs_are_the_same_whichever_blas_kernel_sums(core: str) -> None:
    """The golden outputs again, in a process whose OpenBLAS uses the kernels of another CPU
    (``OPENBLAS_CORETYPE``): a matrix product's last bits move with the kernel, and no sign, tie or
    order may move with them (a swap rate read 0.115 for 0.11 under Sandybridge and Haswell)."""
    import subprocess
    import sys

    environment = {**os.environ, "OPENBLAS_CORETYPE": core}
    environment.pop("RANKVIZ_UPDATE_GOLDEN", None)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist"]
        + ["-m", "slow", "-k", "output_is_unchanged", __file__],
        env=environment,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout[-3000:]
    assert f"{len(COMMANDS)} passed" in done.stdout


def test_the_comparison_forgives_the_last_digits_of_a_real_number_and_nothing_else() -> None:
    # a 17th digit moved: a new numpy summing in another order
    expected = "ERR@20\tall\t0.27371552046123456\t225\n"
    assert differences("ERR@20\tall\t0.27371552046123458\t225\n", expected) == []
    # the 12th digit: 3.5e-12 apart
    assert differences("ERR@20\tall\t0.2737155204622\t225\n", expected)
    assert differences("ERR@20\tall\t0.27371552046123456\t224\n", expected)  # a count
    assert differences("ERR@10\tall\t0.27371552046123456\t225\n", expected)  # a measure's name
    assert differences("ERR@20\tall\t0.27371552046123456\t225\nmore\n", expected)
    assert differences('{"swap_rate": 0.115}', '{"swap_rate": 0.125}')
    assert differences("1e-5", "1.00000000000001e-5") == [] and differences("0.0", "-0.0") == []
