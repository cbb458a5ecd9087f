"""A collection folder of per-query scores alone, and what a collection or the command line says of
its scores (#41): the folder opens as the files' values (numpy's means, scipy's t test), its
``[scores]`` sets which read better lower and each one's range, and a value outside its range is one
line naming the file and the line, on every path in."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
from conftest import CRANFIELD, ROOT, run_cli
from scipy import stats

import rankviz as rv
from rankviz.errors import CollectionError, FormatError, OptionError
from rankviz.study import COMPARE

NUGGETS = ROOT / "sample_data" / "rag-nuggets"


def _folder(tmp_path: Path, toml: str = "") -> Path:
    folder = tmp_path / "scores-alone"
    folder.mkdir()
    shutil.copy(NUGGETS / "scores.tsv", folder / "scores.tsv")
    shutil.copy(NUGGETS / "queries.tsv", folder / "queries.tsv")
    if toml:
        (folder / "collection.toml").write_text(toml, encoding="utf-8")
    return folder


def _matrix(measure: str) -> pd.DataFrame:
    frame = pd.read_csv(NUGGETS / "scores.tsv", sep="\t", dtype={"query": str})
    return frame[frame["measure"] == measure].pivot(index="query", columns="run", values="value")


def test_a_folder_of_scores_alone_is_a_study_of_its_values(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    collection = rv.open_collection(folder)
    assert collection.scores_only and collection.qrels_path is None and not collection.run_paths
    study = rv.Study.open(rv.StudyRequest(folder))
    assert not study.ranked
    assert study.collection is not None and study.collection.scores_only
    assert study.run_names == ["bm25-gpt", "dense-gpt", "hybrid-rerank-gpt"]
    vital = _matrix("vital")
    means = study.evaluation().means()
    for run in vital.columns:
        assert means.loc[run, "vital"] == pytest.approx(vital[run].mean(), abs=1e-12)
    done = run_cli("compare", str(folder), "-m", "vital", "--test", "t", "--format", "json")
    assert done.returncode == 0, done.stderr
    rows = {r["run"]: r for r in json.loads(done.stdout)}
    baseline = vital.columns[0]
    for run in vital.columns[1:]:
        reference = stats.ttest_rel(vital[run], vital[baseline])
        assert rows[run]["p_value"] == pytest.approx(reference.pvalue, rel=1e-12)
        assert rows[run]["n"] == len(vital)


@pytest.mark.parametrize("command", [["ties"], ["unjudged"], ["check"]])
def test_a_folder_of_scores_refuses_what_needs_rankings_in_one_line(
    tmp_path: Path, command: list[str]
) -> None:
    done = run_cli(*command, str(_folder(tmp_path)))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "needs the runs' rankings" in done.stderr


def test_qrels_given_for_a_folder_of_scores_are_refused_in_one_line(tmp_path: Path) -> None:
    """A folder of scores alone has no qrels for judgments to stand in for: qrels read already,
    given with it as their collection, are refused naming the folder."""
    folder = _folder(tmp_path)
    qrels = rv.read_qrels(ROOT / "sample_data" / "cranfield" / "qrels.txt")
    collection = rv.open_collection(folder)
    with pytest.raises(OptionError, match="holds per-query scores only"):
        rv.Study.open(rv.StudyRequest(qrels, {}, collection=collection))


def test_a_declared_range_refuses_a_value_outside_with_its_line(tmp_path: Path) -> None:
    """``vital`` is in [0, 1] in the file; declared [0, 0.5], the first value above is named by its
    file and line, from the collection's [scores.range], from --score-range, and from the API."""
    frame = pd.read_csv(NUGGETS / "scores.tsv", sep="\t", dtype={"query": str})
    above = frame.index[(frame["measure"] == "vital") & (frame["value"] > 0.5)][0]
    line = int(above) + 2  # the header is line 1
    folder = _folder(tmp_path, "[scores.range]\nvital = [0, 0.5]\n")
    with pytest.raises(FormatError) as raised:
        rv.Study.open(rv.StudyRequest(folder))
    assert f"scores.tsv, line {line}: vital of run" in str(raised.value)
    assert "outside its range [0, 0.5]" in str(raised.value)
    done = run_cli("evaluate", str(NUGGETS / "scores.tsv"), "--score-range", "vital=0:0.5")
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert f"scores.tsv, line {line}:" in done.stderr
    with pytest.raises(FormatError, match=f"line {line}:"):
        rv.Evaluation.from_scores(NUGGETS / "scores.tsv", ranges={"vital": (0, 0.5)})
    # in its range: the same values, and the range said where the conventions are
    fits = rv.Evaluation.from_scores(NUGGETS / "scores.tsv", ranges={"vital": (0, 1)})
    assert "vital: in [0, 1]" in fits.conventions()


def test_a_range_beside_runs_checks_the_collections_scores(tmp_path: Path) -> None:
    folder = tmp_path / "judged"
    shutil.copytree(NUGGETS, folder, ignore=shutil.ignore_patterns("*.sqlite"))
    with open(folder / "collection.toml", "a", encoding="utf-8") as toml:
        toml.write('\n[scores]\nlower_is_better = ["weighted"]\n[scores.range]\nall = [0, 0.25]\n')
    with pytest.raises(FormatError, match="outside its range"):
        rv.Study.open(rv.StudyRequest(folder, measures=["nDCG@10"]))
    with open(folder / "collection.toml", "a", encoding="utf-8") as toml:
        toml.write("vital = [0, 1]\n")
    text = (folder / "collection.toml").read_text().replace("all = [0, 0.25]\n", "")
    (folder / "collection.toml").write_text(text)
    study = rv.Study.open(rv.StudyRequest(folder, measures=["nDCG@10", "weighted", "vital"]))
    scores = {str(m): m for m in study.measures}
    assert scores["weighted"].lower_is_better and not scores["vital"].lower_is_better
    assert scores["vital"].bounds == (0.0, 1.0)
    footer = study.evaluation().conventions()
    assert any(line.startswith("weighted (lower is better): a per-query score") for line in footer)


def test_lower_is_better_in_the_collection_turns_the_verdict(tmp_path: Path) -> None:
    """The same values: the run ahead on ``weighted`` is ``better`` by default and ``worse`` once
    the collection says less is better."""
    tests = rv.TestSettings(test="t", baseline="bm25-gpt")
    plain = rv.Study.open(rv.StudyRequest(_folder(tmp_path), measures=["weighted"]))
    assert plain.ask(COMPARE, tests).verdicts()[-1] == "better"
    (tmp_path / "scores-alone" / "collection.toml").write_text(
        '[scores]\nlower_is_better = ["weighted"]\n', encoding="utf-8"
    )
    turned = rv.Study.open(rv.StudyRequest(tmp_path / "scores-alone", measures=["weighted"]))
    assert turned.ask(COMPARE, tests).verdicts()[-1] == "worse"


@pytest.mark.parametrize(
    ("toml", "said"),
    [
        ("[scores]\nlower = 1\n", "[scores] takes lower_is_better"),
        ('[scores]\nlower_is_better = "x"\n', "must be a list of names"),
        ("[scores.range]\nvital = [1, 0]\n", "LOW <= HIGH"),
        ('[scores.range]\nvital = ["a", 1]\n', "two finite numbers"),
    ],
)
def test_a_bad_scores_table_is_one_line(tmp_path: Path, toml: str, said: str) -> None:
    with pytest.raises(CollectionError, match="collection.toml: ") as raised:
        rv.open_collection(_folder(tmp_path, toml))
    assert said in str(raised.value) and "\n" not in str(raised.value)


def test_a_bad_score_range_flag_is_one_line() -> None:
    done = run_cli("evaluate", str(NUGGETS / "scores.tsv"), "--score-range", "vital=0")
    assert done.returncode == 2 and "NAME=LOW:HIGH" in done.stderr


def test_a_folder_with_runs_but_no_qrels_is_still_refused(tmp_path: Path) -> None:
    folder = tmp_path / "no-qrels"
    (folder / "runs").mkdir(parents=True)
    shutil.copy(CRANFIELD / "runs" / "bm25.run.gz", folder / "runs" / "bm25.run.gz")
    shutil.copy(NUGGETS / "scores.tsv", folder / "scores.tsv")
    with pytest.raises(CollectionError, match="no judgments"):
        rv.open_collection(folder)


def test_summary_pools_folders_of_scores_alone(tmp_path: Path) -> None:
    """Two folders of scores (the second's values shifted for one run): each collection's delta is
    numpy's mean of the per-query differences with scipy's t interval, and the pooled delta of two
    equal-variance collections lies between them."""
    first = _folder(tmp_path)
    second = tmp_path / "second"
    second.mkdir()
    frame = pd.read_csv(NUGGETS / "scores.tsv", sep="\t", dtype={"query": str})
    shifted = (frame["run"] == "dense-gpt") & (frame["measure"] == "vital")
    frame.loc[shifted, "value"] = (frame.loc[shifted, "value"] - 0.05).clip(lower=0)
    frame.to_csv(second / "scores.tsv", sep="\t", index=False)
    done = run_cli(
        "summary", str(first), str(second), "--baseline", "bm25-gpt", "-m", "vital",
        "--runs", "dense-gpt", "--format", "json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = {row["collection"]: row for row in json.loads(done.stdout)["collections"]}
    original = pd.read_csv(NUGGETS / "scores.tsv", sep="\t", dtype={"query": str})
    for folder, written in ((first, original), (second, frame)):
        part = written[written["measure"] == "vital"]
        values = part.pivot(index="query", columns="run", values="value")
        differences = values["dense-gpt"] - values["bm25-gpt"]
        row = rows[folder.name]
        assert row["delta"] == pytest.approx(differences.mean(), abs=1e-12)
        half = stats.t.ppf(0.975, len(differences) - 1) * differences.std(ddof=1)
        half /= len(differences) ** 0.5
        assert row["ci_high"] - row["delta"] == pytest.approx(half, rel=1e-9)
    pooled = json.loads(done.stdout)["pooled"][0]
    low, high = sorted(r["delta"] for r in rows.values())
    assert low < pooled["delta"] < high
