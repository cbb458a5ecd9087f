"""``rankviz judgments sample``: the queries drawn for people to judge, kept in the meeting's
record, and the corrections that weight them: uniform draws give ppi_py's PPI++ on the drawn
queries; draws by uncertainty the inverse-probability estimate, checked on a case computed by
hand and by its coverage over many draws."""

from __future__ import annotations

import gzip
import io
import shutil

import numpy as np
import pandas as pd
import pytest
from conftest import ROOT, run_cli

import rankviz as rv
from rankviz.analyses.prediction_powered import drawn_corrected_mean
from rankviz.analyses.query_draw import QueryDraw, draw_queries, inclusion_probabilities
from rankviz.study import MeetingStore

RAG = ROOT / "sample_data" / "rag24-judges"


def test_a_uniform_draw_is_the_seeds_and_each_query_as_likely() -> None:
    qids = [f"q{i}" for i in range(100)]
    first, again = (draw_queries(qids, 10, seed=3) for _ in range(2))
    assert first == again and len(first.probabilities) == 10
    assert set(first.probabilities.values()) == {0.1}
    assert draw_queries(qids, 10, seed=4).probabilities != first.probabilities
    assert QueryDraw.from_json(first.to_json()) == first


def test_uncertainty_favours_spread_but_leaves_no_query_out() -> None:
    spread = np.array([0.0, 0.0, 1.0, 3.0, 50.0])
    chance = inclusion_probabilities(spread, 2)
    assert chance.sum() == pytest.approx(2) and chance.max() <= 1
    assert chance[4] == 1.0  # capped, its excess shared by the others
    assert chance[0] == chance[1] > 0 and chance[0] < chance[2] < chance[3]


def test_the_inverse_probability_estimate_on_a_case_computed_by_hand() -> None:
    """Three queries; the LLM says 0.5, 0.2, 0.8 (mean 0.5); people judged the first (drawn with
    chance 0.5: 0.9, a difference of 0.4) and the third (chance 0.25: 0.6, -0.2). Estimate:
    0.5 + (0.4 / 0.5 - 0.2 / 0.25) / 3 = 0.5; variance: ((0.5 / 0.25) 0.16 + (0.75 / 0.0625)
    0.04) / 9 = (0.32 + 0.48) / 9."""
    found = drawn_corrected_mean(
        np.array([0.9, 0.6]), np.array([0.5, 0.8]), np.array([0.5, 0.25]), np.array([0.5, 0.2, 0.8])
    )
    assert found.statistic == pytest.approx(0.5)
    assert found.standard_error == pytest.approx(np.sqrt(0.8 / 9))
    assert found.llm_mean == pytest.approx(0.5)


@pytest.mark.slow
def test_draws_by_uncertainty_hold_the_human_mean_in_95_percent() -> None:
    """2,000 Poisson draws (about 40 of 400 queries, more where a spread is larger): the 95%
    interval holds people's mean over the 400 in 93% to 98% of draws (about 95%; the binomial sd
    is 0.5%)."""
    rng = np.random.default_rng(11)
    size, held = 400, 0
    for _ in range(2000):
        human = rng.beta(2, 3, size)
        llm = np.clip(0.8 * human + 0.18 + rng.normal(0, 0.12, size), 0, 1)
        chance = inclusion_probabilities(np.abs(rng.normal(0, 1, size)), 40)
        drawn = rng.random(size) < chance
        low, high = drawn_corrected_mean(
            human[drawn], llm[drawn], chance[drawn], llm
        ).confidence_interval()
        held += low <= human.mean() <= high
    print(f"held {held / 2000:.3f}")
    assert 0.93 <= held / 2000 <= 0.98


@pytest.fixture
def forty_three(tmp_path):
    """The RAG sample cut to the 43 topics people judged: UMBRELA's labels of them as the source
    in force, people's as the qrels file."""
    folder = tmp_path / "rag43"
    shutil.copytree(RAG, folder)
    human = set((RAG / "qrels.txt").read_text().split()[::4])
    with gzip.open(RAG / "qrels.umbrela.txt.gz", "rt") as handle:
        kept = [line for line in handle if line.split()[0] in human]
    (folder / "qrels.umbrela.txt.gz").unlink()
    with gzip.open(folder / "qrels.umbrela.txt.gz", "wt") as sink:
        sink.writelines(kept)
    return folder


def test_a_uniform_draw_kept_in_the_record_is_what_the_correction_reads(forty_three) -> None:
    from ppi_py import ppi_mean_ci, ppi_mean_pointestimate  # 2 s to import: only where asked

    drawn = run_cli(
        "judgments", "sample", str(forty_three), "--qrels", "umbrela", "--queries", "20",
        "--seed", "5", "--drawn-by", "Ann",
    )  # fmt: skip
    assert drawn.returncode == 0, drawn.stderr
    queries = pd.read_csv(io.StringIO(drawn.stdout), sep="\t", dtype={"qid": str})["qid"]
    assert len(queries) == 20
    done = run_cli(
        "evaluate", str(forty_three), "rag24", "--qrels", "umbrela", "--correct-with", "file",
        "--judgments", "-m", "nDCG@10", "--format", "tsv",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    row = pd.read_csv(io.StringIO(done.stdout), sep="\t").iloc[0]
    plain = {
        judge: rv.Study.open(
            rv.StudyRequest(forty_three, ["rag24"], measures=["nDCG@10"], qrels_in_force=judge)
        )
        .evaluation()
        .per_query("nDCG@10", "rag24")
        for judge in ("umbrela", "file")
    }
    judged = plain["umbrela"].index.isin(set(queries))
    y = plain["file"][plain["umbrela"].index[judged]].to_numpy()
    yhat, rest = plain["umbrela"][judged].to_numpy(), plain["umbrela"][~judged].to_numpy()
    assert row.human_judged == 20 and row.queries == 43
    assert row.value == pytest.approx(ppi_mean_pointestimate(y, yhat, rest).item(), abs=1e-9)
    low, high = ppi_mean_ci(y, yhat, rest, alpha=0.05)
    assert (row.ci_low, row.ci_high) == pytest.approx((low.item(), high.item()), abs=1e-9)
    table = run_cli(
        "evaluate", str(forty_three), "rag24", "--qrels", "umbrela", "--correct-with", "file",
        "--judgments", "-m", "nDCG@10",
    )  # fmt: skip
    assert (
        "judged where drawn: 20 of 43 queries drawn at random by rankviz (uniform" in table.stdout
    )


def test_a_locked_meeting_refuses_a_new_draw_and_keeps_the_old(forty_three) -> None:
    argv = ["judgments", "sample", str(forty_three), "--qrels", "umbrela", "--drawn-by", "Ann"]
    first = run_cli(*argv, "--queries", "5")
    assert first.returncode == 0, first.stderr
    assert run_cli("judgments", "lock", str(forty_three), "--by", "Olga").returncode == 0
    refused = run_cli(*argv, "--queries", "7")
    assert refused.returncode == 2 and "locked" in refused.stderr
    kept = MeetingStore(str(forty_three), create=False).draw()
    assert kept is not None and len(QueryDraw.from_json(kept).probabilities) == 5


def test_the_meetings_queue_offers_the_drawn_queries_not_judged_yet_first(
    forty_three, monkeypatch
) -> None:
    """After a draw of 6 and a judgment of one of them: 5 lead the Deltas page's queue, each "drawn
    to judge" (with any other reason it has), and the page says how many are left."""
    from apptest import start

    drawn = run_cli(
        "judgments", "sample", str(forty_three), "--qrels", "umbrela", "--queries", "6",
        "--drawn-by", "Ann",
    )  # fmt: skip
    first, *rest = pd.read_csv(io.StringIO(drawn.stdout), sep="\t", dtype={"qid": str})["qid"]
    doc = next(line.split()[2] for line in (RAG / "qrels.txt").open() if line.split()[0] == first)
    judged = run_cli("judgments", "add", str(forty_three), first, doc, "2", "--by", "Ann")
    assert judged.returncode == 0, judged.stderr
    study = rv.Study.open(rv.StudyRequest(forty_three, judgments=""))
    assert study.ask(rv.DRAWN_TO_JUDGE) == (rest, 6)
    record = str(forty_three / "rankviz-notes.sqlite")  # the tests' own notes folder otherwise
    monkeypatch.setattr("sys.argv", ["app.py", "--data", str(forty_three), "--notes", record])
    at = start("deltas", collection="rag43", runs="rag24,shuffled", measures="nDCG@10")
    assert not at.exception and not at.error
    said = [c.value.replace("\\", "") for c in at.caption]
    assert any("Judge next: 5 of the 6 queries drawn" in line for line in said)
    queue = next(t.value for t in at.dataframe if "why" in t.value.columns)
    assert list(queue.index[:5]) == rest
    assert all(why.startswith("drawn to judge") for why in queue["why"].iloc[:5])
