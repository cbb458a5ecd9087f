"""ndeval's diversity measures beside the others (#40): with diversity qrels (``--diversity``, a
collection's ``subtopics.txt``), alpha-nDCG@K, ERR-IA@K, NRBP, ... are measures of evaluate,
compare and the app, per topic equal to pyndeval on the same order of each topic, their paired t
tests scipy's, their means ndeval's ``amean`` under ``-c``."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import ROOT, run_cli
from scipy import stats

import rankviz as rv

KEPT = ROOT / "tests" / "data" / "ndeval-generated"
MEASURES = ["alpha-nDCG@20", "ERR_IA@10", "nNRBP", "StRecall@5"]
NDEVAL = {"alpha-nDCG@20": "alpha-nDCG@20", "ERR_IA@10": "ERR-IA@10", "nNRBP": "nNRBP"}


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    """A collection: ndeval-generated's diversity qrels as subtopics.txt, the ad hoc qrels each
    document's highest judgment, its run and a second one of shuffled scores."""
    root = tmp_path_factory.mktemp("diverse")
    (root / "runs").mkdir()
    shutil.copy(KEPT / "qrels.txt", root / "subtopics.txt")
    judged = pd.read_csv(
        KEPT / "qrels.txt", sep=" ", header=None, names=["qid", "sub", "doc", "j"], dtype=str
    )
    judged["j"] = judged["j"].astype(int)
    adhoc = judged.groupby(["qid", "doc"], sort=False)["j"].max().reset_index()
    adhoc.insert(1, "it", 0)
    adhoc.to_csv(root / "qrels.txt", sep=" ", header=False, index=False)
    run = pd.read_csv(
        KEPT / "run.txt",
        sep=" ",
        header=None,
        names=["qid", "q0", "doc", "rank", "score", "tag"],
        dtype={"qid": str},
    )
    run.to_csv(root / "runs" / "a.run", sep=" ", header=False, index=False)
    shuffled = run.assign(score=np.random.default_rng(1).random(len(run)), tag="b")
    shuffled.to_csv(root / "runs" / "b.run", sep=" ", header=False, index=False)
    return root


def _pyndeval(
    folder: Path,
    run: str,
    *,
    by_rank: bool,
    alpha: float = 0.5,
    beta: float = 0.5,
    names: tuple[str, ...] = ("alpha-nDCG@20", "ERR-IA@10", "nNRBP", "strec@5"),
    rel: int = 1,
    depth: int | None = None,
) -> dict[str, dict[str, float]]:
    """pyndeval's values of the run, each topic given in rankviz's order as falling scores (its
    first ``depth`` documents), a judgment below ``rel`` given as 0 (not relevant)."""
    import pyndeval

    order = "run" if by_rank else "trec_eval"
    table = rv.rank(rv.read_run(folder / "runs" / f"{run}.run"), _subtopic_docs(folder), ties=order)
    scored = [
        (str(q), str(d), -float(i))
        for k, q in enumerate(table.qids)
        if table.in_run[k]
        for i, d in enumerate(table.docids(slice(table.offsets[k], table.offsets[k + 1])))
        if depth is None or i < depth
    ]
    lines = (folder / "subtopics.txt").read_text().split("\n")
    judged = [tuple(line.split()) for line in lines if line.strip()]
    judged = [(q, s, d, int(j) if int(j) >= rel else 0) for q, s, d, j in judged]
    return pyndeval.ndeval(judged, scored, measures=list(names), alpha=alpha, beta=beta)


def _subtopic_docs(folder: Path) -> rv.Qrels:
    """Every document the diversity qrels judge, as ndeval's lists hold them (its order)."""
    lines = [line.split() for line in (folder / "subtopics.txt").read_text().splitlines()]
    frame = pd.DataFrame(sorted({(q, d) for q, _, d, _ in lines}), columns=["qid", "docid"]).assign(
        rel=1
    )
    return rv.qrels_from_frame(frame)


@pytest.mark.parametrize("ties", ["trec_eval", "run"])
def test_every_topic_is_pyndevals_on_the_same_order(folder: Path, ties: str) -> None:
    study = rv.Study.open(rv.StudyRequest(folder, measures=MEASURES, options={"ties": ties}))
    assert [str(m) for m in study.measures] == [
        "alpha-nDCG@20",
        "ERR-IA@10",
        "nNRBP",
        "strec@5",
    ]
    evaluation = study.evaluation()
    compared = 0
    for run in ("a", "b"):
        theirs = _pyndeval(folder, run, by_rank=ties == "run")
        for measure in ("alpha-nDCG@20", "ERR-IA@10", "nNRBP", "strec@5"):
            ours = evaluation.per_query(measure, run)
            for topic, values in theirs.items():
                if topic not in ours.index:  # a topic the qrels do not judge
                    continue
                want = values[measure]
                if want != want:  # nNRBP's 0 / 0: nothing to find, 0 as on every measure
                    assert ours[topic] == 0.0
                    continue
                assert ours[topic] == pytest.approx(want, abs=1e-12), (run, measure, topic)
                compared += 1
    assert compared >= 50


@pytest.mark.parametrize(("rel", "depth"), [(2, None), (1, 1), (2, 5), (3, 3)])
def test_the_studys_rel_and_depth_reach_the_diversity_measures(
    folder: Path, rel: int, depth: int | None
) -> None:
    """``--rel`` and ``--depth`` move alpha-nDCG, ERR-IA, nNRBP and strec as they move nDCG: every
    topic equals pyndeval's with judgments below ``rel`` not relevant, on the first ``depth``
    documents (ndeval's -M); nNRBP's 0 / 0 is 0, so every mean covers the same topics."""
    options = {"rel": rel, **({"depth": depth} if depth else {})}
    evaluation = rv.Study.open(
        rv.StudyRequest(folder, measures=MEASURES, options=options)
    ).evaluation()
    compared = 0
    for run in ("a", "b"):
        theirs = _pyndeval(folder, run, by_rank=False, rel=rel, depth=depth)
        for measure in ("alpha-nDCG@20", "ERR-IA@10", "nNRBP", "strec@5"):
            ours = evaluation.per_query(measure, run)
            assert set(ours.index) == set(evaluation.per_query("strec@5", run).index)
            for topic, values in theirs.items():
                if topic in ours.index:
                    want = values[measure] if values[measure] == values[measure] else 0.0
                    assert ours[topic] == pytest.approx(want, abs=1e-12), (run, measure, topic)
                    compared += 1
    assert compared >= 50


def test_missing_skip_leaves_no_topic_out_of_one_measure_alone(folder: Path) -> None:
    """``--missing skip`` dropped a topic with nothing relevant from nNRBP's mean alone (its 0 / 0),
    so one table's means covered different topics."""
    evaluation = rv.Study.open(
        rv.StudyRequest(
            folder, measures=[*MEASURES, "nDCG@10"], options={"missing": "skip", "rel": 2}
        )
    ).evaluation()
    shown = ["alpha-nDCG@20", "ERR-IA@10", "nNRBP", "strec@5", "nDCG@10"]
    judged = [line.split() for line in (folder / "subtopics.txt").read_text().splitlines()]
    nothing = {q for q, *_ in judged} - {q for q, _, _, j in judged if int(j) >= 2}
    for run in ("a", "b"):
        topics = {m: set(evaluation.per_query(m, run).dropna().index) for m in shown}
        assert len({frozenset(t) for t in topics.values()}) == 1, topics
        assert all(evaluation.per_query("nNRBP", run)[t] == 0.0 for t in nothing)
    assert nothing  # topics judged, none of their documents at grade 2: nNRBP's 0 / 0


#: measures with ndeval's -alpha and -beta, and what pyndeval is asked for each
WITH_PARAMETERS = {
    "alpha_nDCG(alpha=0.3)@20": ("alpha-nDCG(alpha=0.3)@20", 0.3, 0.5, "alpha-nDCG@20"),
    "ERR_IA(alpha=0.9)@10": ("ERR-IA(alpha=0.9)@10", 0.9, 0.5, "ERR-IA@10"),
    "NRBP(alpha=0.3,beta=0.8)": ("NRBP(alpha=0.3,beta=0.8)", 0.3, 0.8, "NRBP"),
    "nNRBP(beta=0.2)": ("nNRBP(beta=0.2)", 0.5, 0.2, "nNRBP"),
    "alpha_nDCG@20": ("alpha-nDCG@20", 0.5, 0.5, "alpha-nDCG@20"),
}


@pytest.mark.slow
def test_alpha_and_beta_set_in_the_name_are_pyndevals_with_them(folder: Path) -> None:
    """ndeval's -alpha and -beta as the measure's parameters, ir_measures' spelling
    (``alpha_nDCG(alpha=0.3)@20``, ``NRBP(alpha=0.3,beta=0.8)``), beside the defaults' measure in
    one study; every topic equals pyndeval run with that alpha and beta."""
    study = rv.Study.open(rv.StudyRequest(folder, ["a", "b"], measures=list(WITH_PARAMETERS)))
    assert [str(m) for m in study.measures] == [w[0] for w in WITH_PARAMETERS.values()]
    evaluation = study.evaluation()
    compared = 0
    for run in ("a", "b"):
        for shown, alpha, beta, column in WITH_PARAMETERS.values():
            theirs = _pyndeval(folder, run, by_rank=False, alpha=alpha, beta=beta, names=(column,))
            ours = evaluation.per_query(shown, run)
            for topic, values in theirs.items():
                if topic in ours.index and values[column] == values[column]:
                    assert ours[topic] == pytest.approx(values[column], abs=1e-12), (shown, topic)
                    compared += 1
    assert compared >= 80  # five measures, two runs, nine topics or more (nNRBP 0 / 0 aside)
    a, b = (evaluation.mean(m, "a") for m in ("alpha-nDCG(alpha=0.3)@20", "alpha-nDCG@20"))
    assert a != b  # the parameter reached the computation


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("P_IA(alpha=0.3)@10", "P-IA has no parameter 'alpha' (parameters: rel)"),
        ("NRBP(beta=2)", "NRBP: beta=2.0: must be from 0 to 1"),
    ],
)
def test_a_parameter_a_measure_does_not_read_is_refused_in_one_line(
    folder: Path, name: str, says: str
) -> None:
    done = run_cli("evaluate", str(folder), "-m", name)
    assert done.returncode == 2 and done.stdout == ""
    assert says in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_the_mean_is_ndevals_amean_with_c(folder: Path) -> None:
    done = run_cli(
        "ndeval",
        "-c",
        "-traditional",
        str(folder / "subtopics.txt"),
        str(folder / "runs" / "a.run"),
    )
    amean = done.stdout.strip().splitlines()[-1].split(",")
    header = done.stdout.splitlines()[0].split(",")
    evaluation = rv.Study.open(
        rv.StudyRequest(folder, ["a"], measures=["alpha-nDCG@20", "ERR-IA@10"])
    ).evaluation()
    for measure in ("alpha-nDCG@20", "ERR-IA@10"):
        printed = float(amean[header.index(measure)])
        assert evaluation.mean(measure, "a") == pytest.approx(printed, abs=5e-7)


def test_compare_is_scipys_paired_t_test_on_the_topics(folder: Path) -> None:
    done = run_cli(
        "compare", str(folder), "-m", "alpha_nDCG@20", "--baseline", "a", "--test", "t",
        "--format", "tsv",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    row = pd.read_csv(pd.io.common.StringIO(done.stdout), sep="\t", comment="#").iloc[0]
    matrix = (
        rv.Study.open(rv.StudyRequest(folder, measures=["alpha-nDCG@20"]))
        .evaluation()
        .matrix("alpha-nDCG@20")
    )
    reference = stats.ttest_rel(matrix["b"], matrix["a"])
    assert row["p_value"] == pytest.approx(reference.pvalue, rel=1e-12)
    assert int(row["n"]) == len(matrix)


def test_without_diversity_qrels_the_measure_is_refused_in_one_line(folder: Path) -> None:
    done = run_cli(
        "evaluate", str(folder / "qrels.txt"), str(folder / "runs" / "a.run"), "-m", "NRBP"
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip() == (
        "rankviz: error: NRBP needs diversity qrels (topic subtopic docno judgment, as ndeval "
        "reads them): --diversity FILE, or a collection folder's subtopics.txt"
    )
    given = run_cli(
        "evaluate", str(folder / "qrels.txt"), str(folder / "runs" / "a.run"), "-m", "NRBP",
        "--diversity", str(folder / "subtopics.txt"), "--format", "tsv",
    )  # fmt: skip
    assert given.returncode == 0 and "NRBP" in given.stdout


@pytest.mark.slow
def test_the_app_offers_them_and_shows_the_librarys_means(folder: Path, monkeypatch) -> None:
    from apptest import start

    monkeypatch.setattr("sys.argv", ["app.py", "--data", str(folder)])
    linked = "nDCG@10,alpha_nDCG@20,NRBP,NRBP(alpha=0.3,beta=0.8),NRBP(beta=2)"
    at = start(collection=folder.name, runs="a,b", measures=linked)
    assert not at.exception and not at.error
    # a value a measure cannot take is left out of the link, said once
    (warned,) = [w.value for w in at.warning if "Link parameter" in w.value]
    assert "NRBP(beta=2)" in warned.replace("\\", "")  # escaped for Markdown
    means = at.dataframe[0].value
    shown = ["nDCG@10", "alpha-nDCG@20", "NRBP", "NRBP(alpha=0.3,beta=0.8)"]
    library = rv.Study.open(rv.StudyRequest(folder, measures=shown)).evaluation()
    assert list(means.columns) == shown
    for run in ("a", "b"):
        for measure in means.columns:
            assert means.loc[run, measure] == pytest.approx(library.mean(measure, run), abs=1e-12)
    offered = at.sidebar.multiselect[1].options
    assert "ERR-IA@20" in offered and "strec@10" in offered
