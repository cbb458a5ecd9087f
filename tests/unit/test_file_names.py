"""A run file whose name is not UTF-8 (a Latin-1 name from an old archive): every subcommand
names it as a shell prints it, ``$'caf\\351'``, and none ends in a traceback (#67: compare,
anova, features, repro, fuse, ties, metrics-report and unjudged raised UnicodeEncodeError)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from conftest import CRANFIELD, run_cli

from rankviz.errors import FormatError, shell_quoted

LATIN1 = os.fsdecode(b"caf\xe9")  # the bytes of a Latin-1 "cafe" with its accent


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("latin1")
    found = {}
    for name, source in ((LATIN1, "bm25"), ("dense", "dense"), (LATIN1 + "2", "rrf")):
        path = folder / f"{name}.run.gz"
        try:
            shutil.copy(CRANFIELD / "runs" / f"{source}.run.gz", path)
        except (UnicodeEncodeError, OSError):
            pytest.skip("this file system takes no name that is not UTF-8")
        found[name] = path
    return found


COMMANDS = {
    "evaluate": ["evaluate", "{qrels}", "{a}", "{b}", "-m", "AP"],
    "compare": ["compare", "{qrels}", "{a}", "{b}", "-m", "AP"],
    "ties": ["ties", "{qrels}", "{a}", "{b}", "-m", "AP"],
    "unjudged": ["unjudged", "{qrels}", "{a}", "{b}", "-m", "AP"],
    "metrics-report": ["metrics-report", "{qrels}", "{a}", "{b}", "--splits", "10"],
    "anova": ["anova", "{qrels}", "{a}", "{b}", "{c}", "-m", "AP"],
    "features": ["features", "{qrels}", "{a}", "{b}", "-m", "AP"],
    "repro": ["repro", "{qrels}", "--original", "{a}", "{b}", "--reproduced", "{c}", "{d}"],
    "fuse": ["fuse", "{a}", "{b}", "-o", "{out}"],
    "check": ["check", "{qrels}", "{a}", "{b}"],
    "trec-eval": ["trec-eval", "{qrels}", "{a}"],
}


@pytest.mark.parametrize("name", list(COMMANDS))
@pytest.mark.few
def test_every_subcommand_names_a_latin1_run_as_the_shell_does(runs, tmp_path, name) -> None:
    (latin, dense, other) = runs.values()
    places = {
        "{qrels}": str(CRANFIELD / "qrels.txt"),
        "{a}": str(latin),
        "{b}": str(dense),
        "{c}": str(other),
        "{d}": str(CRANFIELD / "runs" / "qld.run.gz"),
        "{out}": str(tmp_path / "fused.run"),
    }
    done = run_cli(*(places.get(a, a) for a in COMMANDS[name]))
    assert "Traceback" not in done.stderr and "UnicodeEncodeError" not in done.stderr
    assert done.returncode in (0, 1), done.stderr
    shown = done.stdout + (tmp_path / "fused.run").read_text() if name == "fuse" else done.stdout
    # trec_eval prints its runid; check its findings; anova its sources of variance
    if name not in ("trec-eval", "check", "anova"):
        assert "$'caf\\351'" in shown, shown[:500]
    assert "\udce9" not in shown


def test_a_file_name_is_quoted_as_a_shell_prints_it() -> None:
    assert shell_quoted("bm25.run") == "bm25.run"
    assert shell_quoted(LATIN1) == "$'caf\\351'"
    assert shell_quoted("a\nb's") == "$'a\\nb\\'s'"
    message = str(FormatError(LATIN1 + ".run", 3, None, "bad"))
    assert message == "$'caf\\351.run', line 3: bad"
