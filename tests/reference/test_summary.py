"""A summary across collections: each collection's paired delta against scipy's paired t interval,
the pooled random-effects delta, tau2 and I2 against statsmodels' DerSimonian-Laird, the JSON, the
names file, the ranks, and the CI gate on the pooled deltas."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import ROOT
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy import stats
from statsmodels.stats.meta_analysis import combine_effects

import rankviz as rv
from rankviz.analyses.summary import dersimonian_laird
from rankviz.cli import main
from rankviz.study.studies import summarise

SAMPLES = ROOT / "sample_data"
NAMES = (
    "cranfield\tdense\texpansion\ndl-hard-passage\tbm25_rm3\texpansion\ncranfield\trrf\treranked\n"
    "dl-hard-passage\tbm25_t5-zs\treranked\ntrec-cast-2021\torg_manual_bm25\tbm25\n"
    "trec-cast-2021\torg_manual_ance\texpansion\ntrec-cast-2021\torg_manual_ance_bert\treranked\n"
)
FOLDERS = [SAMPLES / "cranfield", SAMPLES / "dl-hard-passage", SAMPLES / "trec-cast-2021"]


@pytest.fixture(scope="module")
def names(tmp_path_factory):
    path = tmp_path_factory.mktemp("names") / "names.tsv"
    path.write_text("collection\trun\tname\n" + NAMES)
    return path


@pytest.fixture(scope="module")
def result(names):
    from rankviz.study.studies import read_names

    return summarise(FOLDERS, baseline="bm25", measures=["nDCG@10", "AP"], names=read_names(names))


# statsmodels divides by Q = 0 when every effect is equal
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@settings(max_examples=60, deadline=None)
@given(effects=st.lists(st.floats(-1, 1), min_size=2, max_size=8), seed=st.integers(0, 2**32 - 1))
def test_the_pooled_delta_is_statsmodels_dersimonian_laird(effects, seed) -> None:
    variances = np.random.default_rng(seed).uniform(1e-4, 0.05, len(effects))
    ours = dersimonian_laird(np.array(effects), variances)
    reference = combine_effects(np.array(effects), variances, method_re="dl")
    # effects (nearly) equal: statsmodels' I2 = 1 - (k - 1) / Q is rounding noise; ours is 0
    assume(ours["q"] > 1e-9)
    assert ours["tau2"] == pytest.approx(max(reference.tau2, 0.0), abs=1e-12)
    assert ours["i2"] == pytest.approx(max(reference.i2, 0.0), abs=1e-12)
    # statsmodels does not floor tau2: its pooled estimate is ours where tau2 is not negative
    if reference.tau2 >= 0:
        low, high = reference.conf_int(use_t=False)[1]
        assert ours["delta"] == pytest.approx(reference.mean_effect_re, abs=1e-12)
        assert (ours["ci_low"], ours["ci_high"]) == pytest.approx((low, high), abs=1e-12)


def test_each_collections_delta_is_the_paired_t_interval_of_its_differences(result) -> None:
    row = result.collections.query(
        "collection == 'DL-HARD (passage)' and run == 'reranked' and measure == 'AP'"
    ).iloc[0]
    evaluation = rv.Study.open(
        rv.StudyRequest(SAMPLES / "dl-hard-passage", ["bm25", "bm25_t5-zs"], measures=["AP"])
    ).evaluation()
    matrix = evaluation.matrix(evaluation.measures[0])
    test = stats.ttest_rel(matrix["bm25_t5-zs"], matrix["bm25"])
    interval = test.confidence_interval(0.95)
    # its own conventions
    assert row["measure_here"] == "AP(rel=2)" and "relevant from grade 2" in row["conventions"]
    assert row["delta"] == pytest.approx((matrix["bm25_t5-zs"] - matrix["bm25"]).mean(), abs=1e-12)
    assert (row["ci_low"], row["ci_high"]) == pytest.approx(
        (interval.low, interval.high), abs=1e-12
    )
    assert row["n"] == len(matrix)


def test_the_pooled_rows_wins_and_ranks(result) -> None:
    pooled = result.pooled.set_index(["run", "measure"])
    per = result.collections.query("measure == 'nDCG@10' and run == 'expansion'")
    reference = combine_effects(per["delta"].to_numpy(), per["variance"].to_numpy(), method_re="dl")
    assert pooled.loc[("expansion", "nDCG@10"), "delta"] == pytest.approx(
        reference.mean_effect_re, abs=1e-12
    )
    # DL-HARD loses
    assert pooled.loc[("expansion", "nDCG@10"), ["wins", "ties", "losses"]].tolist() == [2, 0, 1]
    assert (
        pooled.loc[("reranked", "nDCG@10"), "mean_rank"] == 1.0
        and pooled.loc[("reranked", "nDCG@10"), "borda"] == 6.0
    )


def test_standardised_deltas_divide_by_each_collections_sd(names) -> None:
    from rankviz.study.studies import read_names

    standardised = summarise(
        FOLDERS[:2],
        baseline="bm25",
        runs=["reranked"],
        measures=["AP"],
        names=read_names(names),
        standardised=True,
    )
    row = standardised.collections.query("collection == 'Cranfield'").iloc[0]
    matrix = (
        rv.Study.open(rv.StudyRequest(SAMPLES / "cranfield", ["bm25", "rrf"], measures=["AP"]))
        .evaluation()
        .matrix("AP")
    )
    differences = matrix["rrf"] - matrix["bm25"]
    assert row["delta"] == pytest.approx(differences.mean() / differences.std(ddof=1), abs=1e-12)


@pytest.mark.slow
def test_the_command_prints_json_and_gates_on_the_pooled_delta(names, capsys) -> None:
    folders = [str(f) for f in FOLDERS]
    assert (
        main(
            [
                "summary",
                *folders,
                "--baseline",
                "bm25",
                "--names",
                str(names),
                "-m",
                "nDCG@10",
                "--format",
                "json",
            ]
        )
        == 0
    )
    payload = json.loads(capsys.readouterr().out)
    assert set(payload) == {"collections", "pooled", "left_out"} and payload["left_out"] == []
    assert set(payload["collections"][0]) == {
        "collection",
        "run",
        "measure",
        "mean",
        "delta",
        "ci_low",
        "ci_high",
        "n",
    }
    assert set(payload["pooled"][0]) == {
        "run",
        "measure",
        "delta",
        "ci_low",
        "ci_high",
        "tau2",
        "i2",
    }
    # expansion's pooled interval reaches below 0: not better; reranked's lies above 0
    assert (
        main(
            [
                "summary",
                *folders,
                "--baseline",
                "bm25",
                "--names",
                str(names),
                "--fail-if",
                "not-better",
            ]
        )
        == 1
    )
    err = capsys.readouterr().err
    assert (
        "gate failed: expansion against bm25 on nDCG@10 over 3 collections" in err
        and "reranked" not in err
    )
    assert (
        main(
            ["summary", *folders, "--baseline", "bm25", "--names", str(names), "--fail-if", "worse"]
        )
        == 0
    )
    # no run but the baseline in both
    assert main(["summary", *folders[:2], "--baseline", "bm25"]) == 2
    assert "no run besides the baseline is in every collection" in capsys.readouterr().err


@pytest.fixture(scope="module")
def two_cranfields(tmp_path_factory):
    """Two copies of Cranfield (named apart in collection.toml or not) and a run answering 100 of
    its 225 queries."""
    import gzip
    import shutil

    root = tmp_path_factory.mktemp("cranfields")
    folders = []
    for name in ("one", "two"):
        folder = root / name
        shutil.copytree(
            SAMPLES / "cranfield", folder, ignore=shutil.ignore_patterns("docs.*", "*.sqlite")
        )
        lines = gzip.open(folder / "runs" / "dense.run.gz", "rt").read().splitlines()
        kept = set(list(dict.fromkeys(line.split()[0] for line in lines))[:100])
        (folder / "runs" / "partial.txt").write_text(
            "\n".join(line for line in lines if line.split()[0] in kept) + "\n"
        )
        folders.append(folder)
    return folders


def test_each_pair_is_summarised_on_the_queries_both_answer_whichever_runs_are_named(
    two_cranfields,
) -> None:
    """Under --missing skip, dense against bm25 once took the queries every named run answers: n 225
    alone, n 100 once a run answering 100 queries was named. Each pair has its own queries, as
    compare."""
    for folder, name in zip(two_cranfields, ("Cranfield one", "Cranfield two")):
        toml = folder / "collection.toml"
        toml.write_text(toml.read_text().replace('name = "Cranfield"', f'name = "{name}"'))
    alone = summarise(
        two_cranfields,
        baseline="bm25",
        runs=["dense"],
        measures=["AP"],
        options={"missing": "skip"},
    ).collections
    skip = {"missing": "skip"}
    named = summarise(
        two_cranfields, baseline="bm25", runs=["dense", "partial"], measures=["AP"], options=skip
    ).collections
    dense = named[named.run == "dense"].reset_index(drop=True)
    assert list(alone["n"]) == list(dense["n"]) == [225, 225]
    assert list(dense["delta"]) == pytest.approx(list(alone["delta"]), abs=1e-15)
    partial = named[named.run == "partial"]
    assert list(partial["n"]) == [100, 100]
    matrix = rv.Study.open(
        rv.StudyRequest(
            two_cranfields[0], ["bm25", "partial"], measures=["AP"], options={"missing": "skip"}
        )
    ).evaluation()
    values = matrix.matrix(matrix.measures[0]).dropna()
    assert partial["delta"].iloc[0] == pytest.approx(
        (values["partial"] - values["bm25"]).mean(), abs=1e-12
    )


def test_two_folders_that_give_one_name_are_summarised_apart(two_cranfields, capsys) -> None:
    for folder in two_cranfields:
        toml = folder / "collection.toml"
        toml.write_text(toml.read_text().split("\n", 1)[1])  # every name line gone ...
        # ... then the same name for both
        toml.write_text('name = "Cranfield"\n' + toml.read_text())
    result = summarise(two_cranfields, baseline="bm25", runs=["dense"], measures=["AP"])
    assert sorted(result.collections["collection"]) == ["Cranfield (one)", "Cranfield (two)"]
    assert int(result.pooled["k"].iloc[0]) == 2
    assert (
        main(["summary", str(two_cranfields[0]), str(two_cranfields[0]), "--baseline", "bm25"]) == 2
    )
    assert "given twice" in capsys.readouterr().err


def test_a_collection_with_identical_runs_is_left_out_of_the_pool_and_said(
    tmp_path, capsys
) -> None:
    """Two identical runs: no variance to weigh that collection by. Every pooled value was n/a, with
    three numpy RuntimeWarnings on stderr; now that collection is left out, said, and the others
    pooled."""
    import shutil
    import warnings

    folders = []
    for name, copied in (("same", "bm25"), ("other", "dense"), ("third", "rrf")):
        folder = tmp_path / name
        shutil.copytree(
            SAMPLES / "cranfield", folder, ignore=shutil.ignore_patterns("docs.*", "*.sqlite")
        )
        toml = folder / "collection.toml"
        toml.write_text(toml.read_text().replace('name = "Cranfield"', f'name = "{name}"'))
        shutil.copy(folder / "runs" / f"{copied}.run.gz", folder / "runs" / "candidate.run.gz")
        folders.append(folder)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        result = summarise(folders, baseline="bm25", runs=["candidate"], measures=["AP"])
    pooled = result.pooled.iloc[0]
    assert pooled["k"] == 2 and result.left_out == (
        "same left out of the pooled delta of candidate on AP: its per-query differences from the "
        "baseline are all equal "
        "(no variance to weigh it by)",
    )
    kept = result.collections[result.collections.collection != "same"]
    expected = combine_effects(
        kept["delta"].to_numpy(), kept["variance"].to_numpy(), method_re="dl"
    )
    assert pooled["delta"] == pytest.approx(
        expected.summary_frame().loc["random effect", "eff"], abs=1e-12
    )
    assert (
        main(
            [
                "summary",
                *map(str, folders),
                "--baseline",
                "bm25",
                "--runs",
                "candidate",
                "-m",
                "AP",
                "--format",
                "json",
            ]
        )
        == 0
    )
    captured = capsys.readouterr()
    assert (
        json.loads(captured.out)["left_out"] == list(result.left_out)
        and "Warning" not in captured.err
    )


def test_the_names_file_the_docs_name_is_shipped_and_a_bad_one_is_one_line(
    tmp_path, capsys
) -> None:
    assert (
        ROOT / "sample_data" / "summary-names.tsv"
    ).read_text() == "collection\trun\tname\n" + NAMES
    folders = [str(path) for path in FOLDERS[:2]]
    for names, said in (
        (tmp_path / "missing.tsv", "missing.tsv: file not found"),
        (tmp_path / "latin1.tsv", "latin1.tsv:2: not UTF-8 text (byte 0xe9)"),
    ):
        if names.name == "latin1.tsv":
            names.write_bytes(
                "collection\trun\tname\ncranfield\tdense\texpans\u00e9on\n".encode("latin-1")
            )
        status = main(
            ["summary", *folders, "--baseline", "bm25", "--names", str(names), "--fail-if", "worse"]
        )
        err = capsys.readouterr().err
        assert (
            status == 2 and said in err and len(err.splitlines()) == 1 and "Traceback" not in err
        ), err
