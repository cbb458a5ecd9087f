"""A newcomer's first ten minutes, as a script: a copy of the checkout in a temporary folder, the
README's first command as written (its virtual environment made from nothing, the pins installed)
starting the app until it answers, then every ``$ rankviz`` example of the README and the docs on
the bundled samples with the command that install gave. The docs' Python examples run from outside
the checkout in tests/unit/test_docs.py; the ``--help`` examples in tests/unit/test_cli.py."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest
from conftest import ROOT
from test_packaging import readme_commands

pytestmark = pytest.mark.slow


def _copy_of_the_checkout(target: Path) -> None:
    """The files git tracks, as a fresh clone has them (links kept as links)."""
    files = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True, check=True
    ).stdout.split(b"\0")
    for name in filter(None, files):
        source, copy = ROOT / name.decode(), target / name.decode()
        copy.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():
            copy.symlink_to(os.readlink(source))
        elif source.is_file():
            shutil.copy2(source, copy)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _answers(url: str, process: subprocess.Popen, seconds: float = 120) -> bool:
    """Whether the server answers its health check before it exits or ``seconds`` pass (polled:
    the answer is the event waited for)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and process.poll() is None:
        try:
            return urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).read() == b"ok"
        except OSError:
            time.sleep(0.3)
    return False


def _shell_examples() -> list[str]:
    """The ``$ rankviz ...`` lines of the README and the docs that run on the bundled samples."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    lines = [
        found
        for page in pages
        for found in re.findall(r"(?m)^    \$ (rankviz .*)$", page.read_text(encoding="utf-8"))
    ]
    return [line for line in lines if "sample_data/" in line]


@pytest.mark.skipif(shutil.which("git") is None or not (ROOT / ".git").exists(), reason="no git")
def test_the_readme_and_the_docs_work_as_written_for_a_newcomer(tmp_path: Path) -> None:
    checkout = tmp_path / "rankviz"
    _copy_of_the_checkout(checkout)
    app = readme_commands()[0]
    assert app.endswith(" && streamlit run app.py")
    # a shell of its own: not the tests' virtual environment
    environment = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    install = app.removesuffix(" && streamlit run app.py")
    done = subprocess.run(
        ["bash", "-c", install], cwd=checkout, env=environment, capture_output=True, text=True,
        timeout=1500,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    bin_ = checkout / ".venv" / "bin"
    port = _free_port()
    server = subprocess.Popen(
        [str(bin_ / "streamlit"), "run", "app.py", "--server.headless", "true",
         "--server.port", str(port), "--browser.gatherUsageStats", "false"],
        cwd=checkout, env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        assert _answers(f"http://127.0.0.1:{port}", server), "the app did not start"
    finally:
        server.terminate()
        server.wait(timeout=30)
    examples = _shell_examples()
    assert len(examples) >= 6
    with_venv = {**environment, "PATH": f"{bin_}{os.pathsep}{environment['PATH']}"}
    for example in examples:
        ran = subprocess.run(
            ["bash", "-c", example], cwd=checkout, env=with_venv, capture_output=True, text=True,
            timeout=600,
        )  # fmt: skip
        assert ran.returncode == 0, (example, ran.stderr[-2000:])
        assert "Traceback" not in ran.stderr, example
