"""AppTest of the "Across collections" page: the rows guessed across collections named differently,
its numbers equal to ``rankviz summary --format json`` with the same runs mapped by a names file,
the choices in the link, the forest plot, and a clear error for a run chosen twice."""

from __future__ import annotations

import json

import pytest
from apptest import figure, shown, start
from conftest import ROOT

from rankviz.app.panels.across_rows import default_rows, matched_rows, names_and_rows
from rankviz.cli import main
from rankviz.errors import OptionError

SAMPLES = ROOT / "sample_data"
THREE = "cranfield,dl-hard-passage,trec-cast-2021"  # the samples with real runs
ROWS = {
    "collections": THREE,
    "rows.cranfield": "bm25,rrf",
    "rows.dl-hard-passage": "bm25,bm25_t5-zs",
    "rows.trec-cast-2021": "org_manual_bm25,org_manual_ance_bert",
}


def test_rows_are_guessed_from_names_and_their_words() -> None:
    runs = {
        "a": ["dense", "bm25"],
        "b": ["x_bm25", "dense_v2", "dense"],
        "c": ["org_bm25", "other"],
    }
    assert default_rows(runs, 2) == {
        "a": ["bm25", "dense"],
        "b": ["x_bm25", "dense"],
        "c": ["org_bm25", "other"],
    }
    names, mapping = names_and_rows({"a": ["bm25", "dense"], "b": ["x_bm25", "dense"]})
    assert names == ["bm25 / x_bm25", "dense"] and mapping["b"] == {
        "x_bm25": "bm25 / x_bm25",
        "dense": "dense",
    }
    with pytest.raises(OptionError, match="one run is chosen for two rows"):
        names_and_rows({"a": ["bm25", "bm25"], "b": ["x", "y"]})
    # a collection with fewer runs than the others: its runs all guessed, the guessing ends there
    # (it raised StopIteration, a traceback on the page, when two collections shared a third run)
    fewer = {"a": ["x", "y"], "b": ["x", "y", "z"], "c": ["x", "y", "z"]}
    assert default_rows(fewer, 3) == {"a": ["x", "y"], "b": ["x", "y", "z"], "c": ["x", "y", "z"]}
    assert matched_rows(fewer) == 2


@pytest.mark.slow
def test_the_page_gives_the_summary_commands_numbers(tmp_path, capsys) -> None:
    at = start("across", compared="1", across_measure="AP", **ROWS)
    assert not at.exception and not at.error
    collections, pooled = at.dataframe[0].value, at.dataframe[1].value
    names = tmp_path / "names.tsv"
    names.write_text(
        "trec-cast-2021\torg_manual_bm25\tbm25\ncranfield\trrf\treranked\ndl-hard-passage\tbm25_t5-zs\treranked\n"
        "trec-cast-2021\torg_manual_ance_bert\treranked\n"
    )
    folders = [str(SAMPLES / name) for name in ("cranfield", "dl-hard-passage", "trec-cast-2021")]
    assert (
        main(
            [
                "summary",
                *folders,
                "--baseline",
                "bm25",
                "--runs",
                "reranked",
                "--names",
                str(names),
                "-m",
                "AP",
                "--format",
                "json",
            ]
        )
        == 0
    )
    expected = json.loads(capsys.readouterr().out)
    assert list(collections["delta"]) == pytest.approx(
        [row["delta"] for row in expected["collections"]], abs=1e-12
    )
    assert list(collections["ci_low"]) == pytest.approx(
        [row["ci_low"] for row in expected["collections"]], abs=1e-12
    )
    assert list(collections["n"]) == [row["n"] for row in expected["collections"]]
    (reference,) = expected["pooled"]
    for key in ("delta", "ci_low", "ci_high", "tau2", "i2"):
        assert pooled.iloc[0][key] == pytest.approx(reference[key], abs=1e-12)
    assert pooled.iloc[0]["run"] == "rrf / bm25_t5-zs / org_manual_ance_bert"
    spec = figure(at)
    assert spec["data"][1]["x"] == pytest.approx([reference["delta"]]) and spec["data"][1]["y"] == [
        "pooled"
    ]
    assert "DerSimonian-Laird" in " ".join(shown(c) for c in at.caption)


@pytest.mark.slow
def test_unrelated_runs_are_pooled_only_when_asked() -> None:
    """Cranfield's bm25-raw, DL-HARD's bm25_bert-zs and CAsT's org_convdr share no name: the page
    pools only rows whose runs every collection names alike (here the baseline alone), and asks."""
    runs = {
        "a": ["dense", "bm25"],
        "b": ["x_bm25", "dense_v2", "dense"],
        "c": ["org_bm25", "other"],
    }
    assert matched_rows(runs) == 1 and matched_rows({k: runs[k] for k in "ab"}) == 2
    at = start("across")
    assert not at.exception and not at.error and not at.dataframe
    assert next(n for n in at.number_input if n.label.startswith("Runs compared")).value == 0
    assert any("shares a name in every chosen collection" in shown(i) for i in at.info)
    two = start("across", collections="cranfield,dl-hard-passage")
    assert not two.dataframe  # bm25 alone: bm25-raw and bm25_bert-zs are not one system
    headers = start("across", compared="1", **ROWS)
    assert headers.dataframe and "ci_low" in headers.dataframe[0].value.columns  # words on screen


@pytest.mark.slow
def test_the_choices_live_in_the_link_and_a_standardised_summary_divides_by_the_spread() -> None:
    at = start("across", compared="1")
    assert not at.exception and not at.error
    # bm25 guessed as CAsT's baseline
    assert at.query_params["rows.trec-cast-2021"].startswith("org_manual_bm25,")
    raw = at.dataframe[0].value
    at.toggle[0].set_value(True).run()
    assert at.query_params["standardised"] == "1"
    standardised = at.dataframe[0].value
    assert list(standardised["delta"]) != pytest.approx(list(raw["delta"]))
    # a spread rescales, never flips
    assert (standardised["delta"] > 0).tolist() == (raw["delta"] > 0).tolist()


def test_a_run_chosen_for_two_rows_is_said_plainly() -> None:
    at = start("across", compared="1", **{**ROWS, "rows.cranfield": "bm25,bm25"})
    assert not at.exception
    assert any("one run is chosen for two rows" in shown(e) for e in at.error)


def test_a_collection_named_twice_in_the_link_is_chosen_once() -> None:
    """``/across?collections=cranfield,cranfield`` replaced the page with
    StreamlitDuplicateElementKey."""
    at = start("across", collections="cranfield,cranfield,dl-hard-passage", runs="bm25,bm25,dense")
    assert not at.exception and not at.error
    assert next(w for w in at.multiselect if w.label == "Collections").value == [
        "cranfield",
        "dl-hard-passage",
    ]
