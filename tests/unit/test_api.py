"""The Python API a notebook user meets: inputs from DataFrames and dicts, one-call comparisons,
settings."""

from __future__ import annotations

from collections import namedtuple

import numpy as np
import pandas as pd
import pytest
from conftest import CRANFIELD, TE
from scipy import stats

import rankviz as rv
from rankviz.analyses.pair_tests import compare_runs
from rankviz.analyses.verdicts import verdicts


@pytest.fixture(scope="module")
def cranfield():
    collection = rv.open_collection(CRANFIELD)
    return collection.read_qrels(), [collection.read_run(n) for n in ("bm25", "dense", "rrf")]


def test_runs_and_qrels_from_frames_dicts_and_tuples_evaluate_like_files() -> None:
    qrels, run = rv.read_qrels(TE / "qrels.txt"), rv.read_run(TE / "run_STANDARD.txt")
    expected = rv.evaluate(qrels, run, ["AP", "nDCG@10"]).means()
    frame = run.to_frame()
    judged = qrels.to_frame()
    by_dict = {q: dict(zip(g.docid, g.score)) for q, g in frame.groupby("qid")}
    grades = {q: dict(zip(g.docid, g.rel)) for q, g in judged.groupby("qid")}
    ScoredDoc = namedtuple("ScoredDoc", "query_id doc_id score")
    Qrel = namedtuple("Qrel", "query_id doc_id relevance")
    ir_measures_names = judged.rename(
        columns={"qid": "query_id", "docid": "doc_id", "rel": "relevance"}
    )
    tuples = [ScoredDoc(q, d, s) for q, d, s in zip(frame.qid, frame.docid, frame.score)]
    inputs = [
        (rv.qrels_from_frame(ir_measures_names), rv.run_from_frame(frame, name="run_STANDARD")),
        (rv.qrels_from_dict(grades), rv.run_from_dict(by_dict, name="run_STANDARD")),
        (
            [Qrel(*r) for r in judged.itertuples(index=False)],
            rv.as_run(tuples, name="run_STANDARD"),
        ),
    ]
    for made_qrels, made_run in inputs:
        got = rv.evaluate(made_qrels, made_run, ["AP", "nDCG@10"]).means()
        pd.testing.assert_frame_equal(got, expected, check_exact=False, atol=1e-15)


def test_frames_are_checked_like_files() -> None:
    with pytest.raises(rv.FormatError, match="missing column 'score'"):
        rv.run_from_frame(pd.DataFrame({"qid": ["q"], "docid": ["d"]}))
    with pytest.raises(rv.FormatError, match="not a finite number"):
        rv.run_from_dict({"q": {"d": float("nan")}})
    with pytest.raises(rv.FormatError, match="not an integer"):
        rv.qrels_from_dict({"q": {"d": 1.5}})
    with pytest.raises(rv.FormatError, match="twice"):
        rv.run_from_frame(
            pd.DataFrame({"qid": ["q", "q"], "docid": ["d", "d"], "score": [1.0, 2.0]})
        )


def test_compare_in_one_call_matches_scipy(cranfield) -> None:
    qrels, runs = cranfield
    evaluation = rv.evaluate(qrels, runs, ["AP", "nDCG@10"])
    result = rv.compare(evaluation, test="t", correction="none")
    assert list(zip(result.table.measure, result.table.run)) == [
        ("AP", "dense"),
        ("AP", "rrf"),
        ("nDCG@10", "dense"),
        ("nDCG@10", "rrf"),
    ]
    matrix = evaluation.matrix("AP")
    reference = stats.ttest_rel(matrix["rrf"], matrix["bm25"])
    assert result.pvalue[1] == pytest.approx(reference.pvalue, rel=1e-12)
    assert result.statistic[1] == pytest.approx(reference.statistic, rel=1e-12)
    low, high = result.confidence_interval()
    interval = reference.confidence_interval(0.95)
    assert (low[1], high[1]) == pytest.approx((interval.low, interval.high), rel=1e-12)
    settings = rv.TestSettings(test="randomization", n_resamples=2000, seed=3, baseline="dense")
    first = rv.compare(evaluation, settings).table
    assert first.equals(rv.compare(evaluation, settings).table)  # seeded: reproducible
    other = rv.compare(evaluation, settings.replace(seed=4)).table
    # and the seed is what draws the resamples
    assert not np.array_equal(first.p_value, other.p_value)


def test_verdicts_follow_the_adjusted_p_and_the_sign() -> None:
    """Ten queries: one run better on every query, one the same, one worse on every query."""
    base = np.linspace(0.1, 0.6, 10)
    noise = np.array([0.01, -0.01, 0.02, 0.0, -0.02, 0.01, 0.0, -0.01, 0.02, 0.01])
    matrix = pd.DataFrame(
        {
            "base": base,
            "better": base + 0.2 + noise,
            "same": base + noise,
            "worse": base - 0.2 + noise,
        }
    )
    table = compare_runs(matrix, measure="AP", test="t", correction="holm")
    assert verdicts(table, alpha=0.05) == ["better", "n.s.", "worse"]
    assert verdicts(table, alpha=1e-300) == ["n.s.", "n.s.", "n.s."]


def test_settings_are_validated_values() -> None:
    with pytest.raises(rv.OptionError, match="choose one of"):
        rv.EvalSettings(ties="alphabetical")
    with pytest.raises(ValueError, match="needs a group column"):
        rv.EvalSettings(aggregate="macro")
    settings = rv.EvalSettings(rel=2, ties="expected")
    assert settings.replace(rel=3).rel == 3 and settings.rel == 2
    assert rv.EvalSettings.from_url(settings.to_text()) == settings
    warned = []
    assert (
        rv.EvalSettings.from_url({"rel": "two"}, on_error=warned.append) == rv.EvalSettings()
        and "rel" in warned[0]
    )


def test_an_evaluation_answers_every_question_from_one_object(cranfield) -> None:
    qrels, runs = cranfield
    evaluation = rv.evaluate(qrels, runs, ["RR@10", "AP"], rel=2)
    assert [str(m) for m in evaluation.measures] == ["RR(rel=2)@10", "AP(rel=2)"]
    means = evaluation.means()
    assert means.loc["bm25", "AP(rel=2)"] == pytest.approx(
        evaluation.matrix("AP").bm25.mean(), abs=1e-15
    )
    summary = evaluation.summary("AP")
    half = (
        stats.t.ppf(0.975, len(evaluation.qids) - 1)
        * evaluation.matrix("AP").bm25.std(ddof=1)
        / np.sqrt(len(evaluation.qids))
    )
    assert summary.loc["bm25", "ci_high"] - summary.loc["bm25", "mean"] == pytest.approx(
        half, rel=1e-12
    )
    assert any("relevant: grade >= 2" in line for line in evaluation.conventions())


def test_the_values_an_evaluation_hands_out_cannot_change_it(cranfield) -> None:
    """Every query answered: run_values hands out the evaluation's own ids (read-only, not
    gathered again) and a copy of the values; the matrix and a run's values are labelled by
    those ids, whatever pandas' default string dtype."""
    qrels, runs = cranfield
    evaluation = rv.evaluate(qrels, runs, ["AP"])
    qids, values = evaluation.run_values("AP", "bm25")
    assert qids.tolist() == evaluation.qids.tolist()
    with pytest.raises(ValueError, match="read-only"):
        qids[0] = "changed"
    mean = evaluation.mean("AP", "bm25")
    values[:] = 7.0
    assert evaluation.mean("AP", "bm25") == mean != 7.0
    matrix, series = evaluation.matrix("AP"), evaluation.per_query("AP", "bm25")
    assert matrix.index.dtype == series.index.dtype == object
    assert matrix.index.tolist() == series.index.tolist() == evaluation.qids.tolist()
    assert matrix.loc[evaluation.qids[3], "bm25"] == series.iloc[3]


def test_ir_measures_runs_and_qrels_as_read_are_taken_or_refused_with_a_rankviz_error() -> None:
    """docs/python.md promises ir_measures' named tuples: a dict of runs read by ``read_trec_run``
    (its generators, or lists of them) and the generator alone raised a raw AttributeError."""
    import ir_measures

    qrels, path = TE / "qrels.txt", TE / "run_STANDARD.txt"
    expected = rv.evaluate(qrels, [path], ["AP", "P@10"]).means().loc["run_STANDARD"]
    given = {
        "a dict of generators": {"run_STANDARD": ir_measures.read_trec_run(str(path))},
        "a dict of lists": {"run_STANDARD": list(ir_measures.read_trec_run(str(path)))},
        "the generator": ir_measures.read_trec_run(str(path)),
    }
    for what, runs in given.items():
        means = (
            rv.evaluate(ir_measures.read_trec_qrels(str(qrels)), runs, ["AP", "P@10"])
            .means()
            .iloc[0]
        )
        assert means.to_dict() == pytest.approx(expected.to_dict(), abs=1e-12), what
    with pytest.raises(
        rv.RankvizError, match="item 1 is a str, not a tuple with fields query_id, doc_id, score"
    ):
        rv.evaluate(qrels, {"x": ["1 Q0 d 1 1.0 x"]}, ["AP"])


def test_a_study_shows_itself_in_a_notebook_in_a_few_lines() -> None:
    """``rv.Study.open(...)`` showed a 30,281-character repr (the collection's queries and
    texts)."""
    study = rv.Study.open(rv.StudyRequest(CRANFIELD))
    assert len(repr(study)) < 2000 and "Cranfield" in repr(study)
    assert repr(study.collection).startswith("Collection(") and "\n" not in repr(study.collection)


def test_trec_evals_spellings_with_parameters_read_in_a_links_list() -> None:
    """A link's ``measures=`` is split at its commas: trec_eval's parameter lists join again."""
    from rankviz.measures import split_names

    items = "Rprec_mult.0.5,2,utility.2,-1,0,0,set_F.0.5,AP,P.5,10,set_relative_P".split(",")
    assert split_names(items) == [
        "Rprec(mult=0.5)",
        "Rprec(mult=2)",
        "Utility(rel_ret=2,nonrel_ret=-1,rel_nonret=0,nonrel_nonret=0)",
        "SetF(beta=0.5)",
        "AP",
        "P@5",
        "P@10",
        "set_relative_P",
    ]
    assert [str(rv.parse(name)) for name in ("set_relative_P", "set_F.0.5")] == [
        "SetP(relative=True)",
        "SetF(beta=0.5)",
    ]
    from rankviz.measures import expand

    assert [str(m) for m in expand("Rprec_mult")][:2] == ["Rprec(mult=0.2)", "Rprec(mult=0.4)"]


def test_a_sample_is_found_from_any_folder_and_an_unknown_one_is_named(
    tmp_path, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert rv.Study.open(rv.StudyRequest(rv.sample_path("cranfield"), measures=["AP"])).run_names
    assert (rv.sample_path("rag-nuggets") / "scores.tsv").is_file()
    with pytest.raises(
        rv.CollectionError, match="no sample collection 'msmarco'; there are: .*cranfield"
    ):
        rv.sample_path("msmarco")


def test_the_conventions_unlike_trec_evals_are_those_an_option_changed() -> None:
    """What the app's one line counts: none under trec_eval's defaults, one line per option moved
    from them (a cut at K adds its own)."""
    assert rv.EvalSettings().unlike_trec_eval() == []
    moved = rv.EvalSettings.from_args({"rel": 2, "ties": "random", "gmax": 4})
    unlike = moved.unlike_trec_eval()
    assert len(unlike) == 2
    assert unlike[0].startswith("ties: ") and unlike[1].startswith("relevant: grade >= 2")
    assert set(unlike) <= set(moved.conventions())
