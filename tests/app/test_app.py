"""AppTest: every page with widgets set and outputs checked against the engine."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from apptest import (
    FORMULA,
    IMAGE,
    LINK,
    assert_literal,
    conventions,
    figure,
    hostile_collection,
    seen,
    shown,
    start,
)
from conftest import CRANFIELD, ROOT
from scipy import stats
from streamlit.testing.v1 import AppTest

import rankviz as rv
from rankviz.analyses import deltas, effect, query_view
from rankviz.io.collection import open_collection
from rankviz.ranking.ordering import chance_table
from rankviz.settings.eval_settings import NO_CUT
from rankviz.settings.tie_policy import TREC_EVAL
from rankviz.study import BEATS, PRECISION_RECALL, STANDINGS, served

APP = str(ROOT / "app.py")
# its collection.toml
CRANFIELD_MEASURES = ["RR@10", "RR", "Hits@10", "AP", "nDCG@10", "nDCG", "ERR@20"]


def matrix(collection, runs, measure: str):
    return rv.evaluate(
        collection.read_qrels(), [collection.read_run(n) for n in runs], [measure]
    ).matrix(measure)


@pytest.mark.slow
def test_app_entrypoint_opens_the_overview_of_the_default_collection() -> None:
    at = AppTest.from_file(APP, default_timeout=120).run()
    assert not at.exception and not at.error
    assert at.header[0].value == "Overview"
    assert "Cranfield" in conventions(at)


@pytest.fixture(scope="module")
def cranfield_means():
    collection = open_collection(CRANFIELD)
    runs = [collection.read_run(n) for n in collection.run_paths]
    frame = rv.evaluate(collection.read_qrels(), runs, CRANFIELD_MEASURES).to_frame()
    return frame.pivot(index="run", columns="measure", values="value")


@pytest.mark.slow
@pytest.mark.few
def test_overview_shows_the_engine_numbers(cranfield_means) -> None:
    at = start()
    assert not at.exception and not at.error
    table = at.dataframe[0].value
    assert list(table.columns) == CRANFIELD_MEASURES  # the collection's measures
    for run in table.index:
        for measure in table.columns:
            assert table.loc[run, measure] == pytest.approx(
                cranfield_means.loc[run, measure], abs=1e-12
            )
    spec = figure(at)
    bars = [trace for trace in spec["data"] if trace["type"] == "bar"]
    # one bar per run, in its colour, per measure
    assert [trace["name"] for trace in bars] == list(table.index)
    assert bars[0]["x"] == list(table.columns) and bars[0]["y"] == pytest.approx(
        list(table.iloc[0])
    )
    assert len({trace["marker"]["color"] for trace in bars}) == len(bars)
    assert "trec_eval" in conventions(at) and "gmax = 4" in conventions(at)
    assert [b.label for b in at.get("download_button")] == [
        "Download table (CSV)",
        "Download table (LaTeX)",
    ]


@pytest.mark.slow
def test_changing_measure_k_and_threshold_updates_table_and_url() -> None:
    at = start()
    at.sidebar.multiselect[1].set_value(["RR", "nDCG@K"]).run()
    at.sidebar.number_input[0].set_value(5).run()
    at.sidebar.number_input[1].set_value(2).run()
    table = at.dataframe[0].value
    assert list(table.columns) == ["RR(rel=2)", "nDCG@5"]
    assert at.query_params["k"] == "5" and at.query_params["rel"] == "2"
    assert at.query_params["measures"] == "RR,nDCG@K"


@pytest.mark.slow
def test_a_second_change_to_the_same_widget_is_kept() -> None:
    """Widgets take their default from the URL; without stable keys every second change was lost."""
    at = start(measures="RR@K,AP")
    for k in (5, 7, 3):
        at.sidebar.number_input[0].set_value(k).run()
        assert (
            at.query_params["k"] == str(k) and list(at.dataframe[0].value.columns)[0] == f"RR@{k}"
        )
    at = start("deltas", baseline="bm25", run="dense")
    for measure in ("AP", "nDCG@10", "RR@10"):
        at.selectbox[2].set_value(measure).run()
        assert at.query_params["measure"] == measure


@pytest.mark.slow
def test_query_parameters_restore_a_view() -> None:
    at = start(
        collection="dl-hard-passage",
        runs="bm25,bm25_t5-zs",
        measures="MRR,NDCG@K",
        k="10",
        ties="pessimistic",
    )
    # every parameter of the link applies
    assert not [w for w in at.warning if "Link parameter" in shown(w)]
    # DL-HARD is half judged
    assert any("judge little of some runs' top 10 (bm25 50%" in shown(w) for w in at.warning)
    # the conventions in one line above the page, every one of them behind a click on it
    line = at.expander[0]
    # ties and the relevance grade are not trec_eval's
    assert seen(line.label) == (
        "**DL-HARD (passage)** · 2 conventions not trec_eval's · top 10 thinly judged in 2 runs"
    )
    assert "- ties: relevant documents last within equal scores (pessimistic)" in shown(
        line.caption[0]
    )
    assert "top 10 judged: bm25 50%, bm25_t5-zs 50%" in shown(line.caption[0])
    table = at.dataframe[0].value
    assert list(table.index) == ["bm25", "bm25_t5-zs"]
    assert list(table.columns) == ["RR(rel=2)", "nDCG@10"]  # the collection's threshold
    assert at.sidebar.selectbox[1].value == "pessimistic"
    collection = open_collection(ROOT / "sample_data" / "dl-hard-passage")
    expected = rv.evaluate(
        collection.read_qrels(), collection.read_run("bm25"), ["nDCG@10"], ties="pessimistic"
    ).to_frame()
    assert table.loc["bm25", "nDCG@10"] == pytest.approx(expected.value.iloc[0], abs=1e-12)


@pytest.mark.slow
def test_bad_query_parameters_fall_back_with_a_warning() -> None:
    at = start(collection="nope", k="abc", runs="bm25,ghost", ties="<script>")
    warnings = " ".join(shown(w) for w in at.warning)
    assert (
        "collection='nope'" in warnings
        and "k='abc'" in warnings
        and "'ghost'" in warnings
        and "ties" in warnings
    )
    assert at.sidebar.selectbox[0].value == "cranfield" and at.sidebar.number_input[0].value == 10
    assert list(at.dataframe[0].value.index) == ["bm25"]


def _deltas(**params) -> AppTest:
    return start("deltas", **{"baseline": "bm25", "run": "dense", "measure": "AP", **params})


def _widget(elements, label: str):
    return next(e for e in elements if e.label == label)


@pytest.mark.slow
def test_deltas_page_counts_queue_and_aligned_query_view() -> None:
    at = _deltas()
    assert not at.exception
    collection = open_collection(CRANFIELD)
    qrels = collection.read_qrels()
    tables = {n: rv.rank(collection.read_run(n), qrels) for n in ("bm25", "dense")}
    frame = deltas.deltas(matrix(collection, ("bm25", "dense"), "AP"), "bm25", "dense")
    wins, ties, losses = deltas.wins_ties_losses(frame["delta"])
    assert [m.value for m in at.metric[:3]] == [str(wins), str(ties), str(losses)]
    bars = figure(at, 0)
    assert bars["data"][0]["y"] == pytest.approx(list(frame["delta"]))
    assert bars["data"][0]["customdata"][0][1] == collection.queries[frame.index[0]]
    overlap = query_view.rank_biased_overlap(tables["bm25"], tables["dense"])
    queue = at.dataframe[0].value
    expected = query_view.discussion_queue(frame, overlap, per_reason=5)
    assert list(queue.index) == list(expected.index) and list(queue["why"][:5]) == ["loss"] * 5
    assert list(queue["delta"][:5]) == sorted(frame["delta"])[:5]  # the largest losses first
    assert queue["rbo"].to_numpy() == pytest.approx(overlap.reindex(queue.index).to_numpy())
    assert _widget(at.selectbox, "Query").value == queue.index[0]  # the queue's first query is open
    _widget(at.selectbox, "Query").set_value("3").run()
    assert at.query_params["query"] == "3"
    view = at.dataframe[1].value
    aligned = query_view.aligned(tables["bm25"], tables["dense"], "3", 10)
    assert list(view["docid"]) == list(aligned["docid"]) and list(view["move"]) == list(
        aligned["move"]
    )
    labels = set(view["grade"])
    assert "unjudged" in labels and labels - {"unjudged"} <= {"0", "1", "2", "3", "4"}
    assert any("heat conduction" in shown(m) for m in at.markdown)


@pytest.mark.slow
def test_the_queue_steps_with_previous_and_next_and_the_url_follows() -> None:
    at = _deltas()
    queue = list(at.dataframe[0].value.index)
    _widget(at.button, "Next").click().run()
    assert _widget(at.selectbox, "Query").value == queue[1] == at.query_params["query"]
    _widget(at.button, "Next").click().run()
    _widget(at.button, "Previous").click().run()
    assert _widget(at.selectbox, "Query").value == queue[1] == at.query_params["query"]
    _widget(at.radio, "Depth").set_value(20).run()  # another widget changes: the query stays
    assert _widget(at.selectbox, "Query").value == queue[1] and at.query_params["depth"] == "20"
    assert len(at.dataframe[1].value) >= 20


@pytest.mark.slow
def test_a_document_of_the_link_opens_with_the_query_words_marked() -> None:
    first = _deltas(query="3")
    doc = first.dataframe[1].value["docid"].iloc[0]
    at = _deltas(query="3", doc=doc, depth="20")
    assert not at.exception and at.query_params["doc"] == doc
    assert _widget(at.radio, "Depth").value == 20
    body = next(h.proto.body for h in at.get("html") if "<mark>" in h.proto.body)
    query_words = set(re.findall(r"\w+", open_collection(CRANFIELD).queries["3"].lower()))
    marked = {word.lower() for word in re.findall(r"<mark>(.*?)</mark>", body)}
    assert marked and marked <= query_words, (marked, query_words)
    assert any(doc in e.label for e in at.get("expander"))
    every = _deltas(query="3", texts="1")
    # every document's text
    assert len([h for h in every.get("html") if "pre-wrap" in h.proto.body]) >= 10


@pytest.mark.slow
def test_a_collection_without_texts_says_why() -> None:
    at = start("deltas", collection="dl-hard-passage", query="1108939")
    assert not at.exception
    assert any("MS MARCO" in shown(i) and "docs.jsonl.gz" in shown(i) for i in at.info)


@pytest.mark.slow
def test_the_chance_level_is_the_expected_value_of_one_tie_group_per_query() -> None:
    at = start()
    means = at.dataframe[0].value
    # after the ranks: the chance level
    chance = next(d.value for d in at.dataframe[1:] if "interval" not in d.value.columns)
    assert chance.shape == means.shape
    # beside each mean, the runs it beats: every run numbered under the table, all pairs tested
    said = next(shown(c) for c in at.caption if "significantly better than" in shown(c))
    numbered = "; ".join(f"{i} {run}" for i, run in enumerate(means.index, start=1))
    assert f"({numbered})" in said and "every pair of runs" in said
    collection = open_collection(CRANFIELD)
    qrels = collection.read_qrels()
    table = rv.rank(collection.read_run("bm25"), qrels)
    one_group = chance_table(table)
    for measure in ("AP", "RR@10", "nDCG@10"):
        exact = rv.evaluate_tables(
            {"bm25": one_group}, [rv.parse(measure)], rv.EvalSettings(ties="expected")
        )
        assert chance.loc["bm25", measure] == pytest.approx(exact.mean(measure, "bm25"), abs=1e-12)
        assert chance.loc["bm25", measure] < means.loc["bm25", measure]
    # one query by hand: 2 documents retrieved, one relevant at either place: RR = (1 + 1/2) / 2
    assert _chance_of_two() == pytest.approx(0.75)


def test_a_measure_without_a_closed_form_is_shown_without_a_chance_level() -> None:
    """infAP (trec_eval's, no closed form over tied orders): its means are the library's, the
    chance level lists the other measures only and says why, the Ties page goes without
    ``expected`` for it."""
    at = start(runs="rrf,bm25", measures="infAP,AP")
    assert not at.exception and not at.error
    means = at.dataframe[0].value
    chance = next(d.value for d in at.dataframe[2:] if "interval" not in d.value.columns)
    collection = open_collection(CRANFIELD)
    library = rv.evaluate(collection.read_qrels(), collection.read_run("rrf"), ["infAP"])
    assert means.loc["rrf", "infAP"] == pytest.approx(library.mean("infAP", "rrf"), abs=1e-12)
    assert list(chance.columns) == ["AP"]
    assert any("infAP has none: no closed form" in shown(c) for c in at.caption)
    ties = start("ties", runs="rrf,bm25", measures="infAP")
    assert not ties.exception and not ties.error
    assert list(ties.dataframe[1].value.columns) == [
        "pessimistic",
        "trec_eval",
        "run",
        "optimistic",
        "width",
    ]
    refused = start(runs="rrf", measures="infAP", ties="expected")
    assert [shown(e) for e in refused.error] == [
        "ties=expected: no closed form over the orders of tied documents for infAP; ties=random "
        "draws orders"
    ]


def _chance_of_two() -> float:
    qrels = rv.qrels_from_dict({"q": {"a": 1}})
    run = rv.run_from_dict({"q": {"a": 2.0, "b": 1.0}})
    table = chance_table(rv.rank(run, qrels))
    return float(rv.parse("RR")(table)[0])


def test_histograms_page() -> None:
    at = start("histograms", runs="bm25,dense")
    assert not at.exception
    first = figure(at, 0)
    collection = open_collection(CRANFIELD)
    table = rv.rank(collection.read_run("bm25"), collection.read_qrels())
    ranks = deltas.first_relevant_rank(table, 1)
    bm25 = next(t for t in first["data"] if t["name"] == "bm25")
    # a bar is its bin's queries a rank: the 6-10 bin's height is a fifth of its count
    assert f"bm25 {int(ranks.isna().sum())}" in first["layout"]["title"]["text"]
    assert sum(bm25["customdata"]) == int(ranks.notna().sum())
    widths = [
        1 if "-" not in x else int(x.split("-")[1]) - int(x.split("-")[0]) + 1 for x in bm25["x"]
    ]
    assert len(set(widths)) > 1  # the steps: unequal bins
    for count, height, width in zip(bm25["customdata"], bm25["y"], widths, strict=True):
        assert height == pytest.approx(count / width)
    curve = next(t for t in figure(at, 2)["data"] if t["name"] == "bm25")
    at.toggle[1].set_value(True).run()  # one panel per run
    faceted = figure(at, 0)
    assert {t["name"]: t.get("xaxis", "x") for t in faceted["data"]} == {"bm25": "x", "dense": "x2"}
    assert [a["text"] for a in faceted["layout"]["annotations"]] == ["bm25", "dense"]
    hits_at_10 = (
        rv.evaluate(collection.read_qrels(), collection.read_run("bm25"), ["Hits@10"])
        .to_frame()
        .value.iloc[0]
    )
    assert curve["y"][9] == pytest.approx(hits_at_10)


def test_ties_page_compares_policies() -> None:
    at = start("ties", runs="rrf,bm25", measures="MRR@K")
    assert not at.exception and not at.error
    stats = at.dataframe[0].value
    assert (
        stats.loc["rrf", "queries with ties"] > 0
        and stats.loc["bm25", "share of top-10 documents tied"] == 0
    )
    means = at.dataframe[1].value
    assert list(means.columns) == [
        "pessimistic",
        "trec_eval",
        "run",
        "expected",
        "optimistic",
        "width",
    ]
    collection = open_collection(CRANFIELD)
    for policy in ("pessimistic", "expected", "optimistic"):
        reference = (
            rv.evaluate(collection.read_qrels(), collection.read_run("rrf"), ["RR@10"], ties=policy)
            .to_frame()
            .value.iloc[0]
        )
        assert means.loc["rrf", policy] == pytest.approx(reference, abs=1e-12)
    assert (
        means.loc["rrf", "pessimistic"]
        < means.loc["rrf", "expected"]
        < means.loc["rrf", "optimistic"]
    )
    assert means.loc["bm25", "width"] == 0
    spec = figure(at)
    assert [t["name"] for t in spec["data"]] == [
        "pessimistic / optimistic",
        "trec_eval",
        "run",
        "expected",
    ]
    moving = at.dataframe[-1].value
    assert (moving["width"] > 0).all() and moving["width"].is_monotonic_decreasing
    (verdicts,) = [d.value for d in at.dataframe if "changes" in d.value.columns]
    assert list(verdicts.index) == ["bm25"]  # against the baseline rrf
    assert (
        moving["open"].iloc[0].startswith("deltas?")
        and f"query={moving.index[0]}" in moving["open"].iloc[0]
    )


@pytest.mark.slow
def test_ties_page_random_orders_are_reproducible() -> None:
    first = start("ties", runs="rrf,bm25", measures="nDCG@K", trials="200", tie_seed="5")
    again = start("ties", runs="rrf,bm25", measures="nDCG@K", trials="200", tie_seed="5")
    means = first.dataframe[1].value
    assert means.equals(again.dataframe[1].value)
    other = (
        start("ties", runs="rrf,bm25", measures="nDCG@K", trials="200", tie_seed="6")
        .dataframe[1]
        .value
    )
    assert other.loc["rrf", "random"] != means.loc["rrf", "random"]
    assert means.loc["rrf", "random"] == pytest.approx(
        means.loc["rrf", "expected"], abs=5 * means.loc["rrf", "random std"]
    )
    assert means.loc["rrf", "random std"] > 0 and means.loc["bm25", "random std"] == 0


@pytest.mark.slow
def test_significance_page_matches_the_engine() -> None:
    at = start(
        "significance",
        runs="bm25,dense,rrf",
        measures="NDCG@K",
        baseline="bm25",
        correction="bonferroni",
    )
    assert not at.exception and not at.error
    table = at.dataframe[0].value
    collection = open_collection(CRANFIELD)
    values = matrix(collection, ("bm25", "dense", "rrf"), "nDCG@10")
    reference = stats.ttest_rel(values["rrf"], values["bm25"])
    assert list(table.index) == ["dense", "rrf"]
    assert table.loc["rrf", "p_value"] == pytest.approx(reference.pvalue, rel=1e-12)
    assert table.loc["rrf", "p_adjusted"] == pytest.approx(min(1, 2 * reference.pvalue), rel=1e-12)
    assert table.loc["rrf", "verdict"] == "better" and table.loc["dense", "verdict"] == "n.s."
    size = effect.effect_size(values["rrf"], values["bm25"])
    assert table.loc["rrf", ["effect_size", "effect_low", "effect_high"]].tolist() == pytest.approx(
        [size.value, size.low, size.high]
    )
    needed = next(d.value for d in at.dataframe if "queries needed" in d.value.columns)
    sd = (values["rrf"] - values["bm25"]).std(ddof=1)
    assert needed.loc["rrf", "queries needed"] == effect.topic_set_size(0.02, sd)
    forest_spec, heatmap = figure(at, 0), figure(at, 1)
    assert {t["name"] for t in forest_spec["data"]} == {"better", "n.s."}
    assert heatmap["data"][0]["x"] == ["bm25", "dense", "rrf"]
    assert any("Paired t-test" in shown(c) for c in at.caption)
    at.selectbox[2].set_value("randomization").run()
    assert at.query_params["test"] == "randomization" and not at.exception
    randomized = at.dataframe[0].value
    assert (
        randomized.loc["rrf", "p_value"] >= 1 / 10_001
        and randomized.loc["rrf", "verdict"] == "better"
    )
    assert any("exchangeable" in shown(c) for c in at.caption)
    at.selectbox[2].set_value("wilcoxon").run()
    at.selectbox[5].set_value("zsplit").run()
    assert at.query_params["zero_method"] == "zsplit"
    reference = stats.wilcoxon(values["rrf"], values["bm25"], zero_method="zsplit")
    assert at.dataframe[0].value.loc["rrf", "p_value"] == pytest.approx(reference.pvalue, rel=1e-12)


def test_overview_marks_beside_each_mean_the_runs_it_beats() -> None:
    """Not against the baseline (the worst run by default): beside each mean, the numbers of the
    runs it is significantly better than, every pair tested, as the library's Study.beats says."""
    import pyarrow as pa

    at = start(runs="bm25,dense,rrf", measures="NDCG@K,MAP", baseline="bm25")
    styler = at.dataframe[0].proto.arrow_data.styler
    cells = pa.ipc.open_stream(styler.display_values).read_pandas()
    assert cells.loc["rrf", "AP"] == "0.3412 ¹ ²" and cells.loc["bm25", "nDCG@10"] == "0.3597"
    study = rv.Study.open(
        rv.StudyRequest(CRANFIELD, ["bm25", "dense", "rrf"], measures=["nDCG@10", "AP"])
    )
    beats = study.ask(BEATS, rv.TestSettings(seed=0, baseline="bm25"))
    number = {"bm25": "¹", "dense": "²", "rrf": "³"}
    for run in ("bm25", "dense", "rrf"):
        for measure in ("nDCG@10", "AP"):
            marks = cells.loc[run, measure].split(" ")[1:]
            assert marks == [
                number[r] for r in sorted(beats.loc[run, measure], key=list(number).index)
            ]


def test_overview_ranks_runs_with_intervals_and_tukey_groups_as_the_library() -> None:
    at = start(
        runs="bm25,dense,rrf,bm25-raw",
        measures="NDCG@K,MAP",
        rank_measure="MAP",
        seed="4",
        n_resamples="500",
    )
    assert not at.exception and not at.error
    (table,) = [d.value for d in at.dataframe if "interval" in d.value.columns]
    study = rv.Study.open(
        rv.StudyRequest(CRANFIELD, ["bm25", "dense", "rrf", "bm25-raw"], measures=["AP"])
    )
    expected = (
        study.ask(STANDINGS, rv.TestSettings(seed=4, n_resamples=500))
        .to_frames()["standings"]
        .set_index("run")
    )
    assert list(table.index) == list(expected.index)  # by mean, best first
    assert list(table["group"]) == list(expected["group"]) and list(table["rank"]) == list(
        expected["rank"]
    )
    assert list(table["interval"]) == [
        f"{lo}–{hi}" for lo, hi in zip(expected["rank_low"], expected["rank_high"], strict=True)
    ]
    assert "Tukey" in " ".join(shown(c) for c in at.caption)
    # switched off: nothing drawn, and the link says so
    at.toggle(key=at.toggle[0].key).set_value(False).run()
    assert (
        not [d for d in at.dataframe if "interval" in d.value.columns]
        and at.query_params["ranks"] == "0"
    )


def _charts_titled(at: AppTest, text: str) -> list[dict]:
    charts = [figure(at, i) for i in range(len(at.get("plotly_chart")))]
    return [c for c in charts if text in json.dumps(c["layout"].get("title", ""))]


def test_overview_draws_the_precision_recall_curves_of_the_library_when_asked() -> None:
    at = start(runs="bm25,dense", measures="MAP")
    assert not _charts_titled(at, "Interpolated precision")
    assert any(shown(c).startswith("Off: switch it on to draw") for c in at.caption)
    at = start(runs="bm25,dense", measures="MAP", pr_curve="1", ties="optimistic")
    assert not at.exception and not at.error
    (curves,) = _charts_titled(at, "Interpolated precision")
    study = rv.Study.open(
        rv.StudyRequest(CRANFIELD, ["bm25", "dense"], options={"ties": "optimistic"})
    )
    expected = study.ask(PRECISION_RECALL).precision
    assert [t["name"] for t in curves["data"]] == ["bm25", "dense"]
    for trace in curves["data"]:
        assert trace["x"] == [i / 10 for i in range(11)]
        assert trace["y"] == pytest.approx(list(expected.loc[trace["name"]]), abs=1e-12)
    assert any("ties in optimistic's order" in shown(c) for c in at.caption)


def test_ties_page_shows_a_verdict_that_depends_on_the_tie_order() -> None:
    at = start("ties", runs="qld,rrf", measures="MRR@K", baseline="qld")
    (verdicts,) = [d.value for d in at.dataframe if "changes" in d.value.columns]
    assert (
        verdicts.loc["rrf", "trec_eval"] == "n.s." and verdicts.loc["rrf", "optimistic"] == "better"
    )
    assert bool(verdicts.loc["rrf", "changes"])
    assert any("different verdict against qld" in shown(w) for w in at.warning)


@pytest.mark.slow
def test_metric_choice_page_answers_and_evidence() -> None:
    at = start("metric_choice", runs="bm25,dense,rrf,qld", measures="MRR,MRR@K,MAP,NDCG@K")
    assert not at.exception and not at.error
    power = next(d.value for d in at.dataframe if "power" in d.value.columns)
    # Cranfield: many relevant documents per query, graded, users guessed to stop: the measures
    # that honour all three; one leads, the one of those that separates the most run pairs
    advice = _advice(at)
    assert set(advice) == {"ERR@10", "RBP(rel=1,graded=True)"}
    assert all(power.loc[advice[0], "significant"] >= power.loc[m, "significant"] for m in advice)
    assert "run pairs" in shown(next(s for s in at.success if shown(s).startswith("Report")))
    next(r for r in at.radio if not r.disabled).set_value("yes").run()  # the first question
    assert at.query_params["one_answer"] == "yes"
    assert _advice(at) == ["ERR@10"]  # one answer, graded, users who stop
    _widget(at.radio, "Is relevance graded?").set_value("no").run()
    _widget(at.radio, "Do users stop at the first satisfying result?").set_value("no").run()
    assert set(_advice(at)) == {"RR@10", "Hits@10"}
    power = next(d.value for d in at.dataframe if "power" in d.value.columns)
    # the frame's measures, then the recommended ones not among them (each piece of advice has its
    # evidence)
    assert (
        list(power.index) == ["RR", "RR@10", "AP", "nDCG@10", "Hits@10"]
        and (power["pairs"] == 6).all()
    )
    heatmap = figure(at, 0)
    assert heatmap["data"][0]["x"] == list(power.index)
    assert heatmap["data"][0]["z"][2][2] == 1.0
    stability = next(d.value for d in at.dataframe if "swap rate" in d.value.columns)
    assert ((stability["swap rate"] >= 0) & (stability["swap rate"] <= 1)).all()


DL_HARD = ROOT / "sample_data" / "dl-hard-passage"


@pytest.mark.slow
def test_group_by_on_dl_hard_overview_and_macro_mean() -> None:
    at = start(
        collection="dl-hard-passage",
        runs="bm25,bm25_t5-zs",
        measures="NDCG@K,MRR",
        group_by="query_intent",
    )
    assert not at.exception and not at.error
    collection = open_collection(DL_HARD)
    runs = [collection.read_run(n) for n in ("bm25", "bm25_t5-zs")]
    frame = rv.evaluate(
        collection.read_qrels(),
        runs,
        ["nDCG@10"],
        groups=collection.groups,
        group_by="query_intent",
    ).to_frame()
    per_group = next(d.value for d in at.dataframe if "queries" in d.value.columns)
    for group, row in per_group.iterrows():
        expected = frame[(frame.group == group)].set_index("run").value
        assert row["bm25"] == pytest.approx(expected["bm25"], abs=1e-12)
    assert per_group["queries"].sum() == 50 and per_group.loc["attribute", "queries"] == 1
    bars = figure(at, 1)
    assert len(bars["data"]) == len(per_group) == 7
    assert any("queries grouped by query_intent" in shown(c) for c in at.caption)
    at.sidebar.selectbox[-1].set_value("macro").run()
    assert at.query_params["aggregate"] == "macro"
    means = at.dataframe[0].value
    assert means.loc["bm25", "nDCG@10"] == pytest.approx(per_group["bm25"].mean(), abs=1e-12)


@pytest.mark.slow
def test_group_by_on_deltas_significance_and_metric_choice() -> None:
    params = dict(
        collection="dl-hard-passage",
        runs="bm25,bm25_t5-zs",
        measures="NDCG@K,MRR",
        group_by="topic_domain",
    )
    at = start("deltas", baseline="bm25", run="bm25_t5-zs", **params)
    assert not at.exception
    legend = {t["name"] for t in figure(at, 0)["data"]}
    assert "health" in legend and len(legend) == 12
    wtl = next(d.value for d in at.dataframe if "wins" in d.value.columns)
    assert (
        wtl["queries"].sum() == 50
        and (wtl[["wins", "ties", "losses"]].sum(axis=1) == wtl["queries"]).all()
    )
    at = start("significance", baseline="bm25", **params)
    by_group = next(d.value for d in at.dataframe if "note" in d.value.columns)
    assert (
        by_group.set_index("group").loc["health", "n"] == 20
        and by_group.set_index("group").loc["health", "note"] == ""
    )
    assert "too few queries" in by_group.set_index("group").loc["travel", "note"]
    at = start("metric_choice", **params)
    agreement = next(d.value for d in at.dataframe if "kendall tau" in d.value.columns)
    assert agreement["queries"].sum() == 50


@pytest.mark.slow
def test_ties_page_follows_the_aggregate() -> None:
    params = dict(
        collection="dl-hard-passage",
        runs="bm25,bm25_t5-zs",
        measures="NDCG@K",
        group_by="topic_domain",
    )
    at = start("ties", aggregate="macro", trials="300", tie_seed="2", **params)
    assert not at.exception
    means = at.dataframe[1].value
    collection = open_collection(DL_HARD)
    frame = rv.evaluate(
        collection.read_qrels(),
        collection.read_run("bm25"),
        ["nDCG@10"],
        groups=collection.groups,
        group_by="topic_domain",
        aggregate="macro",
    ).to_frame()
    macro = frame[frame.group == "all"].value.iloc[0]
    assert means.loc["bm25", "trec_eval"] == pytest.approx(macro, abs=1e-12)
    assert means.loc["bm25", "random"] == pytest.approx(
        means.loc["bm25", "expected"], abs=5 * means.loc["bm25", "random std"] + 1e-12
    )
    plain = start("ties", trials="300", tie_seed="2", **params).dataframe[1].value
    assert plain.loc["bm25", "trec_eval"] != pytest.approx(macro, abs=1e-6)


def test_a_file_rewritten_with_its_old_modification_time_is_read_again(
    tmp_path, monkeypatch
) -> None:
    """rsync -t, cp -p and tar x keep the modification time; the stamp still changes (change
    time)."""
    import os
    import shutil

    folder = tmp_path / "stamped"
    (folder / "runs").mkdir(parents=True)
    te = ROOT / "tests" / "data" / "conformance" / "te_test"
    shutil.copy(te / "qrels.txt", folder / "qrels.txt")
    run = folder / "runs" / "a.txt"
    lines = (te / "run_STANDARD.txt").read_text().splitlines(keepends=True)
    run.write_text("".join(lines))
    (folder / "runs" / "b.txt").write_text("".join(lines))
    monkeypatch.setattr("sys.argv", ["app.py", "--data", str(folder)])
    at = start(collection="stamped", measures="AP")
    before = at.dataframe[0].value.loc["a", "AP"]
    assert before == at.dataframe[0].value.loc["b", "AP"]
    info = run.stat()
    reversed_scores = [
        f"{line.rsplit(' ', 2)[0]} {-float(line.split()[4])!r} tag\n" for line in lines
    ]
    text = "".join(reversed_scores)
    run.write_text(text[: info.st_size].ljust(info.st_size))  # the same size ...
    os.utime(run, ns=(info.st_atime_ns, info.st_mtime_ns))  # ... and the same modification time
    at.run()
    assert at.dataframe[0].value.loc["a", "AP"] != pytest.approx(before)
    assert at.dataframe[0].value.loc["b", "AP"] == pytest.approx(before)


def test_a_new_run_in_a_collection_folder_is_seen_without_a_restart(tmp_path, monkeypatch) -> None:
    import shutil

    folder = tmp_path / "growing"
    (folder / "runs").mkdir(parents=True)
    te = ROOT / "tests" / "data" / "conformance" / "te_test"
    shutil.copy(te / "qrels.txt", folder / "qrels.txt")
    shutil.copy(te / "run_STANDARD.txt", folder / "runs" / "a.txt")
    monkeypatch.setattr("sys.argv", ["app.py", "--data", str(folder)])
    at = start(collection="growing", measures="AP")
    assert list(at.dataframe[0].value.index) == ["a"]
    shutil.copy(te / "run_trunc.txt", folder / "runs" / "b.txt")
    at.query_params.pop("runs", None)
    at.run()
    assert "b" in at.sidebar.multiselect[0].options


def test_loaders_key_on_content_not_on_object_ids() -> None:
    """A freed run's id can be reused by the next run; a cache keyed on it would serve the old
    table."""
    import gc

    from rankviz.app.caches import cache, lineage

    qrels = rv.read_qrels(b"q 0 a 1\n", filename="q.txt")
    seen = []
    for score_a in (2.0, 0.5):
        data = f"q Q0 a 1 {score_a} t\nq Q0 b 2 1.0 t\n".encode()
        run = rv.read_run(data, filename="r.txt")
        table = lineage.ranking(
            f"file:r.txt:{cache.digest(data)}",
            "file:q.txt",
            TREC_EVAL,
            NO_CUT,
            lambda run=run: run,
            qrels,
        )
        seen.append((id(run), list(table.docids())))
        del run, table
        gc.collect()
    assert seen[0][1] == ["a", "b"] and seen[1][1] == ["b", "a"]


# --- a shared server: user text is never markup, bad values are messages -----------------------


@pytest.mark.slow
def test_a_hostile_collection_shows_its_text_literally(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr("sys.argv", ["app.py", "--data", str(hostile_collection(tmp_path))])
    params = {"collection": "hostile", "measures": "AP", "group_by": IMAGE}
    at = start("overview", **params)
    assert not at.exception
    assert_literal(at, LINK, f"{IMAGE} {FORMULA}")  # the name in the banner, the description
    at = start("deltas", baseline="b", run="[a](http:evil.example)", query="301", **params)
    assert not at.exception
    assert_literal(at, f"{LINK} <b>bold</b> {FORMULA}", f"Wins, ties and losses per {IMAGE}")
    at = start("significance", baseline="b", **params)
    assert_literal(at, f"Per {IMAGE}", "b")


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"k": LINK}, "k="),
        ({"k": "\u00b2"}, "k='\u00b2'"),
        ({"rel": "\u00b9"}, "rel='\u00b9'"),
        ({"runs": f"bm25,{IMAGE}"}, IMAGE),
        ({"ties": FORMULA}, FORMULA),
    ],
)
@pytest.mark.few
def test_a_hostile_link_parameter_is_a_literal_warning(params, expected) -> None:
    at = start(**params)
    assert not at.exception and at.warning
    assert any(expected in shown(w) for w in at.warning)
    assert_literal(at)


@pytest.mark.parametrize(
    ("page", "params", "expected"),
    [
        ("significance", {"test": "magic"}, "test='magic'"),
        ("significance", {"alpha": "2"}, "alpha='2'"),
        ("significance", {"n_resamples": "-5"}, "n_resamples='-5'"),
        ("significance", {"seed": "-1"}, "seed='-1'"),
        ("significance", {"baseline": "ghost"}, "baseline='ghost'"),
        ("deltas", {"run": "ghost"}, "run='ghost'"),
        ("deltas", {"query": "no-such-query"}, "query='no-such-query'"),
        ("ties", {"trials": "1e9"}, "trials='1e9'"),
    ],
)
@pytest.mark.few
def test_page_parameters_that_fall_back_warn_like_the_frame(page, params, expected) -> None:
    at = start(page, runs="bm25,dense,rrf", **params)
    assert not at.exception
    assert any(expected in shown(w) for w in at.warning), [shown(w) for w in at.warning]


def test_a_run_removed_while_the_app_runs_is_a_message_not_a_traceback(
    tmp_path, monkeypatch
) -> None:
    import shutil

    folder = tmp_path / "shrinking"
    (folder / "runs").mkdir(parents=True)
    te = ROOT / "tests" / "data" / "conformance" / "te_test"
    shutil.copy(te / "qrels.txt", folder / "qrels.txt")
    for name in ("a", "b"):
        shutil.copy(te / "run_STANDARD.txt", folder / "runs" / f"{name}.txt")
    monkeypatch.setattr("sys.argv", ["app.py", "--data", str(folder)])
    at = start(collection="shrinking", measures="AP")
    assert list(at.dataframe[0].value.index) == ["a", "b"]
    (folder / "runs" / "b.txt").unlink()
    at.run()
    assert not at.exception
    assert list(at.dataframe[0].value.index) == ["a"]
    assert any("'b'" in shown(w) for w in at.warning)  # the link's run is gone: said so


def test_the_shared_cache_is_bounded_in_bytes() -> None:
    import threading
    import time

    from rankviz.app.caches.cache import BoundedCache, nbytes

    cache = BoundedCache(lambda: 10 * 2**20)
    built = []
    for i in range(6):
        cache.get(i, lambda i=i: built.append(i) or np.zeros(2**20 // 8 * 3))  # 3 MiB each
        assert cache.size <= 10 * 2**20
    assert built == list(range(6))
    cache.get(5, lambda: built.append("again"))  # the most recent is kept
    cache.get(0, lambda: built.append("rebuilt") or np.zeros(1))  # the oldest was evicted
    assert built[-1] == "rebuilt" and "again" not in built
    # used, not kept
    assert cache.get("huge", lambda: np.zeros(2**21)) is not None and "huge" not in cache._store()
    table = rv.rank(
        rv.read_run(b"q Q0 a 1 1 t\n", filename="r"), rv.read_qrels(b"q 0 a 1\n", filename="q")
    )
    assert nbytes(table) >= table.pos.nbytes + table.grade.nbytes
    calls = []
    barrier = threading.Barrier(4)

    def slow() -> np.ndarray:
        calls.append(1)
        time.sleep(0.3)  # the others ask while this one builds
        return np.zeros(8)

    def ask() -> None:
        barrier.wait()
        cache.get("shared", slow)

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(calls) == 1  # one build for four sessions asking at once


def test_unjudged_page_shows_both_ends_and_the_documents_to_judge() -> None:
    at = start(
        "unjudged", collection="dl-hard-passage", runs="bm25,bm25_t5-zs", measures="nDCG@K,AP"
    )
    assert not at.exception and not at.error
    collection = open_collection(DL_HARD)
    runs = [collection.read_run(n) for n in ("bm25", "bm25_t5-zs")]
    settings = rv.EvalSettings(rel=2)
    plain = rv.evaluate(collection.read_qrels(), runs, ["nDCG@10"], settings).means()
    filled = rv.evaluate(
        collection.read_qrels(), runs, ["nDCG@10"], settings.replace(unjudged="relevant:2")
    ).means()
    means = next(d.value for d in at.dataframe if "filled" in d.value.columns)
    assert means["nonrelevant"].to_dict() == pytest.approx(plain["nDCG@10"].to_dict(), abs=1e-12)
    assert means["filled"].to_dict() == pytest.approx(filled["nDCG@10"].to_dict(), abs=1e-12)
    documents = next(d.value for d in at.dataframe if "ranked by" in d.value.columns)
    assert documents["runs"].iloc[0] == 2 and documents["open"].iloc[0].startswith("deltas?")
    assert f"query={documents['qid'].iloc[0]}" in documents["open"].iloc[0]
    assert [t["name"] for t in figure(at, 0)["data"]] == ["judged@10"]
    next(n for n in at.number_input if n.label == "Judge them at grade").set_value(1).run()
    assert at.query_params["grade"] == "1"
    again = next(d.value for d in at.dataframe if "filled" in d.value.columns)
    # judged 1, below the threshold 2: less gain
    assert (again["filled"] <= means["filled"] + 1e-12).all()


@pytest.mark.slow
def test_a_restarted_server_opens_the_collection_runs_from_the_disk_store(
    tmp_path, monkeypatch
) -> None:
    from rankviz.app.caches import cache

    monkeypatch.setenv("RANKVIZ_STORE", str(tmp_path))
    cache.SHARED.clear()
    first = start("overview")
    assert not first.exception
    stored = list((tmp_path / "runs").glob("*.arrow"))
    assert len(stored) == len(open_collection(CRANFIELD).run_paths)
    cache.SHARED.clear()  # as after a restart: nothing in memory

    def refuse(*args, **kwargs):
        raise AssertionError("a stored run was parsed again")

    monkeypatch.setattr(served, "served_run", refuse)
    monkeypatch.setattr(served, "large_run", refuse)
    again = start("overview")
    assert not again.exception
    assert len(first.dataframe) > 0
    assert again.dataframe[0].value.equals(first.dataframe[0].value)  # the same numbers
    cache.SHARED.clear()


# --- the meeting: state that follows the team, figures that read in any theme -----------------


def _app() -> AppTest:
    return AppTest.from_file(APP, default_timeout=120).run()


@pytest.mark.slow
def test_page_settings_survive_a_visit_to_another_page() -> None:
    at = _app().switch_page("rankviz/app/views/deltas.py").run()
    _widget(at.selectbox, "Baseline").set_value("dense").run()
    _widget(at.selectbox, "Measure").set_value("nDCG@10").run()
    _widget(at.selectbox, "Query").set_value("7").run()
    at.switch_page("rankviz/app/views/overview.py").run()
    assert at.header[0].value == "Overview"
    at.switch_page("rankviz/app/views/deltas.py").run()
    assert [_widget(at.selectbox, label).value for label in ("Baseline", "Measure", "Query")] == [
        "dense",
        "nDCG@10",
        "7",
    ]


@pytest.mark.slow
def test_the_significance_test_reaches_the_overview_and_ties_pages() -> None:
    at = _app().switch_page("rankviz/app/views/significance.py").run()
    _widget(at.selectbox, "Test").set_value("randomization").run()
    _widget(at.selectbox, "Correction").set_value("bonferroni").run()
    for page in ("rankviz/app/views/overview.py", "rankviz/app/views/ties.py"):
        at.switch_page(page).run()
        caption = " ".join(shown(c) for c in at.caption)
        assert "randomization test" in caption and "bonferroni correction" in caption, page
    at.switch_page("rankviz/app/views/significance.py").run()
    # back to the default: no page keeps the old test
    _widget(at.selectbox, "Test").set_value("t").run()
    at.switch_page("rankviz/app/views/overview.py").run()
    assert "t test" in " ".join(shown(c) for c in at.caption) and "test" not in at.query_params


def test_a_link_changed_from_outside_wins_over_the_widgets_state() -> None:
    """What browser Back does: the URL goes back to an earlier value, and the page follows it."""
    at = _deltas()
    _widget(at.selectbox, "Measure").set_value("nDCG@10").run()
    assert at.query_params["measure"] == "nDCG@10"
    at.query_params["measure"] = "AP"  # Back
    at.run()
    assert _widget(at.selectbox, "Measure").value == "AP" and at.query_params["measure"] == "AP"


@pytest.mark.slow
def test_the_chosen_measure_stays_when_k_or_the_threshold_changes() -> None:
    at = _deltas(measures="RR,nDCG@K,AP", measure="nDCG@K")
    assert _widget(at.selectbox, "Measure").value == "nDCG@K"
    at.sidebar.number_input[0].set_value(5).run()  # K
    assert _widget(at.selectbox, "Measure").value == "nDCG@K" and any(
        "nDCG@5" in shown(m) for m in at.markdown
    )
    at.sidebar.number_input[1].set_value(2).run()  # rel
    assert (
        _widget(at.selectbox, "Measure").value == "nDCG@K"
        and at.query_params["measure"] == "nDCG@K"
    )


@pytest.mark.slow
def test_one_colour_per_run_on_every_page() -> None:
    colours = {}
    for page in ("overview", "histograms", "ties", "unjudged"):
        at = start(page, runs="dense,rrf,bm25")
        spec = figure(at, 0)
        for trace in spec["data"]:
            name = trace.get("name")
            colour = (trace.get("marker") or {}).get("color") or (trace.get("line") or {}).get(
                "color"
            )
            if name in ("dense", "rrf", "bm25") and isinstance(colour, str):
                assert colours.setdefault(name, colour) == colour, (page, name)
        if page == "unjudged":  # judged bars: one bar per run, coloured by run
            bars = next(t for t in spec["data"] if t["type"] == "bar")
            for run, colour in zip(bars["x"], bars["marker"]["color"]):
                assert colours.setdefault(run, colour) == colour
    assert len(set(colours.values())) == 3
    # a run keeps its colour when others are left out: the colour follows the collection's run list
    alone = figure(start("overview", runs="rrf"), 0)
    assert next(t for t in alone["data"] if t["name"] == "rrf")["marker"]["color"] == colours["rrf"]


def test_histograms_bin_ranks_for_reading_and_keep_the_run_colours() -> None:
    at = start("histograms", runs="bm25,dense,rrf")
    first = figure(at, 0)
    bm25 = next(t for t in first["data"] if t["name"] == "bm25")
    assert bm25["x"][:7] == ["1", "2", "3", "4", "5", "6-10", "11-20"] and len(bm25["x"]) <= 14
    relevant = figure(at, 1)
    titles = [a["text"] for a in relevant["layout"]["annotations"]]
    assert titles and all(t.startswith("grade ") for t in titles)  # one panel per grade
    per_panel = {}
    for trace in relevant["data"]:
        per_panel.setdefault(trace.get("xaxis", "x"), []).append(trace["name"])
    # one bar per run in each
    assert all(sorted(names) == ["bm25", "dense", "rrf"] for names in per_panel.values())
    colours = {t["name"]: t["marker"]["color"] for t in relevant["data"]}
    assert len(set(colours.values())) == 3
    assert figure(at, 2)["layout"]["xaxis"]["type"] == "log"  # Hits@K over ranks 1, 10, 100 ...


def test_grouped_delta_bars_are_one_query_wide() -> None:
    at = start(
        "deltas",
        collection="dl-hard-passage",
        runs="bm25,bm25_t5-zs",
        baseline="bm25",
        run="bm25_t5-zs",
        group_by="topic_domain",
    )
    bars = figure(at, 0)
    assert len(bars["data"]) > 1 and all(t["width"] == 0.9 for t in bars["data"])
    assert bars["layout"]["barmode"] == "overlay"


@pytest.mark.slow
def test_every_measure_the_sidebar_offers_can_be_chosen() -> None:
    """Each family as the picker offers it (``@K`` only where the family takes a cutoff) is a
    measure the Overview shows, with no error."""
    from rankviz.app.frame.measure_picker import TEMPLATES

    at = start(measures=",".join(TEMPLATES))
    assert not at.exception and not at.error
    assert len(at.dataframe[0].value.columns) == len(TEMPLATES)


def test_a_link_may_name_measures_as_trec_eval_does() -> None:
    """``measures=P.5,10,ndcg_cut_10,map``: the link's commas split trec_eval's ``P.5,10`` too; the
    Overview shows P@5, P@10, nDCG@10 and AP, and no part of the link is left out."""
    at = start(measures="P.5,10,ndcg_cut_10,map")
    assert not at.exception
    assert not [w.value for w in at.warning if "Link parameter" in w.value]
    assert list(at.dataframe[0].value.columns) == ["P@5", "P@10", "nDCG@10", "AP"]


@pytest.mark.slow
def test_a_link_keeps_a_measure_whose_parameters_hold_commas() -> None:
    """A gain table and a measure of several parameters are one measure each, though the link's
    list is split at its commas; trec_eval's ``ndcg.1=3,2=9`` too. The Overview's values are the
    library's."""
    at = start(measures="nDCG(gains={1:3,2:9})@10,RBP(p=0.9,graded=True),ndcg.1=3,2=9")
    assert not at.exception
    assert not [w.value for w in at.warning if "Link parameter" in w.value]
    columns = ["nDCG(gains={1:3,2:9})@10", "RBP(rel=1,p=0.9,graded=True)", "nDCG(gains={1:3,2:9})"]
    table = at.dataframe[0].value
    assert list(table.columns) == columns
    study = rv.Study.open(rv.StudyRequest(CRANFIELD, list(table.index), measures=columns))
    for measure in columns:
        assert table[measure].tolist() == pytest.approx(
            [study.evaluation().mean(measure, run) for run in table.index], abs=1e-12
        )


def test_delta_bars_are_coloured_by_the_sign_of_the_delta() -> None:
    """A gain blue, a loss red, no change grey, as Plotly draws the bars' colour scale."""
    from plotly.colors import hex_to_rgb, sample_colorscale

    from rankviz.plots.style import EVEN, GAIN, LOSS

    at = start("deltas", runs="bm25,dense", baseline="bm25", run="dense")
    bar = figure(at, 0)["data"][0]
    marker = bar["marker"]
    low, high = marker["cmin"], marker["cmax"]
    drawn = sample_colorscale(
        marker["colorscale"], [(c - low) / (high - low) for c in marker["color"]]
    )
    wanted = {1: GAIN, -1: LOSS, 0: EVEN}
    deltas = bar["y"]
    assert {d > 0 for d in deltas} == {True, False}  # gains and losses both drawn
    for delta, colour in zip(deltas, drawn, strict=True):
        sign = (delta > 0) - (delta < 0)
        assert colour == "rgb({}, {}, {})".format(*hex_to_rgb(wanted[sign]))


@pytest.mark.slow
def test_grade_cells_and_highlights_set_their_text_colour() -> None:
    from rankviz.app.widgets.option_widgets import grade_style

    for grade in ("unjudged", "0", "1", "3"):
        style = grade_style(grade, 2)
        # never the theme's text on a fixed background
        assert "background-color" in style and "; color: #" in style
    for page in ("overview", "deltas", "histograms", "significance"):
        layout = figure(start(page, runs="bm25,dense"), 0)["layout"]
        template = layout.get("template", {}).get("layout", {})
        # no background of our own
        assert "paper_bgcolor" not in layout and "plot_bgcolor" not in layout
        assert (
            template.get("paper_bgcolor") != "white" and template.get("plot_bgcolor") != "white"
        ), page


def test_a_link_naming_a_run_not_here_says_uploads_are_not_shared() -> None:
    at = start(runs="bm25,my-upload")
    text = " ".join(shown(w) for w in at.warning)
    assert "my-upload" in text and "not shared" in text
    assert list(at.dataframe[0].value.index) == ["bm25"]


def test_projector_mode_folds_the_sidebar_and_enlarges_the_text() -> None:
    at = start("deltas", present="1", baseline="bm25", run="dense")
    projector = next(t for t in at.sidebar.toggle if t.key.startswith("frame.present"))
    assert not at.exception and projector.value is True
    # our constant CSS, as st.html
    assert any("font-size: 20px" in h.proto.body for h in at.get("html"))
    projector.set_value(False).run()
    assert "present" not in at.query_params and not any(
        "font-size: 20px" in h.proto.body for h in at.get("html")
    )


def test_significance_headers_and_p_values_read_as_words() -> None:
    from rankviz.settings.numbers import p_text

    at = start("significance", runs="bm25,dense,rrf", test="randomization", n_resamples="1000")
    config = json.loads(at.dataframe[0].proto.columns)
    assert config["p_adjusted"]["label"] == "adjusted p" and config["delta"]["label"].startswith(
        "Δ"
    )
    caption = " ".join(shown(c) for c in at.caption)
    assert "verdict is read on the adjusted p" in caption and "not adjusted" in caption
    assert "corrected over all 3 pairs" in caption
    assert (
        p_text(9.999e-05) == "< 1e-4"
        and p_text(0.0123456) == "0.01235"
        and p_text(float("nan")) == "n/a"
    )


def test_ties_page_explains_itself_and_starts_with_the_most_tied_run() -> None:
    at = start("ties", runs="bm25,rrf")
    assert any("Tie sensitivity" in shown(m) for m in at.markdown)
    assert _widget(at.selectbox, "Run").value == "rrf"  # bm25 has no ties here; rrf has


@pytest.mark.slow
def _advice(at) -> list[str]:
    """The Metric choice page's measures that fit the task: the one recommended, then the others
    in the order shown."""
    lead = next(shown(s) for s in at.success if shown(s).startswith("Report "))
    others = [shown(m) for m in at.markdown if m.value.startswith("- **")]
    return [
        lead.removeprefix("Report ").split(":")[0],
        *(line.removeprefix("- **").split("**")[0] for line in others),
    ]


@pytest.mark.slow
def test_metric_choice_head_to_head_and_evidence_for_every_advice() -> None:
    at = start("metric_choice", runs="bm25,dense,rrf,tfidf", measures="RR@10,nDCG@10")
    assert not at.exception
    assert [_widget(at.selectbox, label).value for label in ("Measure A", "Measure B")] == [
        "RR@10",
        "nDCG@10",
    ]
    lines = [
        shown(m) for m in at.markdown if "Kendall's tau" in shown(m) or "separates" in shown(m)
    ]
    assert any("RR@10 and nDCG@10 order the runs" in line for line in lines)
    power = next(d.value for d in at.dataframe if "power" in d.value.columns)
    advice = _advice(at)
    assert advice and set(advice) <= set(power.index)  # every recommended measure has its evidence
    caption = " ".join(shown(c) for c in at.caption)
    assert "guessed from the qrels" in caption and "assumed" in caption
    # a changed answer: no new computation needed
    _widget(at.radio, "Is relevance graded?").set_value("no").run()
    assert not at.exception and "graded" in at.query_params


def test_the_unjudged_pages_links_open_the_baseline_against_a_run_that_ranks_the_document() -> None:
    from urllib.parse import parse_qs, urlsplit

    at = start("unjudged", runs="bm25,dense,rrf", baseline="rrf", measures="AP")
    assert not at.exception
    documents = next(d.value for d in at.dataframe if "ranked by" in d.value.columns)
    for link, ranked_by in zip(
        documents["open"].head(30), documents["ranked by"].head(30), strict=True
    ):
        params = {k: v[0] for k, v in parse_qs(urlsplit(link).query).items()}
        assert params["baseline"] == "rrf" and params["run"] != "rrf"
        others = [r for r in ranked_by.split(", ") if r != "rrf"]
        assert params["run"] == (others[0] if others else "bm25")


def test_a_server_open_beyond_its_machine_says_so_on_every_page() -> None:
    """Listening on every interface without sign-in: a banner says who can record what."""
    from streamlit import config

    before = config.get_option("server.address")
    try:
        config.set_option("server.address", "0.0.0.0")
        for page in ("overview", "across"):
            at = start(page)
            assert not at.exception
            assert any("anyone who reaches this server" in shown(w) for w in at.warning), page
        config.set_option("server.address", "127.0.0.1")
        assert not any("anyone who reaches" in shown(w) for w in start("overview").warning)
    finally:
        config.set_option("server.address", before)


def test_the_overviews_ranks_follow_the_measure_the_other_pages_show() -> None:
    at = start(runs="bm25,dense,rrf", measures="RR@10,AP", measure="AP")
    assert next(s for s in at.selectbox if s.label == "Ranks by").value == "AP"
    plain = start(runs="bm25,dense,rrf", measures="RR@10,AP")
    assert next(s for s in plain.selectbox if s.label == "Ranks by").value == "RR@10"


@pytest.mark.slow
def test_the_sidebars_conventions_fold_behind_a_line_that_says_which_are_not_trec_evals() -> None:
    """The Cranfield sample takes trec_eval's conventions: folded, "trec_eval's"; a link's tie
    policy and the DL-HARD sample's relevance grade are said on the line, which opens; a value
    changed in it is said at once."""

    def folded(at) -> tuple[str, bool]:
        box = next(e for e in at.sidebar.expander if e.label.startswith("Conventions"))
        return box.label, box.proto.expanded

    assert folded(start(collection="cranfield")) == ("Conventions: trec_eval's", False)
    at = start(collection="dl-hard-passage", ties="pessimistic")
    assert folded(at) == (
        "Conventions: relevant from grade 2; tie policy pessimistic",
        True,
    )
    plain = start(collection="cranfield")
    plain.sidebar.selectbox(
        key=next(s.key for s in plain.sidebar.selectbox if s.value == "trec_eval")
    ).set_value("optimistic").run()
    assert folded(plain) == ("Conventions: tie policy optimistic", True)


def test_each_chosen_runs_chip_is_marked_in_the_runs_colour() -> None:
    """The chips stand in the order chosen; each is marked in the colour its run has in every
    figure (by its place among all the runs offered)."""
    from rankviz.plots import run_colours

    at = start(collection="cranfield", runs="dense,bm25")
    offered = at.sidebar.multiselect[0].options
    colours = run_colours(offered)
    css = next(h.proto.body for h in at.get("html") if "data-tag-index" in h.proto.body)
    rules = re.findall(r"\[data-tag-index='(\d)'\] \{ border-left: 0.45rem solid (#\w+)", css)
    assert rules == [("0", colours["dense"]), ("1", colours["bm25"])]
    assert "<" not in css.removeprefix("<style>").removesuffix("</style>")


def test_a_measure_whose_judgments_the_collection_lacks_is_refused_in_one_line() -> None:
    """alpha-nDCG@20 on Cranfield (no subtopics.txt): the frame says what it needs, once, before
    any page computes (not as a run that cannot be read)."""
    at = start(measures="AP,alpha-nDCG@20")
    assert not at.exception
    said = [e.value for e in at.error]
    assert len(said) == 1 and "needs diversity qrels" in said[0]
    assert not said[0].startswith("A run cannot be read")
