"""Per-query scores of any evaluator (#41): every form read gives the values its writer wrote;
means are numpy's, paired t tests scipy's on the queries both runs have; problems are one line."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import CRANFIELD, ROOT, run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats

import rankviz as rv
from rankviz.errors import FormatError
from rankviz.io.scores import read_scores, scores_form
from rankviz.study import CHANCE, COMPARE, PAIRED_TESTS_BY_GROUP, VERDICT_MARKS

QRELS = CRANFIELD / "qrels.txt"
RUNS = {name: CRANFIELD / "runs" / f"{name}.run.gz" for name in ("bm25", "dense")}


def _evaluated(measures: list[str]) -> rv.Evaluation:
    return rv.evaluate(rv.read_qrels(QRELS), [rv.read_run(p) for p in RUNS.values()], measures)


@pytest.mark.slow
def test_trec_eval_and_ir_measures_outputs_are_the_values_they_print(tmp_path: Path) -> None:
    """``rankviz trec-eval -q`` (trec_eval's bytes) and ir_measures' ``-q`` of the same runs read
    back as the engine's values at the digits they print; trec_eval's names are the catalogue's."""
    files = []
    for name, path in RUNS.items():
        out = tmp_path / f"te-{name}.txt"
        done = run_cli("trec-eval", "-q", "-c", "-m", "map", "-m", "P.10", str(QRELS), str(path))
        out.write_text(done.stdout)
        files.append(out)
        measured = subprocess.run(
            [sys.executable, "-m", "ir_measures", str(QRELS), str(path), "RR@10", "-q", "-p", "6"],
            capture_output=True,
            text=True,
            check=True,
        )
        (tmp_path / f"irm-{name}.txt").write_text(measured.stdout)
    assert [scores_form(f) for f in files] == ["trec_eval -q"] * 2
    assert scores_form(tmp_path / "irm-bm25.txt") == "ir_measures -q"
    trec = rv.Evaluation.from_scores(*files)
    assert [str(m) for m in trec.measures] == ["AP", "P@10"]
    engine = _evaluated(["AP", "P@10", "RR@10"])
    runid = {r: read_scores(f).frame["run"].iloc[0] for r, f in zip(RUNS, files, strict=True)}
    for run in RUNS:
        for measure in ("AP", "P@10"):
            ours = engine.per_query(measure, run)
            theirs = trec.per_query(measure, runid[run]).reindex(ours.index)
            assert np.allclose(theirs, ours, atol=5.000001e-5, rtol=0)  # printed %6.4f
        irm = rv.Evaluation.from_scores(tmp_path / f"irm-{run}.txt")
        assert irm.runs == (f"irm-{run}",)
        ours = engine.per_query("RR@10", run)
        theirs = irm.per_query("RR@10", f"irm-{run}").reindex(ours.index)
        assert np.allclose(theirs, ours, atol=5e-7, rtol=0)


def _table(seed: int, *, gaps: bool) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = [
        (run, f"t{q}", measure, float(rng.random()))
        for run in ("a", "b", "c")
        for q in range(1, 31)
        for measure in ("nugget_all", "support")
        if not gaps or rng.random() > 0.15
    ]
    return pd.DataFrame(rows, columns=["run", "query", "measure", "value"])


@pytest.mark.parametrize("form", ["tsv", "csv", "parquet", "jsonl", "wide csv", "json"])
def test_every_table_form_reads_the_same_scores(tmp_path: Path, form: str) -> None:
    frame = _table(1, gaps=False)
    path = tmp_path / "scores"
    if form == "tsv":
        frame.to_csv(path, sep="\t", index=False)
    elif form == "csv":
        frame.rename(columns={"query": "Topic", "run": "System"}).to_csv(path, index=False)
    elif form == "parquet":
        path = tmp_path / "scores.parquet"
        frame.to_parquet(path)
    elif form == "jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in frame.to_dict("records")))
    elif form == "wide csv":
        frame.pivot_table(
            index=["run", "query"], columns="measure", values="value"
        ).reset_index().to_csv(path, index=False)
    else:  # pytrec_eval's: one run per file, named by it
        frame = frame[frame["run"] == "a"]
        path = tmp_path / "a.json"
        nested: dict = {}
        for row in frame.itertuples():
            nested.setdefault(row.query, {})[row.measure] = row.value
        path.write_text(json.dumps(nested))
    got = rv.Evaluation.from_scores(path)
    for (run, measure), part in frame.groupby(["run", "measure"]):
        assert got.per_query(measure, run).to_dict() == dict(zip(part["query"], part["value"]))


@pytest.mark.slow
@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(seed=st.integers(0, 10**6), missing=st.sampled_from(["zero", "skip"]))
def test_means_are_numpys_and_t_tests_scipys(tmp_path: Path, seed: int, missing: str) -> None:
    frame = _table(seed, gaps=True)
    path = tmp_path / "scores.tsv"
    frame.to_csv(path, sep="\t", index=False)
    got = rv.Evaluation.from_scores(path, settings=rv.EvalSettings(missing=missing))
    for measure in ("nugget_all", "support"):
        # a measure's queries: those some run has a score for
        table = frame[frame["measure"] == measure].pivot(
            index="query", columns="run", values="value"
        )
        if missing == "zero":
            table = table.fillna(0.0)
        for run in "abc":
            assert got.mean(measure, run) == pytest.approx(np.nanmean(table[run]), abs=1e-12)
        study = rv.Study.open(
            rv.StudyRequest(path, measures=[measure], options={"missing": missing})
        )
        tests = rv.TestSettings(test="t", baseline="a", correction="none")
        compared = study.ask(COMPARE, tests).to_frames()["comparisons"].set_index("run")
        for run in "bc":
            both = table[["a", run]].dropna()
            reference = stats.ttest_rel(both[run], both["a"])
            assert compared.at[run, "n"] == len(both)
            assert compared.at[run, "p_value"] == pytest.approx(reference.pvalue, abs=1e-12)


def test_a_measure_one_run_lacks_is_said_and_has_no_mean(tmp_path: Path) -> None:
    frame = _table(2, gaps=False)
    frame = frame[(frame["run"] != "c") | (frame["measure"] != "support")]
    path = tmp_path / "scores.tsv"
    frame.to_csv(path, sep="\t", index=False)
    got = rv.Evaluation.from_scores(path)
    assert (
        math.isnan(got.mean("support", "c")) and "support: no score for run c" in got.conventions()
    )


def test_an_autojudge_leaderboard_checks_its_all_rows(tmp_path: Path) -> None:
    rows = [f"run1 nugget t{q} {q / 10:.1f}" for q in range(1, 5)]
    good, bad = tmp_path / "good.txt", tmp_path / "bad.txt"
    good.write_text("\n".join([*rows, "run1 nugget all 0.25"]) + "\n")
    bad.write_text("\n".join([*rows, "run1 nugget all 0.3"]) + "\n")
    assert scores_form(good) == "autojudge leaderboard"
    assert rv.Evaluation.from_scores(good).mean("nugget", "run1") == pytest.approx(0.25)
    with pytest.raises(
        FormatError, match="line 5: the 'all' row of run 'run1'.*mean of its topics"
    ):
        read_scores(bad)


def test_qrels_and_runs_are_not_taken_for_scores() -> None:
    assert scores_form(QRELS) is None and scores_form(RUNS["bm25"]) is None


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (
            "run\tquery\tmeasure\tvalue\na\tq1\tm\t0.5\na\tq1\tm\t0.7\n",
            "line 3: a second value for run 'a', query 'q1', measure 'm' (the first at line 2)",
        ),
        (
            "run\tquery\tmeasure\tvalue\na\tq1\tm\thigh\n",
            "line 2: the value 'high' is not a number",
        ),
    ],
)
def test_a_bad_row_is_one_line_naming_it(tmp_path: Path, text: str, said: str) -> None:
    path = tmp_path / "scores.tsv"
    path.write_text(text)
    done = run_cli("evaluate", str(path))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip() == f"rankviz: error: {path}, {said}"


@pytest.mark.parametrize("command", [["ties"], ["unjudged"]])
def test_what_needs_rankings_is_refused_in_one_line(tmp_path: Path, command: list[str]) -> None:
    path = tmp_path / "scores.tsv"
    _table(3, gaps=False).to_csv(path, sep="\t", index=False)
    done = run_cli(*command, str(path), "-m", "support")
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "needs the runs' rankings" in lines[0]


def test_the_rag_sample_is_what_its_generator_makes_and_scores_by_hand(tmp_path: Path) -> None:
    """sample_data/rag-nuggets: the kept files are make.py's output, byte for byte, and one
    answer's five scores follow from its nugget assignments by hand."""
    folder = ROOT / "sample_data" / "rag-nuggets"
    sys.path.insert(0, str(folder))
    try:
        import make  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(folder))
    rows = make.assignments()
    make.write(rows, tmp_path / "assignments.tsv")
    make.write(make.scores(rows), tmp_path / "scores.tsv", digits=True)
    qrels, runs, queries = make.retrieval()
    make.write_lines(qrels, tmp_path / "qrels.txt")
    make.write_lines(queries, tmp_path / "queries.tsv")
    kept = ["assignments.tsv", "scores.tsv", "qrels.txt", "queries.tsv"]
    for system, lines in runs.items():
        make.write_lines(lines, tmp_path / f"{system}.run")
        assert (tmp_path / f"{system}.run").read_text() == (
            folder / "runs" / f"{system}.run"
        ).read_text()
    for name in kept:
        assert (tmp_path / name).read_text() == (folder / name).read_text()
    answer = [r for r in rows if r["run"] == "dense-gpt" and r["topic"] == "2024-001"]
    vital = [r for r in answer if r["importance"] == "vital"]
    supported = [r for r in answer if r["support"] == "support"]
    partial = [r for r in answer if r["support"] == "partial_support"]
    got = rv.Evaluation.from_scores(folder / "scores.tsv")
    value = {m: got.per_query(m, "dense-gpt")["2024-001"] for m in ("all_strict", "all", "vital")}
    assert value["all_strict"] == pytest.approx(len(supported) / len(answer), abs=1e-6)
    assert value["all"] == pytest.approx(
        (len(supported) + len(partial) / 2) / len(answer), abs=1e-6
    )
    credit = sum({"support": 1, "partial_support": 0.5}.get(r["support"], 0) for r in vital)
    assert value["vital"] == pytest.approx(credit / len(vital), abs=1e-6)


def test_the_one_opener_opens_a_file_of_scores_as_a_study_of_its_values(tmp_path: Path) -> None:
    """Given where qrels go, a file of scores opens a study of its values (no qrels, no
    rankings); the same file again among the runs scores each value twice, refused naming it."""
    path = tmp_path / "scores.tsv"
    table = _table(4, gaps=False)
    table.to_csv(path, sep="\t", index=False)
    study = rv.Study.open(rv.StudyRequest(path))
    assert not study.ranked and len(study.qrels.query_ids) == 0
    assert study.run_names == sorted(set(table["run"]))
    with pytest.raises(
        rv.FormatError, match="scores.tsv, line 2: .* is scored in .*scores.tsv too"
    ):
        rv.Study.open(rv.StudyRequest(path, [path]))


def test_ndevals_csv_is_a_wide_table_of_its_topics(tmp_path: Path) -> None:
    """``rankviz ndeval``'s CSV (ndeval's bytes): its topics' values, its ``amean`` row and its
    ``-nan`` (0/0) left out and said: the diversity measures get every analysis of scores."""
    import pandas as pd

    from rankviz.io.subtopics import read_subtopic_qrels
    from rankviz.measures.diversity import COLUMNS, DiversityJudgments, diversity_values

    folder = ROOT / "tests" / "data" / "ndeval-generated"
    done = run_cli("ndeval", str(folder / "qrels.txt"), str(folder / "run.txt"))
    path = tmp_path / "ndeval.csv"
    path.write_text(done.stdout)
    assert "-nan" in done.stdout and ",amean," in done.stdout
    got = rv.Evaluation.from_scores(path)
    values = diversity_values(
        DiversityJudgments.of(read_subtopic_qrels(folder / "qrels.txt")),
        rv.read_run(folder / "run.txt"),
    )
    reference = pd.DataFrame({name: values.column(name) for name in COLUMNS})
    for measure in ("alpha-nDCG@20", "ERR-IA@10", "NRBP", "nNRBP", "P-IA@5", "strec@20"):
        defined = reference[measure].dropna()
        ours = got.per_query(measure, "gen").reindex(defined.index)
        assert np.allclose(ours, defined, atol=5.000001e-7, rtol=0), measure  # printed %.6f
    notes = " ".join(got.conventions())
    assert "summary values (query all or amean) left out" in notes and "NaN values" in notes


def _judge_file(tmp_path: Path, runs: tuple[str, ...], *, drop: int = 0) -> Path:
    """An LLM judge's made-up score per (run, query) of Cranfield: the last run without a score
    for the first ``drop`` queries, and one query the qrels do not judge."""
    rng = np.random.default_rng(7)
    queries = [str(q) for q in rv.read_qrels(QRELS).query_ids]
    rows = [
        (run, q, "judge", float(rng.random()))
        for run in runs
        for q in [*(queries[drop:] if run == runs[-1] else queries), "999"]
    ]
    path = tmp_path / "judge.tsv"
    pd.DataFrame(rows, columns=["run", "query", "measure", "value"]).to_csv(
        path, sep="\t", index=False
    )
    return path


@pytest.mark.parametrize("missing", ["zero", "skip"])
def test_scores_beside_runs_are_the_files_values_under_every_tie_policy(
    tmp_path: Path, missing: str
) -> None:
    """A mixed study: nDCG@10 computed from the runs beside a judge's score from a file. The
    score's values are the file's on every judged query (the gaps by ``missing``), under every
    tie policy; nDCG@10 is the engine's; the score's paired t test is scipy's on the queries both
    runs have; it has no chance level; the footer and the notes say where it comes from."""
    path = _judge_file(tmp_path, ("bm25", "dense"), drop=5)
    written = pd.read_csv(path, sep="\t", dtype={"query": str}).query("query != '999'")
    for ties in ("trec_eval", "expected", "optimistic"):
        study = rv.Study.open(
            rv.StudyRequest(
                CRANFIELD,
                ["bm25", "dense"],
                measures=["nDCG@10", "judge"],
                scores=[path],
                options={"missing": missing, "ties": ties},
            )
        )
        assert any("queries the qrels do not judge left out" in n for n in study.notes)
        evaluation = study.evaluation()
        for run in ("bm25", "dense"):
            got = evaluation.per_query("judge", run)
            expected = written[written["run"] == run].set_index("query")["value"]
            assert got.reindex(expected.index).to_dict() == expected.to_dict()
            gaps = got.drop(expected.index)  # dense's first five: bm25 has them
            assert list(gaps) == ([0.0] * 5 if missing == "zero" and run == "dense" else [])
        engine = rv.evaluate(
            rv.read_qrels(QRELS), [rv.read_run(p) for p in RUNS.values()], ["nDCG@10"], ties=ties
        )
        assert np.array_equal(evaluation.matrix("nDCG@10"), engine.matrix("nDCG@10"))
    compared = study.ask(COMPARE, rv.TestSettings(test="t", correction="none")).table
    row = compared[compared["measure"] == "judge"].iloc[0]
    both = evaluation.matrix("judge").dropna()
    assert row["n"] == len(both) == 225 - (5 if missing == "skip" else 0)
    assert row["p_value"] == pytest.approx(
        stats.ttest_rel(both["dense"], both["bm25"]).pvalue, abs=1e-12
    )
    assert list(study.ask(CHANCE).means().columns) == ["nDCG@10"]
    assert any(
        line.startswith("judge: a per-query score from") for line in evaluation.conventions()
    )


def test_a_score_named_as_a_computed_measure_is_refused_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "clash.tsv"
    path.write_text("run\tquery\tmeasure\tvalue\nbm25\t1\tAP\t0.5\n")
    done = run_cli("evaluate", str(CRANFIELD), "bm25", "-m", "AP", "--scores", str(path))
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"rankviz: error: score 'AP' ({path} (tsv table)) is named as a measure rankviz computes "
        "from the runs: rename it in the file"
    ]


def test_metric_choice_says_how_far_a_score_agrees_with_the_measures(tmp_path: Path) -> None:
    """metrics-report with a judge's score beside nDCG@10: Kendall's tau between their orderings
    of the runs is scipy's on the runs' means."""
    runs = ("bm25", "dense", "rrf", "qld")
    path = _judge_file(tmp_path, runs)
    done = run_cli(
        "metrics-report", str(CRANFIELD), *runs, "-m", "nDCG@10", "-m", "judge",
        "--scores", str(path), "--format", "json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    study = rv.Study.open(
        rv.StudyRequest(CRANFIELD, list(runs), measures=["nDCG@10", "judge"], scores=[path])
    )
    means = study.evaluation().means()
    tau = stats.kendalltau(means["nDCG@10"], means["judge"]).statistic
    assert report["kendall"]["nDCG@10"]["judge"] == pytest.approx(tau, abs=1e-12)


def test_a_score_where_less_is_better_is_better_lower(tmp_path: Path) -> None:
    """--lower-is-better latency: the faster run's significant negative delta is ``better``, and
    its wins are the queries where it is faster, in the comparisons, the marks and per group."""
    rng = np.random.default_rng(5)
    base = rng.uniform(20, 40, 40)
    rows = [("slow", f"t{i}", "latency", v) for i, v in enumerate(base)]
    rows += [("fast", f"t{i}", "latency", v - rng.uniform(1, 5)) for i, v in enumerate(base)]
    rows[-1] = ("fast", "t39", "latency", base[-1] + 1.0)  # one query where it is slower
    path = tmp_path / "latency.tsv"
    pd.DataFrame(rows, columns=["run", "query", "measure", "value"]).to_csv(
        path, sep="\t", index=False
    )
    groups = tmp_path / "groups.tsv"
    groups.write_text("qid\tkind\n" + "".join(f"t{i}\t{'ab'[i % 2]}\n" for i in range(40)))
    study = rv.Study.open(
        rv.StudyRequest(
            path, lower_is_better=["latency"], groups=str(groups), options={"group_by": "kind"}
        )
    )
    tests = rv.TestSettings(test="t", baseline="slow")
    comparison = study.ask(COMPARE, tests)
    row = comparison.table.iloc[0]
    assert row["delta"] < 0 and comparison.verdicts() == ["better"]
    assert (row["wins"], row["losses"]) == (39, 1)
    assert study.ask(VERDICT_MARKS, tests).loc["fast", "latency"] == "better"
    by_group = study.ask(PAIRED_TESTS_BY_GROUP, study.measures[0], tests)
    assert set(by_group["verdict"]) == {"better"}


def test_an_answer_column_is_the_answers_not_a_measure(tmp_path: Path) -> None:
    """``answer`` (or ``text``, ``response``) in a long or a wide table: each (run, query)'s answer,
    never a measure; the scores beside runs carry them (the query view shows them)."""
    wide = tmp_path / "wide.csv"
    wide.write_text("system,topic,judge,Response\na,1,0.5,first answer\nb,1,0.25,second\n")
    read = read_scores(wide)
    assert sorted(read.frame["measure"]) == ["judge", "judge"]
    assert read.texts is not None
    assert read.texts.to_dict("records") == [
        {"run": "a", "query": "1", "text": "first answer"},
        {"run": "b", "query": "1", "text": "second"},
    ]
    from rankviz.measures.score import scores_as_measures

    sample = read_scores(ROOT / "sample_data" / "rag-nuggets" / "scores.tsv")
    score = scores_as_measures([sample], zero=True)[0]
    assert (
        score.answer("dense-gpt", "2024-001")
        == "dense-gpt on 2024-001: states n1, n3; touches n2, n4."
    )


@pytest.mark.slow
def test_metrics_report_on_scores_alone_gives_the_evidence_of_the_values() -> None:
    """The nugget sample: Kendall's tau of the measures' means is scipy's, and each measure's
    discriminative power under the paired t test is the share of run pairs whose Holm-adjusted
    p (statsmodels) lies below 0.05; the task and the stability that read qrels and rankings are
    said to be left out."""
    from itertools import combinations

    from statsmodels.stats.multitest import multipletests

    path = ROOT / "sample_data" / "rag-nuggets" / "scores.tsv"
    done = run_cli("metrics-report", str(path), "--test", "t", "--format", "json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    scores = rv.Evaluation.from_scores(path)
    means = scores.means()
    tau = stats.kendalltau(means["all_strict"], means["vital"]).statistic
    assert report["kendall"]["all_strict"]["vital"] == pytest.approx(tau, abs=1e-12)
    for measure in ("all_strict", "vital_strict", "weighted"):
        matrix = scores.matrix(measure)
        p = [stats.ttest_rel(matrix[b], matrix[a]).pvalue for a, b in combinations(matrix, 2)]
        holm = multipletests(p, method="holm")[1]
        power = report["discriminative_power"][measure]
        assert power["power"] == pytest.approx((holm < 0.05).mean(), abs=1e-12)
    assert set(report["stability"]["vital"]) == {"swap rate"}
    text = run_cli("metrics-report", str(path)).stdout
    assert text.startswith("From the per-query values alone: no task and no recommendations")


@pytest.mark.parametrize(
    ("name", "text", "said"),
    [
        (
            "te.txt",
            "map\tq1\t0.5\n" * 250 + "map\tq2\t0.5\textra\nrunid\tall\tx\n",
            "line 251: 4 fields where trec_eval -q has 3 on every line",
        ),
        (
            "s.jsonl",
            '{"run": "a", "query": "1", "measure": "m", "value": 1}\n{"run": "a",\n',
            "line 2: not JSON (Expecting property name enclosed in double quotes)",
        ),
    ],
)
def test_a_ragged_line_far_down_is_one_line_naming_it(
    tmp_path: Path, name: str, text: str, said: str
) -> None:
    path = tmp_path / name
    path.write_text(text)
    done = run_cli("evaluate", str(path))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip().splitlines() == [f"rankviz: error: {path}, {said}"]


def test_one_json_line_naming_a_run_and_a_query_is_a_table(tmp_path: Path) -> None:
    path = tmp_path / "one.jsonl"
    path.write_text('{"run": "a", "query": "1", "measure": "judge", "value": 0.5}\n')
    assert scores_form(path) == "json lines table"
    assert rv.Evaluation.from_scores(path).mean("judge", "a") == 0.5


def _latencies(tmp_path: Path, runs=("sysA", "sysB"), queries=None) -> tuple[Path, pd.DataFrame]:
    """A long CSV of a cost, latency_ms: the second run lacks its first 10 queries."""
    rng = np.random.default_rng(7)
    queries = queries or [f"q{q}" for q in range(40)]
    rows = [
        (run, q, float(rng.integers(150, 300)))
        for k, run in enumerate(runs)
        for i, q in enumerate(queries)
        if not (k == 1 and i < 10)
    ]
    frame = pd.DataFrame(rows, columns=["run", "query", "latency_ms"])
    path = tmp_path / "long.csv"
    frame.to_csv(path, index=False)
    return path, frame


def test_a_missing_cost_never_scores_the_best_value(tmp_path: Path) -> None:
    """sysB lacks latency_ms for 10 of 40 queries: scored 0 by default, the best a cost can have,
    it turned from slower into faster. Without a known worst the default refuses in one line naming
    --missing skip; with a range a gap scores its worst (the top); skip leaves the gaps out."""
    path, frame = _latencies(tmp_path)
    common = ["compare", str(path), "-m", "latency_ms", "--lower-is-better", "latency_ms"]
    common += ["--baseline", "sysA", "--format", "tsv"]
    refused = run_cli(*common)
    (line,) = refused.stderr.strip().splitlines()
    assert refused.returncode == 2 and refused.stdout == ""
    assert "latency_ms: lower is better and no worst value is known" in line
    assert "--missing skip" in line and "10 queries run 'sysB'" in line
    worst = run_cli(*common, "--score-range", "latency_ms=0:1000")
    row = dict(zip(*(line.split("\t") for line in worst.stdout.splitlines()[:2]), strict=True))
    b = frame[frame.run == "sysB"]["latency_ms"]
    assert float(row["mean_run"]) == pytest.approx((b.sum() + 10 * 1000) / 40, rel=1e-12)
    assert int(row["n"]) == 40
    table = run_cli(*common[:-2], "--score-range", "latency_ms=0:1000")
    assert "run sysB has no score for 10 of 40 queries: scored 1000, its worst" in table.stdout
    skipped = run_cli(*common, "--missing", "skip")
    row = dict(zip(*(line.split("\t") for line in skipped.stdout.splitlines()[:2]), strict=True))
    assert float(row["mean_run"]) == pytest.approx(b.mean(), rel=1e-12) and int(row["n"]) == 30


def test_a_missing_score_beside_runs_takes_its_worst_or_is_refused(tmp_path: Path) -> None:
    """Beside Cranfield's runs: a cost with gaps is refused by default; a higher-is-better score
    declared in [-1, 1] fills a gap with -1, not 0."""
    queries = sorted({line.split()[0] for line in QRELS.read_text().splitlines()})
    path, frame = _latencies(tmp_path, runs=("bm25", "dense"), queries=queries)
    base = ["evaluate", str(CRANFIELD), "bm25", "dense", "--scores", str(path), "-m", "latency_ms"]
    refused = run_cli(*base, "--lower-is-better", "latency_ms")
    assert refused.returncode == 2 and "no worst value is known" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1
    signed = frame.assign(latency_ms=frame.latency_ms / 300 - 0.5).rename(
        columns={"latency_ms": "stance"}
    )
    signed.to_csv(path, index=False)
    done = run_cli(
        "evaluate", str(CRANFIELD), "bm25", "dense", "--scores", str(path), "-m", "stance",
        "--score-range", "stance=-1:1", "--format", "tsv",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    means = {
        line.split("\t")[0]: float(line.split("\t")[3]) for line in done.stdout.splitlines()[1:]
    }
    dense = signed[signed.run == "dense"]["stance"]
    assert means["dense"] == pytest.approx((dense.sum() - 10) / len(queries), rel=1e-12)


def test_ties_of_values_rounded_to_four_decimals_are_said_to_be_so(tmp_path: Path) -> None:
    """trec_eval -q prints %6.4f: compare counted 27 ties where the runs give 26. The footer says
    the values come rounded; ir_measures' full digits say nothing."""
    files = []
    for name, path in RUNS.items():
        done = run_cli("trec-eval", "-q", "-m", "map", str(QRELS), str(path))
        files.append(tmp_path / f"{name}.txt")
        files[-1].write_text(done.stdout)
    done = run_cli("compare", *map(str, files), "-m", "AP", "--test", "t")
    assert done.stdout.count("values printed to 4 decimals (trec_eval -q)") == 2
    full = tmp_path / "full.tsv"
    full.write_text(
        "run\tquery\tAP\nbm25\t1\t0.123456\ndense\t1\t0.2\nbm25\t2\t0.5\ndense\t2\t0.25\n"
    )
    assert "4 decimals" not in run_cli("evaluate", str(full)).stdout


def _log_likelihoods(tmp_path: Path) -> tuple[Path, pd.DataFrame]:
    """Per-query log-likelihoods (-9 to -1) of two runs on 40 queries; 'worse' is below 'better'
    on every query and lacks the first 10."""
    rng = np.random.default_rng(11)
    better = rng.uniform(-5, -1, 40)
    rows = [("better", f"q{i}", v) for i, v in enumerate(better)]
    rows += [("worse", f"q{i}", v - rng.uniform(0.5, 1.5)) for i, v in enumerate(better) if i >= 10]
    frame = pd.DataFrame(rows, columns=["run", "query", "loglik"])
    path = tmp_path / "loglik.csv"
    frame.to_csv(path, index=False)
    return path, frame


def test_a_missing_value_never_beats_a_real_one_below_zero(tmp_path: Path) -> None:
    """A higher-is-better score with values below 0 and no range: a gap scored 0 made the run worse
    on every shared query the better one. The default refuses, in one line, naming the command
    line's flags, the API's keywords or the app's control; a range or skip gives the numbers."""
    path, frame = _log_likelihoods(tmp_path)
    common = ["compare", str(path), "-m", "loglik", "--baseline", "better", "--format", "tsv"]
    refused = run_cli(*common)
    assert refused.returncode == 2 and refused.stdout == ""
    (line,) = refused.stderr.strip().splitlines()
    assert "loglik: its values go as low as" in line and "no worst value is known" in line
    assert "10 queries run 'worse'" in line
    assert "--missing skip" in line and "--score-range loglik=LOW:HIGH" in line
    skipped = run_cli(*common, "--missing", "skip")
    row = dict(zip(*(x.split("\t") for x in skipped.stdout.splitlines()[:2]), strict=True))
    shared = frame[frame["query"].isin(frame[frame.run == "worse"]["query"])]
    delta = shared.pivot(index="query", columns="run", values="loglik")
    assert float(row["delta"]) == pytest.approx(
        (delta["worse"] - delta["better"]).mean(), rel=1e-12
    )
    assert float(row["delta"]) < 0 and int(row["n"]) == 30
    floor = run_cli(*common, "--score-range", "loglik=-10:0")
    row = dict(zip(*(x.split("\t") for x in floor.stdout.splitlines()[:2]), strict=True))
    worse = frame[frame.run == "worse"]["loglik"]
    assert float(row["mean_run"]) == pytest.approx((worse.sum() - 10 * 10) / 40, rel=1e-12)
    # the API names its own keywords, not the flags
    with pytest.raises(rv.OptionError) as api:
        rv.Evaluation.from_scores(path).means()
    said = str(api.value)
    assert "missing='skip'" in said and "ranges={'loglik': (LOW, HIGH)}" in said
    assert "--" not in said
    skipped_api = rv.Evaluation.from_scores(path, settings=rv.EvalSettings(missing="skip"))
    assert skipped_api.mean("loglik", "worse") == pytest.approx(worse.mean(), rel=1e-12)
    # a score never below 0 keeps trec_eval's 0 for a gap
    frame.assign(loglik=frame.loglik + 10).to_csv(path, index=False)
    done = run_cli("evaluate", str(path), "-m", "loglik", "--format", "tsv")
    means = dict(line.split("\t")[::3] for line in done.stdout.splitlines()[1:])
    assert float(means["worse"]) == pytest.approx((worse.sum() + 30 * 10) / 40, rel=1e-12)
