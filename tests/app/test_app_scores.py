"""A collection's per-query scores (``scores.tsv``: here an LLM judge's) in the app, beside the
measures computed from its runs: the Overview, Per-query deltas and Significance pages show the
library's numbers, a changed file is read again, and the score has no chance level."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from apptest import shown, start
from conftest import CRANFIELD, ROOT
from scipy import stats
from streamlit.testing.v1 import AppTest

import rankviz as rv

RUNS = ("bm25", "dense", "rrf")


@pytest.fixture
def judged(tmp_path: Path, monkeypatch) -> Path:
    """Cranfield with three runs and a judge's score of each answer (dense lacks five queries)."""
    folder = tmp_path / "judged"
    (folder / "runs").mkdir(parents=True)
    for name in ("qrels.txt", "queries.tsv"):
        shutil.copy(CRANFIELD / name, folder / name)
    for run in RUNS:
        shutil.copy(CRANFIELD / "runs" / f"{run}.run.gz", folder / "runs" / f"{run}.run.gz")
    _write_scores(folder, seed=1)
    monkeypatch.setattr("sys.argv", ["app.py", "--data", str(folder)])
    return folder


def _write_scores(folder: Path, *, seed: int) -> None:
    rng = np.random.default_rng(seed)
    queries = [str(q) for q in rv.read_qrels(folder / "qrels.txt").query_ids]
    rows = [
        (run, q, "judge", float(rng.random()))
        for run in RUNS
        for q in (queries[5:] if run == "dense" else queries)
    ]
    frame = pd.DataFrame(rows, columns=["run", "query", "measure", "value"])
    frame.to_csv(folder / "scores.tsv", sep="\t", index=False)


def _library(folder: Path) -> rv.Evaluation:
    return rv.Study.open(rv.StudyRequest(folder, list(RUNS), measures=["AP", "judge"])).evaluation()


@pytest.mark.slow
def test_the_overview_shows_the_score_beside_the_measures_as_the_library(judged: Path) -> None:
    at = start(collection="judged", runs=",".join(RUNS), measures="AP,judge")
    assert not at.exception and not at.error
    means = at.dataframe[0].value
    library = _library(judged)
    for run in RUNS:
        for measure in ("AP", "judge"):
            assert means.loc[run, measure] == pytest.approx(library.mean(measure, run), abs=1e-12)
    chance = next(d.value for d in at.dataframe[2:] if "interval" not in d.value.columns)
    assert list(chance.columns) == ["AP"]
    assert any("judge has none" in shown(c) for c in at.caption)
    before = means.loc["bm25", "judge"]
    _write_scores(judged, seed=2)  # the file rewritten: read again, never served stale
    os.utime(judged / "scores.tsv")
    at.run()
    after = at.dataframe[0].value.loc["bm25", "judge"]
    assert after != pytest.approx(before)
    assert after == pytest.approx(_library(judged).mean("judge", "bm25"), abs=1e-12)


@pytest.mark.slow
def test_deltas_and_significance_on_the_score_are_the_librarys(judged: Path) -> None:
    library = _library(judged)
    deltas = start("deltas", collection="judged", baseline="bm25", run="dense", measure="judge")
    assert not deltas.exception and not deltas.error
    paired = library.matrix("judge")[["bm25", "dense"]]
    metrics = {m.label: m.value for m in deltas.metric}
    assert metrics["Mean delta judge"] == f"{(paired['dense'] - paired['bm25']).mean():+.4f}"
    assert not any("chance level" in shown(c) for c in deltas.caption)
    significance = start(
        "significance", collection="judged", runs=",".join(RUNS), measures="judge", baseline="bm25"
    )
    assert not significance.exception and not significance.error
    table = significance.dataframe[0].value
    both = library.matrix("judge", complete=False)[["bm25", "rrf"]].dropna()
    reference = stats.ttest_rel(both["rrf"], both["bm25"])
    assert table.loc["rrf", "p_value"] == pytest.approx(reference.pvalue, rel=1e-12)


@pytest.mark.slow
def test_the_query_view_shows_the_answers_a_score_judges_as_plain_text(judged: Path) -> None:
    """An ``answer`` column: the Per-query deltas page shows both runs' answers to the query in
    view, as written (markup in them shown, never rendered)."""
    frame = pd.read_csv(judged / "scores.tsv", sep="\t", dtype={"query": str})
    frame["answer"] = [f"<b>{r}</b> says *{q}*" for r, q in zip(frame["run"], frame["query"])]
    frame.to_csv(judged / "scores.tsv", sep="\t", index=False)
    view = dict(collection="judged", baseline="bm25", run="dense", measure="judge")
    at = start("deltas", query="30", **view)
    assert not at.exception and not at.error
    texts = [shown(m) for m in at.markdown]
    assert "**Answers** that judge judges" in texts
    assert "**bm25**  \n<b>bm25</b> says *30*" in texts
    assert "**dense**  \n<b>dense</b> says *30*" in texts
    gap = [shown(m) for m in start("deltas", query="3", **view).markdown]  # dense: no score
    assert "**dense**  \n_no answer in the file_" in gap
    nothing = start("deltas", collection="judged", baseline="bm25", run="dense", measure="AP")
    assert not any("Answers" in shown(m) for m in nothing.markdown)


@pytest.mark.slow
def test_the_nugget_sample_shows_nugget_scores_beside_retrieval_on_three_pages() -> None:
    """sample_data/rag-nuggets (generated): the Overview's means of a nugget score and of nDCG@10
    are the library's, the Per-query deltas page's mean delta and the Significance page's t test
    on the nugget score are numpy's and scipy's on the file's values."""
    folder = ROOT / "sample_data" / "rag-nuggets"
    written = pd.read_csv(folder / "scores.tsv", sep="\t", dtype={"query": str})
    vital = written[written["measure"] == "vital_strict"].pivot(
        index="query", columns="run", values="value"
    )
    overview = start(collection="rag-nuggets", measures="nDCG@10,vital_strict")
    assert not overview.exception and not overview.error
    means = overview.dataframe[0].value
    library = rv.Study.open(rv.StudyRequest(folder, measures=["nDCG@10"])).evaluation()
    for run in vital.columns:
        assert means.loc[run, "vital_strict"] == pytest.approx(vital[run].mean(), abs=1e-12)
        assert means.loc[run, "nDCG@10"] == pytest.approx(library.mean("nDCG@10", run), abs=1e-12)
    deltas = start(
        "deltas",
        collection="rag-nuggets",
        baseline="bm25-gpt",
        run="hybrid-rerank-gpt",
        measure="vital_strict",
    )
    assert not deltas.exception and not deltas.error
    delta = (vital["hybrid-rerank-gpt"] - vital["bm25-gpt"]).mean()
    labels = {m.label.replace("\\", ""): m.value for m in deltas.metric}  # markdown-escaped
    assert labels["Mean delta vital_strict"] == f"{delta:+.4f}"
    significance = start(
        "significance",
        collection="rag-nuggets",
        measures="vital_strict",
        baseline="bm25-gpt",
        test="t",
    )
    assert not significance.exception and not significance.error
    table = significance.dataframe[0].value
    reference = stats.ttest_rel(vital["hybrid-rerank-gpt"], vital["bm25-gpt"])
    assert table.loc["hybrid-rerank-gpt", "p_value"] == pytest.approx(reference.pvalue, rel=1e-12)


def test_an_uploaded_scores_file_stands_beside_the_measures(tmp_path: Path) -> None:
    """Per-query scores uploaded in the session (as the sidebar's uploader keeps them) join the
    collection's measures: the Overview's mean of the score is numpy's on the file's values, and a
    bad file is one line naming it by its own name (not where it was saved to be read)."""
    queries = [str(q) for q in rv.read_qrels(CRANFIELD / "qrels.txt").query_ids]
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(
        [(run, q, "judge", float(rng.random())) for run in RUNS for q in queries],
        columns=["run", "query", "measure", "value"],
    )
    data = frame.to_csv(sep="\t", index=False).encode()
    at = AppTest.from_string(
        "from rankviz.app.frame.pages import navigate\nnavigate(default='overview')\n",
        default_timeout=120,
    )
    at.session_state["rankviz.uploads"] = {
        "runs": {},
        "qrels": None,
        "scores": {"upload:judge": ("judge.tsv", data), "upload:bad": ("bad.tsv", b"run\tquery\n")},
    }
    for key, value in dict(
        collection="cranfield", runs=",".join(RUNS), measures="AP,judge"
    ).items():
        at.query_params[key] = value
    at.run()
    assert not at.exception
    assert any("Added the scores judge from judge.tsv" in shown(s) for s in at.success)
    assert [shown(e) for e in at.error] == [
        "Scores not loaded: bad.tsv, line 1: names no measure column, and no measure and value"
    ]
    means = at.dataframe[0].value
    for run in RUNS:
        assert means.loc[run, "judge"] == pytest.approx(
            frame[frame["run"] == run]["value"].mean(), abs=1e-12
        )
