"""trec_eval's preference measures beside the others: with preferences (``--preferences``, a
collection's ``prefs.txt``), the ``prefs_*`` families are measures of evaluate, compare and the app,
per query equal to trec_eval 10 built with ``%.17g`` (tests/data/trec-eval-generated: ``-R prefs``)
on the same order of each ranking. (trec_eval's ``-M`` with preferences keeps each ranking's first
documents ties by docno ascending; a study's ``--depth`` under ``ties=run`` keeps the first in the
run's own order, so on a run ranked so it keeps trec_eval's: case ``prefs-M``.)"""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest
from conftest import ROOT, run_cli

import rankviz as rv
from rankviz.measures.preferences import OFFERED

GENERATED = ROOT / "tests" / "data" / "trec-eval-generated"
#: trec_eval's arguments of each case beside -R prefs, as the study's options
CASES = {"prefs": {}, "prefs-M": {"depth": 7}}


@pytest.fixture(scope="module")
def ranked(tmp_path_factory) -> Path:
    """The generated run with its rank column in the order trec_eval's preference measures read
    a ranking (score descending, then docno ascending), for ``ties="run"``."""
    run = pd.read_csv(GENERATED / "run.txt", sep=r"\s+", header=None, dtype=str)
    run["score"], run["bytes"] = run[4].astype(float), run[2].map(str.encode)
    run = run.sort_values([0, "score", "bytes"], ascending=[True, False, True])
    run[3] = run.groupby(0).cumcount() + 1
    path = tmp_path_factory.mktemp("prefs") / "run.txt"
    run[[0, 1, 2, 3, 4, 5]].to_csv(path, sep=" ", header=False, index=False)
    return path


@pytest.mark.parametrize("case", list(CASES))
def test_every_query_is_trec_evals_to_17_digits(case: str, ranked: Path) -> None:
    study = rv.Study.open(
        rv.StudyRequest(
            str(GENERATED / "qrels.txt"),
            [str(ranked)],
            measures=list(OFFERED),
            preferences=str(GENERATED / "prefs.txt"),
            options={"missing": "zero", "ties": "run", **CASES[case]},
        )
    )
    evaluation = study.evaluation()
    lines = (GENERATED / f"{case}.out").read_text().splitlines()
    printed = [[part.strip() for part in line.split("\t")] for line in lines]
    checked = [(n, q, v) for n, q, v in printed if n.startswith("prefs") and q != "all"]
    for name, qid, value in checked:
        assert evaluation.per_query(name, "run")[qid] == float(value), (name, qid)
    assert len(checked) == 14 * 11  # every query with preferences (all but q5), the missed q9 too


def test_the_tie_policy_orders_them(ranked: Path) -> None:
    """trec_eval's own order (ties by docno descending) is not the preference measures' (ascending):
    a study under ties=trec_eval gives other values on the generated run's ties."""

    def values(ties: str) -> pd.Series:
        study = rv.Study.open(
            rv.StudyRequest(
                str(GENERATED / "qrels.txt"),
                [str(ranked)],
                measures=["prefs_simp_ret"],
                preferences=str(GENERATED / "prefs.txt"),
                options={"ties": ties},
            )
        )
        return study.evaluation().per_query("prefs_simp_ret", "run")

    assert not values("run").equals(values("trec_eval"))


@pytest.mark.slow
def test_a_measure_without_its_preferences_is_refused_in_one_line() -> None:
    done = run_cli(
        "evaluate", str(GENERATED / "qrels.txt"), str(GENERATED / "run.txt"), "-m", "prefs_pair",
    )  # fmt: skip
    assert done.returncode == 2 and done.stdout == ""
    assert "prefs_pair needs preference judgments (qid group subgroup docno level" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


@pytest.mark.slow
def test_a_collection_keeps_them_as_prefs_txt(tmp_path: Path, ranked: Path) -> None:
    """The mean over the queries of the qrels, here those with preferences (trec_eval's; q5 has
    none, and a query of the qrels without preferences would score 0)."""
    (tmp_path / "runs").mkdir()
    lines = (GENERATED / "qrels.txt").read_text().splitlines(keepends=True)
    (tmp_path / "qrels.txt").write_text("".join(x for x in lines if not x.startswith("q5 ")))
    shutil.copy(GENERATED / "prefs.txt", tmp_path / "prefs.txt")
    shutil.copy(ranked, tmp_path / "runs" / "run.txt")
    done = run_cli(
        "evaluate", str(tmp_path), "-m", "prefs_avgjg", "--ties", "run", "--format", "tsv",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    row = pd.read_csv(pd.io.common.StringIO(done.stdout), sep="\t", comment="#").iloc[0]
    summary = [line.split("\t") for line in (GENERATED / "prefs.out").read_text().splitlines()]
    expected = next(float(v) for n, q, v in summary if n.strip() == "prefs_avgjg" and q == "all")
    assert row["measure"] == "prefs_avgjg" and row["value"] == pytest.approx(expected, abs=1e-15)


@pytest.mark.slow
def test_the_app_offers_them_and_shows_the_librarys_means(
    tmp_path: Path, ranked: Path, monkeypatch
) -> None:
    from apptest import start

    (tmp_path / "runs").mkdir()
    shutil.copy(GENERATED / "qrels.txt", tmp_path / "qrels.txt")
    shutil.copy(GENERATED / "prefs.txt", tmp_path / "prefs.txt")
    shutil.copy(ranked, tmp_path / "runs" / "a.run")
    shutil.copy(GENERATED / "run.txt", tmp_path / "runs" / "b.run")
    monkeypatch.setattr("sys.argv", ["app.py", "--data", str(tmp_path)])
    shown = ["AP", "prefs_simp", "prefs_avgjg_Rnonrel"]
    at = start(collection=tmp_path.name, runs="a,b", measures=",".join(shown))
    assert not at.exception and not at.error
    means = at.dataframe[0].value
    assert list(means.columns) == shown
    library = rv.Study.open(rv.StudyRequest(tmp_path, measures=shown)).evaluation()
    for run in ("a", "b"):
        for measure in shown:
            assert means.loc[run, measure] == pytest.approx(library.mean(measure, run), abs=1e-12)
    assert set(OFFERED) <= set(at.sidebar.multiselect[1].options)


def test_qrels_read_as_preferences_keep_trec_evals_levels_below_0() -> None:
    """``rankviz trec-eval -R qrels_prefs`` on qrels with grades -2 and -1 (TREC Web's spam) gave
    other numbers than trec_eval on 586 of 716 lines, silently: it left those documents out, where
    trec_eval reads them as levels below 0 (not relevant). Now every line is trec_eval's
    (tests/data/trec-eval-generated/qrels-prefs-below-0.out) but where trec_eval's own value is
    undefined (its prefs_avgjg_Rnonrel recount reads past a level's end), which one line on
    stderr names."""
    done = run_cli(
        "trec-eval", "-q", "-c", "-R", "qrels_prefs", "-m", "all_prefs",
        str(GENERATED / "qrels.txt"), str(GENERATED / "run.txt"),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    expected = (GENERATED / "qrels-prefs-below-0.out").read_text().splitlines()
    printed = done.stdout.splitlines()
    assert len(printed) == len(expected)
    differ = [(e.split()[0], e.split()[1]) for e, p in zip(expected, printed) if e != p]
    (line,) = done.stderr.splitlines()
    assert line.startswith("rankviz trec-eval: prefs_avgjg_Rnonrel: trec_eval 10's value of ")
    named = int(line.split("value of ")[1].split()[0])
    assert {name for name, _ in differ} == {"prefs_avgjg_Rnonrel"}
    assert len([q for _, q in differ if q != "all"]) == named > 0
