"""trec_eval's bare family names (``-m ndcg_cut``, ``P``, ``recall``, ``success``, ``map_cut``,
``relative_P``, ``unj``), its ``iprec_at_recall..10,.25`` and its ``set`` nickname give, in
``evaluate``, ``compare``, the API and the app, one measure a cutoff with trec_eval 10's values
(tests/data/trec-eval-cli/families*.out, its output; SOURCE.md)."""

from __future__ import annotations

import io

import pandas as pd
import pytest
from conftest import ROOT, run_cli

import rankviz as rv
from rankviz.measures import parse

KEPT = ROOT / "tests" / "data" / "trec-eval-cli"
NAMES = ["P", "recall", "ndcg_cut", "map_cut", "success", "relative_P", "unj"]
NAMES += ["iprec_at_recall..10,.25", "set"]
CASES = {
    "families": ("trec-eval-fixtures/qrels.test", "trec-eval-fixtures/results.test"),
    "families-ties": ("conformance/ties/qrels.txt", "conformance/ties/run_tied.txt"),
}


def _trec_evals(case: str) -> pd.Series:
    """(measure as the catalogue writes it, query) -> the value trec_eval printed."""
    rows = [line.split() for line in (KEPT / f"{case}.out").read_text().splitlines()]
    kept = {
        (str(parse(name)), query): float(value)
        for name, query, value in rows
        if query != "all" and name not in ("runid", "num_q")
    }
    return pd.Series(kept)


@pytest.mark.parametrize("case", list(CASES))
def test_each_family_name_gives_trec_evals_measures_and_values(case: str) -> None:
    qrels, run = (str(ROOT / "tests" / "data" / path) for path in CASES[case])
    expected = _trec_evals(case)
    args = [a for name in NAMES for a in ("-m", name)]
    done = run_cli("evaluate", qrels, run, *args, "--per-query", "--format", "tsv")
    assert done.returncode == 0, done.stderr
    table = pd.read_csv(io.StringIO(done.stdout), sep="\t", dtype={"qid": str})
    table = table[table["qid"] != "all"]
    shown = table.set_index(["measure", "qid"])["value"]
    assert set(shown.index.get_level_values("measure")) == set(expected.index.get_level_values(0))
    for key, value in expected.items():
        assert shown.loc[key] == pytest.approx(value, abs=5e-5), key  # %6.4f
    # the API's list of names is the same list of measures
    api = rv.evaluate(qrels, run, NAMES)
    assert [str(m) for m in api.measures] == list(dict.fromkeys(shown.index.get_level_values(0)))


def test_a_bare_family_name_is_refused_where_one_measure_is_taken() -> None:
    with pytest.raises(rv.MeasureError, match="'ndcg_cut' is 9 measures"):
        parse("ndcg_cut")
    with pytest.raises(rv.MeasureError, match="is 2 measures"):
        parse("iprec_at_recall..10,.25")


def test_compare_takes_a_family_name() -> None:
    ties = ROOT / "tests" / "data" / "conformance" / "ties"
    runs = [str(ties / "run_tied.txt"), str(ties / "run_float32.txt")]
    done = run_cli("compare", str(ties / "qrels.txt"), *runs, "-m", "success", "--format", "tsv")
    assert done.returncode == 0, done.stderr
    measures = pd.read_csv(io.StringIO(done.stdout), sep="\t")["measure"]
    assert list(measures) == ["Hits@1", "Hits@5", "Hits@10"]


def test_the_app_takes_a_family_name_in_its_link() -> None:
    from apptest import start

    at = start("overview", measures="success,ndcg_cut.10")
    assert not at.exception and not at.error
    assert list(at.dataframe[0].value.columns) == ["Hits@1", "Hits@5", "Hits@10", "nDCG@10"]
