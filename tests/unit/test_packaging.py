"""The project installs as a package, and the README's two commands are the ones CI and users
run."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib

import pytest
from conftest import ROOT

README = (ROOT / "README.md").read_text()


def readme_commands() -> list[str]:
    """The indented command lines of the README before its first section."""
    head = README.split("\n## ", 1)[0]
    return [line.strip() for line in head.splitlines() if line.startswith("    ") and line.strip()]


def test_the_readme_opens_with_the_app_command_and_the_test_command() -> None:
    """Each makes its virtual environment first (Debian's Python refuses pip outside one)."""
    app, tests = readme_commands()[:2]
    venv = "python3 -m venv .venv && . .venv/bin/activate && pip install -r "
    assert app.startswith(venv) and app.endswith("streamlit run app.py")
    assert tests.startswith(venv) and "python -m pytest" in tests
    assert "3.11" in README.split("\n## ", 1)[0]


def test_the_readme_says_what_rankviz_is_before_its_first_picture() -> None:
    """At most 200 words (code and link targets aside) before the first picture."""
    before = README.split("![", 1)[0]
    prose = re.sub(r"^    .*$", "", before, flags=re.MULTILINE)
    assert len(re.findall(r"[\w'`@.\-]+", prose)) <= 200


def test_ci_runs_the_readme_test_command_in_a_fresh_virtual_environment() -> None:
    ci = (ROOT / ".ci" / "run").read_text()
    assert readme_commands()[1] in ci.splitlines()
    assert "rm -rf .venv" in ci


def test_every_python_the_package_claims_is_named_by_the_readme_and_tested_by_ci() -> None:
    """The classifiers list the versions CI tests: the running one through the README's command,
    each other through .ci/other-pythons (#65), which reads the same classifiers."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    prefix = "Programming Language :: Python :: "
    versions = [
        c.removeprefix(prefix) for c in project["classifiers"] if c.startswith(prefix + "3.")
    ]
    assert versions[0] == project["requires-python"].removeprefix(">=")
    assert versions == [f"3.{minor}" for minor in range(11, 11 + len(versions))]
    assert len(versions) >= 3
    for version in versions:
        assert version in README.split("\n## ", 1)[0], version
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert ci[-1] == "bash .ci/other-pythons"
    other = (ROOT / ".ci" / "other-pythons").read_text()
    assert '"Programming Language :: Python :: 3."' in other
    assert 'pytest -m "not browser and not slow"' in other


def test_every_dependency_is_declared_once_in_pyproject() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert (
        project["requires-python"] == ">=3.11"
        and project["scripts"]["rankviz"] == "rankviz.cli:main"
    )
    test_extra = " ".join(project["optional-dependencies"]["test"])
    needs = (
        "pytest",
        "hypothesis",
        "pytrec-eval-terrier",
        "ir-measures",
        "statsmodels",
        "playwright",
        "ruff",
        "rankviz[app,dask,irds]",
        "scikit-learn",
    )
    for needed in needs:
        assert needed in test_extra
    for name in ("requirements.txt", "requirements-dev.txt"):
        lines = [
            line
            for line in (ROOT / name).read_text().splitlines()
            if line and not line.startswith("#")
        ]
        assert lines[0] == "-c constraints.txt", name
        assert all(re.fullmatch(r"-e \.(\[[a-z,]+\])?", line) for line in lines[1:]), name


def _name(requirement: str) -> str:
    return re.split(r"[\[<>=!~; ]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def test_constraints_pin_every_dependency_ci_installs() -> None:
    """The README's commands install through constraints.txt: every package exactly, so a release on
    the registry changes nothing CI runs until the file is renewed (docs/development.md says
    how)."""
    pins = [
        line
        for line in (ROOT / "constraints.txt").read_text().splitlines()
        if line and not line.startswith("#")
    ]
    assert all(re.fullmatch(r"[A-Za-z0-9_.\-]+==[0-9][0-9A-Za-z.+!\-]*", line) for line in pins), (
        pins
    )
    pinned = {_name(line) for line in pins}
    assert len(pinned) == len(pins)  # one pin a package
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    named = [
        *project["dependencies"],
        *(r for extra in ("app", "dask", "irds", "test") for r in extras[extra]),
    ]
    wanted = {_name(r) for r in named if not r.startswith("rankviz")}
    assert wanted <= pinned, sorted(wanted - pinned)


@pytest.mark.slow
def test_pip_install_gives_a_rankviz_command_and_package_outside_the_checkout(tmp_path) -> None:
    target = tmp_path / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--target",
            str(target),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
        text=True,
        timeout=600,
    )
    env = {**os.environ, "PYTHONPATH": str(target)}
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    qrels, run = (
        ROOT / "tests" / "data" / "conformance" / "te_test" / "qrels.txt",
        ROOT / "tests" / "data" / "conformance" / "te_test" / "run_STANDARD.txt",
    )
    done = subprocess.run(
        [str(target / "bin" / "rankviz"), "evaluate", str(qrels), str(run), "-m", "P@10"],
        cwd=elsewhere,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert "0.3000" in done.stdout
    assert (
        "evaluate"
        in subprocess.run(
            [str(target / "bin" / "rankviz"), "--help"],
            cwd=elsewhere,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )
    where = subprocess.run(
        [sys.executable, "-c", "import rankviz; print(rankviz.__file__)"],
        cwd=elsewhere,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert where.startswith(str(target))
