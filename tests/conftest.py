"""Shared paths and markers. Tests live in folders by kind (unit, reference, app, browser), each
kind a marker; ``-m "not browser and not slow"`` is the quick subset (README)."""

import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings

# no test depends on the machine's speed: hypothesis's per-example deadline (200 ms) fails a loaded
# machine's run, not a wrong result; loaded before any test module, so every @settings inherits it
settings.register_profile("rankviz", deadline=None, print_blob=True)
settings.load_profile("rankviz")

ROOT = Path(__file__).parent.parent
DATA = Path(__file__).parent / "data"
CONFORMANCE = DATA / "conformance"
TE = CONFORMANCE / "te_test"
SAMPLES = ROOT / "sample_data"
CRANFIELD = SAMPLES / "cranfield"
DL_HARD = SAMPLES / "dl-hard-passage"
CAST = SAMPLES / "trec-cast-2021"
PAGES = ROOT / "pages"


@pytest.fixture
def data_dir() -> Path:
    return DATA


#: The folders of tests by kind, each a marker: ``-m reference`` runs the comparisons with reference
#: tools.
KINDS = ("unit", "reference", "app", "browser")


#: A parametrized test marked ``few``: its cases in the quick subset, the first ones; the rest run
#: in the full suite (CI). For tests whose every case starts the app: each case checks the same rule
#: on other input.
QUICK_CASES = 2


def pytest_collection_modifyitems(items) -> None:
    """Each test is marked with the kind its folder names (tests/browser/: ``browser``, and so on;
    the browser tests run one after another on one worker while the others share the rest); the
    cases of a
    ``few`` test after the first :data:`QUICK_CASES` are ``slow`` (the quick subset checks the rule
    on a few cases, ``python -m pytest`` on all of them)."""
    cases: dict[object, int] = {}
    for item in items:
        kind = Path(item.fspath).parent.name
        if kind in KINDS:
            item.add_marker(getattr(pytest.mark, kind))
        # one Chromium and one server at a time, on one worker (--dist loadgroup)
        if kind == "browser":
            item.add_marker(pytest.mark.xdist_group("browser"))
        if (
            item.get_closest_marker("few") is not None
            and getattr(item, "callspec", None) is not None
        ):
            cases[item.function] = cases.get(item.function, 0) + 1
            if cases[item.function] > QUICK_CASES:
                item.add_marker(pytest.mark.slow)


# the app's disk store of parsed runs goes to a folder of this test session (servers started by
# the browser tests inherit it), not to the user's ~/.cache
os.environ["RANKVIZ_STORE"] = tempfile.mkdtemp(prefix="rankviz-store-")
# the meeting's records of the sample collections too (never sample_data/*/rankviz-notes.sqlite)
os.environ["RANKVIZ_NOTES"] = tempfile.mkdtemp(prefix="rankviz-notes-")
# no test writes to ~/.ir_datasets, none downloads
os.environ["IR_DATASETS_HOME"] = tempfile.mkdtemp(prefix="rankviz-irds-")


def run_cli(*args: str):
    """``rankviz ARGS`` in this process (a second of imports saved per call): its exit code and what
    it printed, as :func:`subprocess.run` gives them, every warning an error. Tests of a real
    process (the entry point, concurrent writers) start one themselves."""
    import contextlib
    import io
    import subprocess
    import warnings

    from rankviz.cli import main

    out, err = io.StringIO(), io.StringIO()
    # a warning the command would print on stderr (numpy's divide by zero) fails the test
    loud = warnings.catch_warnings()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), loud:
        warnings.simplefilter("error")
        try:
            code = main(list(args))
        except SystemExit as exc:  # argparse refuses its arguments
            code = exc.code if isinstance(exc.code, int) else 2
    return subprocess.CompletedProcess(["rankviz", *args], code, out.getvalue(), err.getvalue())


def pickled_with_texts(value) -> tuple[bytes, list[str]]:
    """``value`` pickled, and every ``str`` object the pickle holds (a pickler that sees each
    object): what a test of ids sent packed, not as a str object each, looks for."""
    import io
    import pickle

    texts: list[str] = []

    class Counting(pickle.Pickler):
        def persistent_id(self, obj):
            if type(obj) is str:
                texts.append(obj)
            return None

    sent = io.BytesIO()
    Counting(sent, protocol=5).dump(value)
    return sent.getvalue(), texts


#: modules a drop-in (``rankviz trec-eval``, ``rankviz ndeval``) never imports: pandas and scipy
#: (0.2 s each to import) and the study behind the other commands
HEAVY = ("pandas", "scipy", "rankviz.study.study", "rankviz.cli.commands")


def heavy_imports(*args: str) -> tuple[int, list[str]]:
    """``rankviz ARGS`` in a fresh process: its exit code and which of :data:`HEAVY` it imported."""
    import json
    import subprocess
    import sys

    script = (
        "import contextlib, io, json, sys\n"
        "from rankviz.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    status = main({list(args)!r})\n"
        f"print(json.dumps([status, [m for m in {HEAVY!r} if m in sys.modules]]))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    status, imported = json.loads(done.stdout)
    return status, imported
