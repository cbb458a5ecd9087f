"""Two sources of judgments: kappa, weighted kappa, confusion, precision and recall against
scikit-learn on generated qrels with gaps in their grades; tau and Spearman against scipy and tau-AP
against the paper's formula written here, on generated orderings and on real ones (DL-HARD's runs
under the two parts its qrels file joins, written with ``0`` and with ``Q0``); the runs' means under
A, B and A filled by B against evaluations of qrels built here; the CLI's JSON; the meeting's record
as two sources."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from conftest import ROOT
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy import stats

import rankviz as rv
from rankviz.analyses.agreement import agreement, ranking
from rankviz.analyses.measure_evidence import tau_ap
from rankviz.cli import main
from rankviz.errors import RankvizError
from rankviz.io.frames import qrels_from_frame
from rankviz.study.judges_opening import open_judges
from rankviz.study.studies import compare_judges

DL_HARD = ROOT / "sample_data" / "dl-hard-passage"


def qrels(rows) -> rv.Qrels:
    return qrels_from_frame(pd.DataFrame(rows, columns=["qid", "docid", "rel"]), source="generated")


# Pairs judged by A, by B or both, with grades from a scale that may skip values (0, 1, 3, 4).
judged = st.lists(
    st.tuples(
        st.sampled_from(["q1", "q2", "q3"]),
        st.integers(0, 30),
        st.sampled_from([0, 1, 3, 4]),
        st.sampled_from([0, 1, 3, 4]),
        st.sampled_from(["a", "b", "both", "both", "both"]),
    ),
    min_size=1,
    max_size=80,
    unique_by=lambda row: (row[0], row[1]),
)


@pytest.mark.slow
@pytest.mark.filterwarnings(
    "ignore::UserWarning:sklearn.*", "ignore::sklearn.exceptions.UndefinedMetricWarning"
)
@settings(max_examples=80, deadline=None)
@given(rows=judged, rel=st.sampled_from([1, 3]))
def test_agreement_on_the_pairs_both_judge_is_scikit_learns(rows, rel) -> None:
    # scikit-learn: 2 s to import, so only where a test asks
    from sklearn.metrics import cohen_kappa_score, confusion_matrix, precision_score, recall_score

    assume(any(who != "b" for *_, who in rows) and any(who != "a" for *_, who in rows))
    a = qrels([(q, f"d{d}", ga) for q, d, ga, _, who in rows if who != "b"])
    b = qrels([(q, f"d{d}", gb) for q, d, _, gb, who in rows if who != "a"])
    report = agreement(a, b, rel=rel)
    s = report.summary()
    both = [(ga, gb) for _, _, ga, gb, who in rows if who == "both"]
    assert s["pairs"] == len(both)
    assert s["only_a"] == sum(who == "a" for *_, who in rows) and s["only_b"] == sum(
        who == "b" for *_, who in rows
    )
    if not both:
        return
    x, y = np.array(both).T
    labels = list(range(min(a.grade.min(), b.grade.min()), max(a.grade.max(), b.grade.max()) + 1))
    assert list(report.labels) == labels
    with np.errstate(divide="ignore", invalid="ignore"):
        for weights, key in ((None, "kappa"), ("linear", "kappa_linear")):
            expected = cohen_kappa_score(x, y, labels=labels, weights=weights)
            assert s[key] == pytest.approx(expected, abs=1e-12, nan_ok=True)
        binary = cohen_kappa_score(x >= rel, y >= rel, labels=[False, True])
    assert s["kappa_binary"] == pytest.approx(binary, abs=1e-12, nan_ok=True)
    matrix = confusion_matrix(x, y, labels=labels)
    assert [[report.confusion()[ga][gb] for gb in labels] for ga in labels] == matrix.tolist()
    assert s["agreement"] == pytest.approx(np.trace(matrix) / len(both))
    assert s["mean_difference"] == pytest.approx(float(np.mean(y - x)))
    if (y >= rel).any():
        assert s["precision_b"] == pytest.approx(precision_score(x >= rel, y >= rel))
    if (x >= rel).any():
        assert s["recall_b"] == pytest.approx(recall_score(x >= rel, y >= rel))
    for row in report.per_query().itertuples():
        part = [(ga, gb) for q, _, ga, gb, who in rows if who == "both" and q == row.qid]
        px, py = np.array(part).T
        with np.errstate(divide="ignore", invalid="ignore"):
            assert row.kappa == pytest.approx(
                cohen_kappa_score(px, py, labels=labels), abs=1e-12, nan_ok=True
            )


def test_kappa_by_hand() -> None:
    """A judges 0 1 1 0, B judges 0 1 0 0: observed agreement 3/4, by chance 1/2 * 3/4 + 1/2 * 1/4 =
    1/2, so kappa = (3/4 - 1/2) / (1 - 1/2) = 1/2; B finds one of A's two relevant documents and
    nothing else."""
    a = qrels([("q", f"d{i}", g) for i, g in enumerate([0, 1, 1, 0])])
    b = qrels([("q", f"d{i}", g) for i, g in enumerate([0, 1, 0, 0])])
    s = agreement(a, b, rel=1).summary()
    assert (s["pairs"], s["agreement"], s["kappa"], s["precision_b"], s["recall_b"]) == (
        4,
        0.75,
        0.5,
        1.0,
        0.5,
    )
    assert s["b_nonrelevant_of_a_relevant"] == 0.5 and s["b_relevant_of_a_nonrelevant"] == 0.0


def tau_ap_of_the_paper(ranked: list[str], truth: list[str]) -> float:
    """Yilmaz, Aslam & Robertson (SIGIR 2008), eq. 2: tau_AP = 2 / (N - 1) * sum_{i=2..N} C(i) / (i
    - 1) - 1,
    C(i) the items above rank i in ``ranked`` that ``truth`` also puts above the i-th item."""
    place = {item: i for i, item in enumerate(truth)}
    n = len(ranked)
    total = sum(
        sum(place[above] < place[ranked[i]] for above in ranked[:i]) / i for i in range(1, n)
    )
    return 2 / (n - 1) * total - 1


def symmetric_tau_ap(x: dict[str, float], y: dict[str, float]) -> float:
    by_x, by_y = sorted(x, key=lambda r: -x[r]), sorted(y, key=lambda r: -y[r])
    return (tau_ap_of_the_paper(by_x, by_y) + tau_ap_of_the_paper(by_y, by_x)) / 2


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(st.floats(0, 1), st.floats(0, 1)),
        min_size=2,
        max_size=12,
        unique_by=(lambda p: p[0], lambda p: p[1]),
    )
)
def test_the_orderings_agreement_is_scipys_tau_and_spearman_and_the_papers_tau_ap(means) -> None:
    a = {f"run{i}": m for i, (m, _) in enumerate(means)}
    b = {f"run{i}": m for i, (_, m) in enumerate(means)}
    result = ranking("AP", a, b, a)
    with np.errstate(invalid="ignore"):
        assert result.kendall_tau == pytest.approx(
            stats.kendalltau(list(a.values()), list(b.values())).statistic, nan_ok=True
        )
        assert result.spearman == pytest.approx(
            stats.spearmanr(list(a.values()), list(b.values())).statistic, nan_ok=True
        )
    assert result.tau_ap == pytest.approx(symmetric_tau_ap(a, b), abs=1e-12)
    moved = {
        r
        for r in a
        if sorted(a, key=lambda x: -a[x]).index(r) != sorted(b, key=lambda x: -b[x]).index(r)
    }
    assert set(result.moved) == moved


@pytest.fixture(scope="module")
def nist_and_dl_hard(tmp_path_factory):
    """DL-HARD's qrels split where the file joins two parts (its SOURCE.md: NIST's judgments and
    DL-HARD's, concatenated): the lines written with ``0`` and those with ``Q0``, as two real qrels
    files judging different queries."""
    folder = tmp_path_factory.mktemp("sources")
    lines = (DL_HARD / "qrels.txt").read_text().splitlines(keepends=True)
    (folder / "nist.txt").write_text("".join(line for line in lines if line.split()[1] == "0"))
    (folder / "dl-hard.txt").write_text("".join(line for line in lines if line.split()[1] == "Q0"))
    return folder / "nist.txt", folder / "dl-hard.txt"


def test_tau_ap_on_real_orderings_is_the_papers(nist_and_dl_hard) -> None:
    nist, added = nist_and_dl_hard
    runs = [str(p) for p in sorted((DL_HARD / "runs").iterdir())]
    under = [
        rv.Study.open(rv.StudyRequest(path, runs, measures=["nDCG@10", "AP(rel=2)"]))
        .evaluation()
        .means()
        for path in (nist, added)
    ]
    for measure in ("nDCG@10", "AP(rel=2)"):
        x, y = under[0][measure].to_dict(), under[1][measure].to_dict()
        assert tau_ap(list(x.values()), list(y.values())) == pytest.approx(
            symmetric_tau_ap(x, y), abs=1e-12
        )


@pytest.fixture(scope="module")
def perturbed(tmp_path_factory):
    """A second source for DL-HARD: 80% of its pairs, grades moved by -1, 0 or +1 (seeded), plus
    pairs it never judged taken from the runs' top 10, so that B fills some of A's holes."""
    frame = open_judges(DL_HARD).qrels.to_frame().sample(frac=0.8, random_state=3)
    rng = np.random.default_rng(3)
    frame["rel"] = np.clip(frame["rel"] + rng.integers(-1, 2, len(frame)), 0, 3)
    run = rv.read_run(DL_HARD / "runs" / "bm25.run.gz").to_frame()
    top = run[run.groupby("qid").cumcount() < 10][["qid", "docid"]].assign(rel=1)
    extra = top.merge(
        open_judges(DL_HARD).qrels.to_frame()[["qid", "docid"]], how="left", indicator=True
    )
    extra = extra[extra["_merge"] == "left_only"].drop(columns="_merge").head(40)
    path = tmp_path_factory.mktemp("llm") / "llm.txt"
    path.write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, d, g in pd.concat([frame, extra]).itertuples(index=False))
    )
    return path


def test_the_runs_means_under_a_b_and_a_filled_by_b(perturbed) -> None:
    runs = ["bm25", "bm25_t5-zs", "bm25_rm3"]
    study = rv.Study.open(rv.StudyRequest(DL_HARD, runs, measures=["nDCG@10", "AP(rel=2)"]))
    b = open_judges(perturbed)
    report = compare_judges(
        study,
        b.qrels,
        names=("file", "llm"),
        kinds=("human", "llm:test"),
        test=rv.TestSettings(test="t"),
    )
    a_frame, b_frame = study.qrels.to_frame(), b.qrels.to_frame()
    # A wins where both judge
    union = pd.concat([a_frame, b_frame]).drop_duplicates(["qid", "docid"], keep="first")
    files = {"a": a_frame, "b": b_frame, "filled": union}
    expected = {
        key: rv.Study(
            qrels_from_frame(f, source=key),
            {n: study.runs[n] for n in runs},
            study.measures,
            study.settings,
        )
        .evaluation()
        .means()
        for key, f in files.items()
    }
    for r in report.rankings:
        for key, means in (("a", r.means_a), ("b", r.means_b), ("filled", r.means_filled)):
            assert means == pytest.approx(expected[key][r.measure].to_dict(), abs=1e-12)
    # B's extra pairs fill holes of bm25's top 10
    assert any(r.means_filled != r.means_a for r in report.rankings)
    holes, filled_by_b = report.holes["bm25"]
    assert filled_by_b == 40 and holes > filled_by_b
    under_b = rv.Study(b.qrels, {n: study.runs[n] for n in runs}, study.measures, study.settings)
    verdicts = {}
    for key, s in (("a", study), ("b", under_b)):
        table = rv.compare(s.evaluation(), test="t", pairs="all").table
        verdicts[key] = {
            (m, x, y): v
            for (m, x, y), v in zip(
                zip(table["measure"], table["baseline"], table["run"], strict=True),
                rv.compare(s.evaluation(), test="t", pairs="all").verdicts(),
                strict=True,
            )
        }
    for r in report.rankings:
        flipped = {(f["baseline"], f["run"]) for f in r.flips}
        assert flipped == {
            (x, y)
            for (m, x, y), v in verdicts["a"].items()
            if m == r.measure and verdicts["b"][(m, x, y)] != v
        }
    assert any("LLM judge" in line for line in report.verdicts())


@pytest.mark.slow
def test_the_command_prints_the_issues_json(perturbed, capsys) -> None:
    assert (
        main(
            [
                "agreement",
                str(DL_HARD),
                str(perturbed),
                "bm25",
                "bm25_t5-zs",
                "-m",
                "nDCG@10",
                "--format",
                "json",
            ]
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    for key in (
        "pairs",
        "agreement",
        "kappa",
        "kappa_linear",
        "confusion",
        "only_a",
        "only_b",
        "rankings",
    ):
        assert key in out
    assert set(out["rankings"][0]) >= {
        "measure",
        "kendall_tau",
        "tau_ap",
        "spearman",
        "means_a",
        "means_b",
        "moved",
    }
    assert sum(sum(row.values()) for row in out["confusion"].values()) == out["pairs"]
    assert out["a"] == {"name": "qrels.txt", "kind": "human"} and out["b"]["name"] == "llm.txt"
    assert main(["agreement", str(DL_HARD), str(perturbed)]) == 0  # table: the words first
    assert capsys.readouterr().out.startswith("- qrels.txt and llm.txt agree on ")


@pytest.mark.slow
def test_the_meeting_starts_from_an_llms_labels_and_is_compared_with_them(
    perturbed, tmp_path, capsys
) -> None:
    db = str(tmp_path / "record.sqlite")
    assert (
        main(
            [
                "judgments",
                "import",
                db,
                str(perturbed),
                "--by",
                "Ann",
                "--source",
                "llm:test",
                "--collection",
                str(DL_HARD),
            ]
        )
        == 0
    )
    frame = open_judges(perturbed).qrels.to_frame().head(30)
    for q, d, g in frame.itertuples(index=False):
        assert (
            main(
                [
                    "judgments",
                    "add",
                    db,
                    q,
                    d,
                    str(3 - int(g)) if int(g) != 3 else "3",
                    "--by",
                    "Bob",
                ]
            )
            == 0
        )
    capsys.readouterr()
    llm, people = open_judges(f"{db}:llm:test"), open_judges(f"{db}:people")
    assert llm.kind == "llm:test" and len(llm.qrels.grade) == len(
        open_judges(perturbed).qrels.grade
    )
    assert len(people.qrels.grade) == 30 and people.kind == "human"
    assert main(["agreement", f"{db}:llm:test", f"{db}:people", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    overruled = sum(
        int(g) != 3 and 3 - int(g) != int(g) for _, _, g in frame.itertuples(index=False)
    )
    assert out["pairs"] == 30 and round(out["agreement"] * 30) == 30 - overruled
    assert main(["judgments", "import", db, str(perturbed), "--by", "Ann", "--source", "gpt"]) == 2
    assert "llm:NAME" in capsys.readouterr().err


def test_a_collections_sources_come_from_its_files_and_its_settings(tmp_path, perturbed) -> None:
    import shutil

    folder = tmp_path / "c"
    shutil.copytree(DL_HARD, folder)
    shutil.copy(perturbed, folder / "qrels.umbrela.txt")
    shutil.copy(perturbed, folder / "second.txt")
    assert open_judges(f"{folder}:umbrela").kind == ""
    toml = (folder / "collection.toml").read_text()
    sources = (
        '\n[qrels]\nkind = "human"\n[qrels.umbrela]\nfile = "qrels.umbrela.txt"\nkind = '
        '"llm:gpt-4o"\n'
        '[qrels.second]\nfile = "second.txt"\nkind = "human"\n'
    )
    (folder / "collection.toml").write_text(toml + sources)
    collection = rv.open_collection(folder)
    assert {name: s.kind for name, s in collection.judges.items()} == {
        "file": "human",
        "umbrela": "llm:gpt-4o",
        "second": "human",
    }
    assert open_judges(f"{folder}:umbrela").kind == "llm:gpt-4o"
    with pytest.raises(RankvizError, match="no source of judgments named 'nope'"):
        open_judges(f"{folder}:nope")
    with pytest.raises(RankvizError, match="no such file or folder"):
        open_judges(str(tmp_path / "missing.txt"))
    (folder / "collection.toml").write_text(toml + '\n[qrels.x]\nfile = "absent.txt"\n')
    with pytest.raises(RankvizError, match="is not a file of the folder"):
        rv.open_collection(folder)
    (folder / "collection.toml").write_text(
        toml + '\n[qrels.x]\nfile = "second.txt"\nkind = "robot"\n'
    )
    with pytest.raises(RankvizError, match="human, meeting or llm:NAME"):
        rv.open_collection(folder)


def test_tau_ap_with_tied_means_is_tau_ap_b_whatever_order_the_runs_are_listed_in() -> None:
    """The issue's case: tau-AP was 0.667 one way and 1.0 with the tied runs swapped. tau_AP_b
    (Urbano & Marrero 2017), by hand: with y as the reference (no ties), the pivots C, B, D agree on
    1, 1/2 (B's tie with C in x is no agreement) and 3/3, so 2 * 5/6 - 1 = 2/3; with x as the
    reference (B and C tied), B, C and D agree on 1, 1 and 3/3, so 1; the mean is 5/6."""
    assert tau_ap([0.5, 0.4, 0.4, 0.1], [0.5, 0.3, 0.4, 0.2]) == pytest.approx(5 / 6, abs=1e-15)
    assert tau_ap([0.5, 0.4, 0.4, 0.1], [0.5, 0.4, 0.3, 0.2]) == pytest.approx(5 / 6, abs=1e-15)
    # no ties: the paper's, by hand
    assert tau_ap([4, 3, 2, 1], [4, 3, 1, 2]) == pytest.approx(7 / 9, abs=1e-15)
    assert np.isnan(tau_ap([1, 1, 1], [3, 2, 1]))  # one vector orders nothing


@settings(max_examples=200)
@given(
    st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=2, max_size=9),
    st.randoms(use_true_random=False),
)
@pytest.mark.slow
def test_tau_ap_does_not_depend_on_the_order_runs_are_listed_in(pairs, random) -> None:
    x, y = map(np.array, zip(*pairs))
    order = list(range(len(pairs)))
    random.shuffle(order)
    expected = tau_ap(x, y)
    assert tau_ap(x[order], y[order]) == pytest.approx(expected, abs=1e-12, nan_ok=True)
    assert tau_ap(y, x) == pytest.approx(expected, abs=1e-12, nan_ok=True)
    assert np.isnan(expected) or -1 - 1e-12 <= expected <= 1 + 1e-12


def test_two_scales_are_said_to_differ_and_rel_is_checked_as_on_the_command_line(
    tmp_path, capsys
) -> None:
    """A 0-2 and a 0-100 scale printed a linear kappa with no word that the scales differ; ``--rel
    0`` was refused by the command line and computed by the API."""
    small = rv.qrels_from_dict({"q1": {"a": 0, "b": 1, "c": 2}, "q2": {"a": 2, "d": 0}})
    wide = rv.qrels_from_dict({"q1": {"a": 0, "b": 60, "c": 100}, "q2": {"a": 90, "d": 10}})
    words = agreement(small, wide, names=("people", "llm"), rel=1).verdicts()
    assert any(
        line.startswith("the scales differ (people grades 0 to 2, llm 0 to 100)") for line in words
    ), words
    assert not any("scales differ" in line for line in agreement(small, small, rel=1).verdicts())
    with pytest.raises(rv.RankvizError, match="rel=0: must be from 1"):
        agreement(small, wide, rel=0)
    # argparse's own refusal: exit 2, one line of usage before it
    with pytest.raises(SystemExit) as refused:
        main(["agreement", str(DL_HARD), str(DL_HARD), "--rel", "0"])
    assert refused.value.code == 2 and "rel=0: must be from 1" in capsys.readouterr().err


def test_what_the_llm_gets_wrong_per_run_is_scipys_paired_interval() -> None:
    """Per run, B's value minus A's on the queries both judge: the mean and scipy's one-sample t
    interval of the per-query differences, and the verdict names the run B favours most."""
    rag = ROOT / "sample_data" / "rag24-judges"
    done_json = _run_json_agreement(rag)
    request = {"measures": ["nDCG@10"]}
    under = {
        judge: rv.Study.open(rv.StudyRequest(rag, qrels_in_force=judge, **request)).evaluation()
        for judge in ("file", "umbrela")
    }
    (ranked,) = done_json["rankings"]
    for run, (mean, low, high, n) in ranked["differences"].items():
        people = under["file"].per_query("nDCG@10", run)
        llm = under["umbrela"].per_query("nDCG@10", run)
        d = (llm - people.reindex(llm.index)).dropna()
        interval = stats.ttest_1samp(d, 0).confidence_interval(0.95)
        assert n == len(d) == 43
        assert mean == pytest.approx(d.mean(), abs=1e-12)
        assert (low, high) == pytest.approx((interval.low, interval.high), abs=1e-12)
    said = [line for line in done_json["verdicts"] if "scores umbrela-reranked" in line]
    assert said and "above qrels.txt on nDCG@10" in said[0] and "4 of 4 runs differ" in said[0]


def _run_json_agreement(rag) -> dict:
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(["agreement", str(rag), f"{rag}:umbrela", "-m", "nDCG@10", "--format", "json"])
    assert code == 0
    return json.loads(out.getvalue())
