"""``--correct-with``: each corrected mean and delta of the command line and the API is ppi_py's
PPI++ on the per-query values of the two plain evaluations (UMBRELA's judgments, people's), and on
TREC RAG 2024's real judgments the interval holds people's mean in about 95% of random draws of the
human-judged topics."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from conftest import ROOT, run_cli

import rankviz as rv
from rankviz.analyses.prediction_powered import corrected_mean

RAG = ROOT / "sample_data" / "rag24-judges"
MEASURES = ["nDCG@10", "P@10", "AP"]


@pytest.fixture(scope="module")
def plain() -> dict[str, rv.Evaluation]:
    """The runs' per-query values under UMBRELA's judgments and under people's, plainly."""
    return {
        judge: rv.Study.open(
            rv.StudyRequest(RAG, measures=MEASURES, qrels_in_force=judge)
        ).evaluation()
        for judge in ("umbrela", "file")
    }


def split(llm: pd.Series, human: pd.Series) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    judged = llm.index.isin(human.index)
    return human[llm.index[judged]].to_numpy(), llm[judged].to_numpy(), llm[~judged].to_numpy()


# over a second: test_prediction_powered's estimate against ppi_py and the collections' means
# below are its quicker siblings
@pytest.mark.slow
def test_evaluate_prints_ppi_pys_means_and_intervals(plain) -> None:
    from ppi_py import ppi_mean_ci, ppi_mean_pointestimate  # 2 s to import: only where asked

    done = run_cli(
        "evaluate", str(RAG), "--qrels", "umbrela", "--correct-with", "file",
        *(f for m in MEASURES for f in ("-m", m)), "--format", "tsv",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    printed = pd.read_csv(io.StringIO(done.stdout), sep="\t")
    assert len(printed) == 4 * len(MEASURES) and set(printed["qid"]) == {"all"}
    for row in printed.itertuples():
        y, yhat, rest = split(
            plain["umbrela"].per_query(row.measure, row.run),
            plain["file"].per_query(row.measure, row.run),
        )
        assert len(y) == row.human_judged == 43 and len(y) + len(rest) == row.queries == 301
        assert row.value == pytest.approx(ppi_mean_pointestimate(y, yhat, rest).item(), abs=1e-9)
        low, high = ppi_mean_ci(y, yhat, rest, alpha=0.05)
        assert (row.ci_low, row.ci_high) == pytest.approx((low.item(), high.item()), abs=1e-9)
        assert row.llm_value == pytest.approx(plain["umbrela"].mean(row.measure, row.run))
        assert row.correction == pytest.approx((y - yhat).mean(), abs=1e-12)


@pytest.mark.slow
def test_compare_prints_ppi_pys_deltas_with_holms_adjustment(plain) -> None:
    from ppi_py import ppi_mean_ci, ppi_mean_pointestimate  # 2 s to import: only where asked

    done = run_cli(
        "compare", str(RAG), "--qrels", "umbrela", "--correct-with", "file",
        *("-m", "nDCG@10", "--format", "tsv", "--confidence-level", "0.9"),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    printed = pd.read_csv(io.StringIO(done.stdout), sep="\t")
    assert set(printed["baseline"]) == {"next20"} and len(printed) == 3
    for row in printed.itertuples():
        llm, human = (
            plain[j].per_query("nDCG@10", row.run) - plain[j].per_query("nDCG@10", "next20")
            for j in ("umbrela", "file")
        )
        y, yhat, rest = split(llm, human)
        assert row.delta == pytest.approx(ppi_mean_pointestimate(y, yhat, rest).item(), abs=1e-9)
        low, high = ppi_mean_ci(y, yhat, rest, alpha=0.1)
        assert (row.ci_low, row.ci_high) == pytest.approx((low.item(), high.item()), abs=1e-9)
    from statsmodels.stats.multitest import multipletests

    holm = multipletests(printed["p_value"], method="holm")[1]
    assert printed["p_adjusted"].to_numpy() == pytest.approx(holm, rel=1e-12)
    expected = [
        ("better" if d > 0 else "worse") if p < 0.05 else "n.s."
        for d, p in zip(printed["delta"], printed["p_adjusted"], strict=True)
    ]
    assert printed["verdict"].tolist() == expected


def test_the_collections_name_a_qrels_file_and_dir_name_give_the_same_means() -> None:
    by_name = rv.Study.open(
        rv.StudyRequest(RAG, ["rag24"], measures=["nDCG@10"], qrels_in_force="umbrela",
                        correct_with="file")
    )  # fmt: skip
    by_path = rv.Study.open(
        rv.StudyRequest(RAG, ["rag24"], measures=["nDCG@10"], qrels_in_force="umbrela",
                        correct_with=RAG / "qrels.txt")
    )  # fmt: skip
    by_source = rv.Study.open(
        rv.StudyRequest(RAG, ["rag24"], measures=["nDCG@10"], qrels_in_force="umbrela",
                        correct_with=f"{RAG}:file")
    )  # fmt: skip
    first, second, third = (
        s.ask(rv.CORRECTED_MEANS).to_frame() for s in (by_name, by_path, by_source)
    )
    pd.testing.assert_frame_equal(first, second)
    pd.testing.assert_frame_equal(first, third)
    assert first.loc[0, "human_judged"] == 43


@pytest.mark.few
@pytest.mark.parametrize(
    ("extra", "said"),
    [
        (["evaluate", "--per-query"], "without --per-query"),
        (["compare", "--test", "wilcoxon"], "without --test"),
        (["evaluate", "--correct-with", "nosuch"], "no such file"),
    ],
)
def test_what_a_correction_cannot_give_is_refused_in_one_line(extra, said) -> None:
    command, *flags = extra
    if "--correct-with" not in flags:
        flags += ["--correct-with", "file"]
    done = run_cli(command, str(RAG), "--qrels", "umbrela", *flags, "-m", "nDCG@10")
    assert done.returncode == 2 and said in done.stderr
    assert len(done.stderr.strip().splitlines()) <= 2  # the qrels' sentence, the refusal


@pytest.mark.slow
def test_a_command_that_does_not_correct_says_so() -> None:
    done = run_cli("ties", str(RAG), "--qrels", "umbrela", "--correct-with", "file")
    assert done.returncode == 0
    assert "ties shows the numbers of the judgments in force alone, uncorrected" in done.stderr


@pytest.mark.slow
def test_on_rag24_the_interval_holds_peoples_mean_over_the_judged_topics(plain) -> None:
    """The 43 topics both people and UMBRELA judged are the population: 2,000 draws of 15 of them
    as human-judged (the other 28 with UMBRELA's values alone); the 95% interval holds people's
    mean over all 43 in at least 93% of draws for every run (about 95% asked; the binomial sd is
    0.5%), and is narrower on average than the normal interval of the 15 alone."""
    rng = np.random.default_rng(7)
    for run in ("rag24", "umbrela-reranked"):
        llm_all, human_all = (plain[j].per_query("nDCG@10", run) for j in ("umbrela", "file"))
        llm = llm_all[human_all.index].to_numpy()
        human = human_all.to_numpy()
        truth, held, width, classical = human.mean(), 0, 0.0, 0.0
        for _ in range(2000):
            sample = rng.choice(43, 15, replace=False)
            rest = np.setdiff1d(np.arange(43), sample)
            low, high = corrected_mean(human[sample], llm[sample], llm[rest]).confidence_interval()
            held += low <= truth <= high
            width += high - low
            classical += 2 * 1.96 * human[sample].std(ddof=1) / np.sqrt(15)
        assert held / 2000 >= 0.93, (run, held / 2000)
        assert width < classical, run


def test_the_queries_for_a_margin_are_printed_and_asked_only_with_a_correction() -> None:
    done = run_cli(
        "evaluate", str(RAG), "rag24", "--qrels", "umbrela", "--correct-with", "file",
        "-m", "nDCG@10", "--target-moe", "0.03", "--format", "tsv",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    row = pd.read_csv(io.StringIO(done.stdout), sep="\t").iloc[0]
    study = rv.Study.open(
        rv.StudyRequest(RAG, ["rag24"], measures=["nDCG@10"], qrels_in_force="umbrela",
                        correct_with="file")
    )  # fmt: skip
    (mean,) = study.ask(rv.CORRECTED_MEANS).means.values()
    assert row.queries_for_moe == mean.queries_for(0.03) > 43
    plain = run_cli("evaluate", str(RAG), "--target-moe", "0.03", "-m", "nDCG@10")
    assert plain.returncode == 2 and "--target-moe goes with --correct-with" in plain.stderr
