"""The code passes its own linters: ruff (lint and format) and mypy on the package, the pages and
app.py; and the habits a reader relies on that no linter checks."""

from __future__ import annotations

import ast
import re
import subprocess
import sys

import pytest
from conftest import ROOT
from source_trees import nodes


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


def _sources():
    return [
        *(ROOT / "rankviz").rglob("*.py"),
        *(ROOT / "pages").glob("*.py"),
        ROOT / "app.py",
        *(ROOT / "bench").glob("*.py"),
    ]


def test_no_private_name_is_imported_from_another_module() -> None:
    """A leading underscore says "only this module uses it": a name another module imports is
    public, and named so (tests may reach into a module; the package, the pages and the benches
    do not)."""
    private = [
        f"{path.relative_to(ROOT)}: {node.module}.{alias.name}"
        for path in _sources()
        for node in nodes(path)
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("rankviz")
        for alias in node.names
        if alias.name.startswith("_") and not alias.name.startswith("__")
    ]
    assert not private, private


def test_no_empty_type_checking_block() -> None:
    """``if TYPE_CHECKING: pass`` (what is left when its imports moved) says nothing."""
    empty = [
        f"{path.relative_to(ROOT)}:{node.lineno}"
        for path in _sources()
        for node in nodes(path)
        if isinstance(node, ast.If)
        and "TYPE_CHECKING" in ast.unparse(node.test)
        and all(isinstance(statement, ast.Pass) for statement in node.body)
    ]
    assert not empty, empty
