"""``rankviz trec-eval`` prints what trec_eval 10 prints, byte for byte (tests/data/trec-eval-cli,
with its source), and refuses in one line what it does not compute."""

from __future__ import annotations

import pytest
from conftest import ROOT, run_cli

KEPT = ROOT / "tests" / "data" / "trec-eval-cli"
PLACES = {"{F}": "tests/data/trec-eval-fixtures", "{C}": "tests/data/conformance"}


def _cases():
    for line in (KEPT / "cases.tsv").read_text().splitlines():
        if line and not line.startswith("#"):
            name, arguments = line.split("\t")
            for mark, folder in PLACES.items():
                arguments = arguments.replace(mark, str(ROOT / folder))
            # the Makefile's second quicktest line diffs against the first one's output
            expected = KEPT / ("quicktest-1.out" if name == "quicktest-2" else f"{name}.out")
            yield pytest.param(arguments.split(), expected, id=name)


@pytest.mark.parametrize(("arguments", "expected"), list(_cases()))
def test_the_output_is_trec_evals_byte_for_byte(arguments, expected) -> None:
    done = run_cli("trec-eval", *arguments)
    assert done.returncode == 0, done.stderr
    assert done.stdout == expected.read_text()


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        (["-m", "infAP"], "does not compute trec_eval's infAP yet"),
        (["-m", "all_trec"], "is not a trec_eval measure"),
        (["-m", "P.x"], "'x' is not a cutoff"),
        (["-m", "map.5"], "map takes no parameters"),
    ],
)
def test_what_it_does_not_compute_is_refused_by_name(arguments, said) -> None:
    fixtures = ROOT / PLACES["{F}"]
    done = run_cli(
        "trec-eval", *arguments, str(fixtures / "qrels.test"), str(fixtures / "results.test")
    )
    assert done.returncode == 2 and done.stdout == ""
    assert said in done.stderr and len(done.stderr.splitlines()) == 1


def test_a_judged_query_the_run_misses_stops_it_as_it_stops_trec_eval() -> None:
    """trec_eval 10 stops (exit 4) on a judged query without results unless -c."""
    done = run_cli(
        "trec-eval",
        str(ROOT / PLACES["{F}"] / "qrels.test"),
        str(ROOT / PLACES["{C}"] / "te_test" / "run_trunc.txt"),
    )
    assert done.returncode == 2 and "judged query '302'" in done.stderr
