"""A run file's comment lines at its top (an ``ir_metadata`` block) are the study's run headers and
the Overview shows them beside the run's name, as text (markup in them never rendered)."""

from __future__ import annotations

import gzip
import re
import shutil
from pathlib import Path

import pytest
from apptest import start
from conftest import CRANFIELD

import rankviz as rv
from rankviz.study import RUN_HEADERS

HEADER = [
    "ir_metadata.start",
    "platform:",
    "  software: <b>anserini</b> 1.0",
    "ir_metadata.end",
]


@pytest.mark.slow
def test_the_header_is_read_and_shown_as_text(tmp_path: Path, monkeypatch) -> None:
    folder = tmp_path / "headed"
    (folder / "runs").mkdir(parents=True)
    shutil.copy(CRANFIELD / "qrels.txt", folder / "qrels.txt")
    body = gzip.decompress((CRANFIELD / "runs" / "bm25.run.gz").read_bytes())
    header = "".join(f"# {line}\n" for line in HEADER).encode()
    (folder / "runs" / "bm25.run").write_bytes(header + body)
    shutil.copy(CRANFIELD / "runs" / "dense.run.gz", folder / "runs" / "dense.run.gz")
    study = rv.Study.open(rv.StudyRequest(folder))
    assert study.ask(RUN_HEADERS) == {"bm25": tuple(HEADER)}
    # the comments change no number
    plain = rv.Study.open(rv.StudyRequest(CRANFIELD, ["bm25"])).evaluation().mean("AP", "bm25")
    assert study.evaluation().mean("AP", "bm25") == plain
    monkeypatch.setattr("sys.argv", ["app.py", "--data", str(folder)])
    at = start(collection="headed")
    assert not at.exception and not at.error
    codes = [c.value for c in at.get("code")]
    assert "\n".join(HEADER) in codes
    labels = [re.sub(r"\\(.)", r"\1", e.label) for e in at.expander]
    assert any("bm25: 4 comment lines" in label for label in labels), labels
