"""The code passes its own linters: ruff (lint and format) and mypy on the package, the pages and
app.py."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from conftest import ROOT


def run(*command: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", *command], cwd=ROOT, capture_output=True, text=True, timeout=600
    )


def test_ruff_finds_nothing_and_the_format_holds() -> None:
    lint = run("ruff", "check", ".")
    assert lint.returncode == 0, lint.stdout + lint.stderr
    form = run("ruff", "format", "--check", ".")
    assert form.returncode == 0, form.stdout + form.stderr


@pytest.mark.slow
def test_mypy_type_checks_the_package_the_pages_and_the_app() -> None:
    checked = run("mypy")  # files and options: [tool.mypy] in pyproject.toml
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "Success" in checked.stdout


def test_no_property_test_has_a_deadline() -> None:
    """Hypothesis's default deadline fails a test on a loaded machine: the profile turns it off for
    all."""
    from hypothesis import settings

    assert settings().deadline is None
    # a keyword; split: this file holds no match
    given_one = re.compile(r"[(,]\s*" "dead" r"line\s*=\s*(?!None)")
    assert not [
        path.name
        for path in (ROOT / "tests").rglob("test_*.py")
        if given_one.search(path.read_text())
    ]
