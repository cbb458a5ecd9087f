"""GMAP and GMBpref (trec_eval's gm_map and gm_bpref): families whose per-query values are the
logs trec_eval keeps and whose mean is exp of their mean. Checked against scipy's ``gmean`` of
the floored AP and Bpref under every aggregate (query, weights, a macro mean over groups), against
scipy's t interval of the logs, and against trec_eval 10's summary line (``-c`` too)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import CRANFIELD, ROOT
from scipy import stats

import rankviz as rv
from rankviz.io.groups import QueryGroups
from rankviz.measures.log_ap import FLOOR

GENERATED = ROOT / "tests" / "data" / "trec-eval-generated"
RUNS = [CRANFIELD / "runs" / f"{name}.run.gz" for name in ("bm25", "dense", "qld")]


@pytest.fixture(scope="module")
def qrels():
    return rv.read_qrels(CRANFIELD / "qrels.txt")


@pytest.fixture(scope="module")
def floored(qrels):
    """Each run's AP and Bpref per query, floored as trec_eval floors them (the families' own
    values, which the trec_eval tests check)."""
    evaluation = rv.evaluate(qrels, RUNS, ["AP", "Bpref"])
    return evaluation, {
        name: np.maximum(evaluation.matrix(name).to_numpy(), FLOOR) for name in ("AP", "Bpref")
    }


@pytest.mark.parametrize(("geometric", "family"), [("gm_map", "AP"), ("gm_bpref", "Bpref")])
def test_the_mean_is_scipys_geometric_mean_of_the_floored_values(qrels, floored, geometric, family):
    evaluation, values = floored
    measure = rv.parse(geometric)
    ours = rv.evaluate(qrels, RUNS, [measure])
    for column, run in enumerate(ours.runs):
        assert ours.mean(measure, run) == pytest.approx(
            stats.gmean(values[family][:, column]), rel=1e-12
        )
        # per query, the logs: what a paired test or an interval takes
        np.testing.assert_allclose(
            ours.matrix(measure)[run].to_numpy(), np.log(values[family][:, column]), rtol=1e-15
        )
    assert str(measure) == {"AP": "GMAP", "Bpref": "GMBpref"}[family]


def test_a_weighted_and_a_macro_mean_are_geometric_too(qrels, floored) -> None:
    evaluation, values = floored
    qids = list(evaluation.matrix("AP").index)
    rng = np.random.default_rng(7)
    weights = dict(zip(qids, rng.uniform(0.5, 3.0, len(qids)).tolist(), strict=True))
    weighted = rv.evaluate(qrels, RUNS, ["GMAP"], weights=weights, aggregate="weights")
    kinds = pd.DataFrame({"kind": [f"k{i % 3}" for i in range(len(qids))]}, index=qids)
    groups = QueryGroups(kinds.rename_axis("qid"), "kinds")
    macro = rv.evaluate(qrels, RUNS, ["GMAP"], groups=groups, group_by="kind", aggregate="macro")
    w = np.array([weights[q] for q in qids])
    for column, run in enumerate(weighted.runs):
        ap = values["AP"][:, column]
        assert weighted.mean("GMAP", run) == pytest.approx(stats.gmean(ap, weights=w), rel=1e-12)
        per_group = [stats.gmean(ap[kinds["kind"].to_numpy() == g]) for g in ("k0", "k1", "k2")]
        assert macro.mean("GMAP", run) == pytest.approx(stats.gmean(per_group), rel=1e-12)
        shown = macro.group_means("GMAP")[run]
        np.testing.assert_allclose(shown.loc[["k0", "k1", "k2"]].to_numpy(), per_group, rtol=1e-12)


def test_an_interval_is_the_logs_interval_shown_as_the_mean_is(qrels, floored) -> None:
    evaluation, values = floored
    summary = rv.evaluate(qrels, RUNS, ["GMAP"]).summary("GMAP", confidence_level=0.9)
    for column, run in enumerate(summary.index):
        logs = np.log(values["AP"][:, column])
        low, high = stats.t.interval(0.9, len(logs) - 1, loc=logs.mean(), scale=stats.sem(logs))
        assert summary.loc[run, "ci_low"] == pytest.approx(np.exp(low), rel=1e-12)
        assert summary.loc[run, "ci_high"] == pytest.approx(np.exp(high), rel=1e-12)
        assert summary.loc[run, "ci_low"] < summary.loc[run, "mean"] < summary.loc[run, "ci_high"]


@pytest.mark.parametrize("case", ["defaults", "graded-l2", "judged-depth"])
def test_the_mean_is_trec_evals_summary_line(case: str) -> None:
    """``evaluate -m gm_map -m gm_bpref`` == trec_eval 10's ``all`` line (the generated cases ran
    with -c: the query the run misses counts at the floor, as ``--missing zero`` counts it)."""
    from test_trec_eval_families import CASES

    options, defaults, _ = CASES[case]
    rows = [line.split("\t") for line in (GENERATED / f"{case}.out").read_text().splitlines()]
    summary = {r[0].strip(): r[2] for r in rows if r[1].strip() == "all"}
    qrels = rv.read_qrels(GENERATED / "qrels.txt")
    run = rv.read_run(GENERATED / "run.txt", name="run")
    measures = [rv.parse(name, defaults=defaults) for name in ("gm_map", "gm_bpref")]
    evaluation = rv.evaluate(qrels, run, measures, missing="zero", **options)
    for name, measure in zip(("gm_map", "gm_bpref"), measures, strict=True):
        assert evaluation.mean(measure, "run") == pytest.approx(float(summary[name]), rel=1e-12)
    skipped = rv.evaluate(qrels, run, measures, missing="skip", **options)
    assert skipped.mean(measures[0], "run") > evaluation.mean(measures[0], "run")  # q9 counted


def test_a_paired_test_of_gmap_is_scipys_on_the_logs_and_says_so(qrels, floored) -> None:
    evaluation, values = floored
    gmap = rv.evaluate(qrels, RUNS, ["GMAP"])
    result = rv.compare(gmap, test="t", baseline="bm25")
    logs = np.log(values["AP"])
    for row in result.table.itertuples():
        column = [r.name for r in RUNS].index(f"{row.run}.run.gz")
        reference = stats.ttest_rel(logs[:, column], logs[:, 0])
        assert row.p_value == pytest.approx(reference.pvalue, rel=1e-12)
        assert np.exp(row.mean_baseline) == pytest.approx(gmap.mean("GMAP", "bm25"), rel=1e-12)
    assert "GMAP: a geometric mean, tested on the per-query logs" in result.describe()
    assert "geometric" not in rv.compare(evaluation, test="t").describe()
