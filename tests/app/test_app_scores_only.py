"""A collection folder of per-query scores alone (``scores.tsv`` and ``queries.tsv``, no runs, no
qrels) in the app: the Overview, Per-query deltas and Significance pages show numpy's and scipy's
numbers on the file's values, the answers as plain text, and the pages that read rankings say so
in one line."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from apptest import figure, shown, start
from conftest import ROOT
from scipy import stats

from rankviz import MetricSettings, Study, StudyRequest
from rankviz.study import VALUES_EVIDENCE

NUGGETS = ROOT / "sample_data" / "rag-nuggets"
RUNS = ("bm25-gpt", "dense-gpt", "hybrid-rerank-gpt")


@pytest.fixture
def alone(tmp_path: Path, monkeypatch) -> Path:
    """The nugget sample's scores and queries, without its runs and qrels; ``hybrid-rerank-gpt``
    lacks its first four queries (scored 0 by default)."""
    folder = tmp_path / "alone"
    folder.mkdir()
    shutil.copy(NUGGETS / "queries.tsv", folder / "queries.tsv")
    frame = _written()
    first = sorted(frame["query"].unique())[:4]
    gap = (frame["run"] == RUNS[2]) & frame["query"].isin(first)
    frame[~gap].to_csv(folder / "scores.tsv", sep="\t", index=False)
    (folder / "collection.toml").write_text(
        'name = "alone"\n[scores.range]\nvital = [0, 1]\n', encoding="utf-8"
    )
    monkeypatch.setattr("sys.argv", ["app.py", "--data", str(folder)])
    return folder


def _written() -> pd.DataFrame:
    return pd.read_csv(NUGGETS / "scores.tsv", sep="\t", dtype={"query": str})


def _matrix(folder: Path, measure: str) -> pd.DataFrame:
    """Queries x runs of the file's values, a query one run lacks scored 0 (``missing=zero``)."""
    frame = pd.read_csv(folder / "scores.tsv", sep="\t", dtype={"query": str})
    part = frame[frame["measure"] == measure]
    return part.pivot(index="query", columns="run", values="value").fillna(0.0)


@pytest.mark.slow
def test_the_overview_of_scores_alone_gives_numpys_means(alone: Path) -> None:
    at = start(collection="alone")
    assert not at.exception and not at.error
    means = at.dataframe[0].value
    assert list(means.columns) == list(_written()["measure"].unique())
    for measure in means.columns:
        values = _matrix(alone, measure)
        for run in RUNS:
            assert means.loc[run, measure] == pytest.approx(values[run].mean(), abs=1e-12)
    captions = [shown(c) for c in at.caption]
    assert any("no chance level" in c for c in captions)
    lines = [shown(m) for m in at.markdown]
    assert any("vital: in [0, 1]" in line for line in lines)  # the declared range, said
    assert any("has no score for 4 of 30 queries" in line for line in lines)


def test_deltas_of_scores_alone_show_the_values_and_the_answers_as_text(alone: Path) -> None:
    values = _matrix(alone, "vital")
    at = start(
        "deltas",
        collection="alone",
        baseline=RUNS[0],
        run=RUNS[2],
        measure="vital",
        query="2024-010",
    )
    assert not at.exception and not at.error
    metrics = {m.label.replace("\\", ""): m.value for m in at.metric}
    assert metrics["Mean delta vital"] == f"{(values[RUNS[2]] - values[RUNS[0]]).mean():+.4f}"
    wins = int((values[RUNS[2]] > values[RUNS[0]]).sum())
    assert metrics["Wins"] == str(wins)
    queue = at.dataframe[0].value
    losses = (values[RUNS[2]] - values[RUNS[0]]).sort_values(kind="stable")
    assert queue.index[0] == losses.index[0]  # the largest loss first
    written = _written().set_index(["run", "query", "measure"])["answer"]
    texts = [shown(m) for m in at.markdown]
    for run in (RUNS[0], RUNS[2]):
        assert f"**{run}**  \n{written[(run, '2024-010', 'vital')]}" in texts
    assert not any("rank-biased" in t for t in texts)


def test_significance_of_scores_alone_is_scipys_t_test(alone: Path) -> None:
    at = start(
        "significance", collection="alone", runs=",".join(RUNS), measures="all", baseline=RUNS[0]
    )
    assert not at.exception and not at.error
    table = at.dataframe[0].value
    values = _matrix(alone, "all")
    for run in RUNS[1:]:
        reference = stats.ttest_rel(values[run], values[RUNS[0]])
        assert table.loc[run, "p_value"] == pytest.approx(reference.pvalue, rel=1e-12)


def test_metric_choice_of_scores_alone_gives_the_values_evidence(alone: Path) -> None:
    """Kendall's tau between two scores' orderings of the runs is scipy's on the file's means;
    the discriminative power is the library's values evidence (seed 0, as the page says)."""
    at = start("metric_choice", collection="alone", measures="vital,all_strict")
    assert not at.exception and not at.error
    heat = figure(at, 0)["data"][0]
    means = {m: _matrix(alone, m).mean() for m in ("vital", "all_strict")}
    tau = stats.kendalltau(means["vital"], means["all_strict"]).statistic
    assert heat["z"][0][1] == pytest.approx(tau, abs=1e-12)
    study = Study.open(StudyRequest(alone, measures=["vital", "all_strict"]))
    power = study.ask(VALUES_EVIDENCE, MetricSettings(test="tukey", seed=0)).power
    shown_power = at.dataframe[0].value
    assert shown_power["power"].to_dict() == pytest.approx(power["power"].to_dict(), abs=0)
    assert any("no task questions" in shown(c) for c in at.caption)


@pytest.mark.parametrize("page", ["histograms", "ties", "unjudged", "judgments"])
def test_a_page_that_reads_rankings_says_so_in_one_line(alone: Path, page: str) -> None:
    at = start(page, collection="alone")
    assert not at.exception and not at.error
    said = [shown(i) for i in at.info]
    assert len(said) == 1 and "holds per-query scores only" in said[0]


def test_a_value_outside_its_declared_range_is_one_error_naming_its_line(alone: Path) -> None:
    (alone / "collection.toml").write_text("[scores.range]\nvital = [0, 0.5]\n", encoding="utf-8")
    at = start(collection="alone")
    assert not at.exception
    (said,) = [shown(e) for e in at.error]
    assert (
        "alone/scores.tsv, line 5: vital of run 'bm25-gpt'" in said
        and "outside its range [0, 0.5]" in said
    )


def test_skip_leaves_a_missing_query_out_of_the_mean(alone: Path) -> None:
    at = start(collection="alone", missing="skip", measures="vital")
    assert not at.exception and not at.error
    frame = pd.read_csv(alone / "scores.tsv", sep="\t", dtype={"query": str})
    part = frame[(frame["measure"] == "vital") & (frame["run"] == RUNS[2])]
    assert at.dataframe[0].value.loc[RUNS[2], "vital"] == pytest.approx(
        np.mean(part["value"]), abs=1e-12
    )


def test_a_cost_with_gaps_and_no_range_is_refused_on_the_page(alone: Path) -> None:
    """A lower-is-better score without a range whose run lacks queries: the page says why and how
    on (never a mean that scores the gaps 0, the best a cost could have), without a traceback."""
    (alone / "collection.toml").write_text(
        'name = "alone"\n[scores]\nlower_is_better = ["vital"]\n', encoding="utf-8"
    )
    at = start(collection="alone", measures="vital")
    assert not at.exception
    said = " ".join(e.value for e in at.error).replace("\\", "")  # markdown's escapes
    assert "vital: lower is better and no worst value is known" in said
    assert "hybrid-rerank-gpt" in said and "'Queries missing from a run: skip'" in said
    assert "[scores.range]" in said and "--missing" not in said  # the page's ways, not the flags


def test_the_conventions_line_names_the_files_without_the_servers_path(alone: Path) -> None:
    """The scores-only conventions line printed the server's absolute path to scores.tsv."""
    at = start(collection="alone")
    captions = [c.value.replace("\\", "") for c in at.caption]  # markdown's escapes
    (line,) = [c for c in captions if "per-query scores read from" in c]
    assert "read from alone/scores.tsv" in line and str(alone.parent) not in line
