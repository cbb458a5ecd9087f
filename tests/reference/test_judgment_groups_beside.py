"""trec_eval's judgment-group measures beside the others: with judgment groups
(``--judgment-groups``, a collection's ``qrels_jg.txt``), ``map_avgjg``, ``P_avgjg_K`` and
``Rprec_mult_avgjg_M`` are measures of evaluate, compare and the app, per query equal to trec_eval
10 built with ``%.17g`` (tests/data/trec-eval-generated: ``-R qrels_jg``, with ``-l2 -M7`` too),
their paired t tests scipy's."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest
from conftest import ROOT, run_cli
from scipy import stats

import rankviz as rv

GENERATED = ROOT / "tests" / "data" / "trec-eval-generated"
#: trec_eval's arguments of each case beside -R qrels_jg, as the study's options
CASES = {"groups": {}, "groups-l2-M": {"rel": 2, "depth": 7}}


def _printed(case: str) -> list[tuple[str, str, str]]:
    lines = (GENERATED / f"{case}.out").read_text().splitlines()
    rows = [tuple(part.strip() for part in line.split("\t")) for line in lines]
    return [r for r in rows if "avgjg" in r[0] and r[1] != "all"]  # type: ignore[misc]


@pytest.mark.parametrize("case", list(CASES))
def test_every_query_is_trec_evals_to_17_digits(case: str) -> None:
    printed = _printed(case)
    names = list(dict.fromkeys(name for name, _, _ in printed))
    study = rv.Study.open(
        rv.StudyRequest(
            str(GENERATED / "qrels.txt"),
            [str(GENERATED / "run.txt")],
            measures=names,
            judgment_groups=str(GENERATED / "qrels_jg.txt"),
            options={"missing": "zero", **CASES[case]},
        )
    )
    # trec_eval's names, and at -l2 the families' with rel=2 (as AP(rel=2) is AP's)
    shown = {n: str(rv.parse(n, defaults={"rel": CASES[case].get("rel", 1)})) for n in names}
    assert [str(m) for m in study.measures] == list(shown.values())
    assert (shown == {n: n for n in names}) == ("rel" not in CASES[case])
    evaluation = study.evaluation()
    for name, qid, value in printed:
        assert evaluation.per_query(shown[name], "run")[qid] == float(value), (name, qid)
    assert len(printed) >= 5 * 12


@pytest.mark.slow
def test_trec_evals_spellings_read_as_the_printed_names(tmp_path: Path) -> None:
    done = run_cli(
        "evaluate", str(GENERATED / "qrels.txt"), str(GENERATED / "run.txt"),
        "--judgment-groups", str(GENERATED / "qrels_jg.txt"),
        "-m", "map_avgjg", "-m", "P_avgjg.3", "-m", "Rprec_mult_avgjg_0.5", "--format", "tsv",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    table = pd.read_csv(pd.io.common.StringIO(done.stdout), sep="\t", comment="#")
    assert list(table.measure) == ["map_avgjg", "P_avgjg_3", "Rprec_mult_avgjg_0.50"]
    summary = {
        r[0].strip(): float(r[2])
        for r in (line.split("\t") for line in (GENERATED / "groups.out").read_text().splitlines())
        if r[1].strip() == "all" and "avgjg" in r[0]
    }
    for row in table.itertuples():
        assert row.qid == "all" and row.value == summary[row.measure]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("arguments", "says"),
    [
        ([], "map_avgjg needs judgment groups (qid group docno rel"),
        (["--judgment-groups", "QRELS_JG", "-m", "P_avgjg.0"], "the cutoff must be at least 1"),
    ],
)
def test_a_measure_without_its_groups_or_parameter_is_refused_in_one_line(
    arguments: list[str], says: str
) -> None:
    arguments = [a.replace("QRELS_JG", str(GENERATED / "qrels_jg.txt")) for a in arguments]
    done = run_cli(
        "evaluate", str(GENERATED / "qrels.txt"), str(GENERATED / "run.txt"), "-m", "map_avgjg",
        *arguments,
    )  # fmt: skip
    assert done.returncode == 2 and done.stdout == ""
    assert says in done.stderr and len(done.stderr.strip().splitlines()) == 1


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    """A collection keeping its judgment groups as qrels_jg.txt, with the run and a second one
    that ranks each query's documents the other way round."""
    root = tmp_path_factory.mktemp("groups")
    (root / "runs").mkdir()
    shutil.copy(GENERATED / "qrels.txt", root / "qrels.txt")
    shutil.copy(GENERATED / "qrels_jg.txt", root / "qrels_jg.txt")
    shutil.copy(GENERATED / "run.txt", root / "runs" / "a.run")
    run = pd.read_csv(GENERATED / "run.txt", sep=r"\s+", header=None, dtype=str)
    run[4] = (-run[4].astype(float)).map(repr)
    run.to_csv(root / "runs" / "b.run", sep=" ", header=False, index=False)
    return root


@pytest.mark.slow
def test_compare_is_scipys_paired_t_test_on_the_queries(folder: Path) -> None:
    done = run_cli(
        "compare", str(folder), "-m", "map_avgjg", "--baseline", "a", "--test", "t",
        "--format", "tsv",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    row = pd.read_csv(pd.io.common.StringIO(done.stdout), sep="\t", comment="#").iloc[0]
    matrix = (
        rv.Study.open(rv.StudyRequest(folder, measures=["map_avgjg"]))
        .evaluation()
        .matrix("map_avgjg")
    )
    reference = stats.ttest_rel(matrix["b"], matrix["a"])
    assert row["p_value"] == pytest.approx(reference.pvalue, rel=1e-12)


@pytest.mark.slow
def test_the_app_offers_them_and_shows_the_librarys_means(folder: Path, monkeypatch) -> None:
    from apptest import start

    monkeypatch.setattr("sys.argv", ["app.py", "--data", str(folder)])
    at = start(collection=folder.name, runs="a,b", measures="AP,map_avgjg,P_avgjg.10")
    assert not at.exception and not at.error
    means = at.dataframe[0].value
    shown = ["AP", "map_avgjg", "P_avgjg_10"]
    assert list(means.columns) == shown
    library = rv.Study.open(rv.StudyRequest(folder, measures=shown)).evaluation()
    for run in ("a", "b"):
        for measure in shown:
            assert means.loc[run, measure] == pytest.approx(library.mean(measure, run), abs=1e-12)
    offered = at.sidebar.multiselect[1].options
    assert "Rprec_mult_avgjg_0.60" in offered and "P_avgjg_1000" in offered
    assert "P_avgjg.10" not in offered  # the link's spelling, shown as printed
