"""``rankviz check``: each code raised by a small planted case and silent on a clean one; the exit
status, the JSON, the bundled collections, and evaluate/compare saying the findings first."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import ROOT

import rankviz as rv
from rankviz.analyses.checks import CODES, CheckReport, Finding
from rankviz.study import CHECK

QRELS = "".join(f"{q} 0 d{q}{i} {g}\n" for q in (1, 2, 3) for i, g in enumerate([2, 1, 0, 0]))


def run_text(
    qids=(1, 2, 3),
    depth: int = 8,
    *,
    doc=lambda q, i: f"d{q}{i}",
    score=lambda i: 10.0 - i,
    rank=lambda i: i + 1,
) -> str:
    """A run retrieving each query's judged documents first, then unjudged ones, scores falling with
    rank."""
    return "".join(
        f"{q} Q0 {doc(q, i)} {rank(i)} {score(i)} t\n" for q in qids for i in range(depth)
    )


def study(
    runs: dict[str, str], qrels: str = QRELS, measures=("RR", "AP", "nDCG@5", "ERR@5"), **options
) -> rv.Study:
    read = {
        name: rv.read_run(text.encode(), name=name, filename=f"{name}.txt")
        for name, text in runs.items()
    }
    settings = rv.EvalSettings(**options)
    parsed = tuple(rv.parse(m, defaults=settings.measure_defaults) for m in measures)
    return rv.Study(rv.read_qrels(qrels.encode(), filename="qrels.txt"), read, parsed, settings)


def codes(report: CheckReport) -> dict[tuple[str, str | None], str]:
    return {(f.code, f.run): f.severity for f in report.findings}


def test_a_clean_collection_gives_nothing() -> None:
    report = study({"a": run_text(), "b": run_text(score=lambda i: 20.0 - 2 * i)}).ask(CHECK, k=5)
    assert report.findings == () and report.status == 0


@pytest.mark.parametrize(
    ("runs", "expected"),
    [
        ({"a": run_text(qids=(7, 8))}, {("qid-mismatch", "a"): "error"}),
        ({"a": run_text(qids=(1, 2))}, {("qid-mismatch", "a"): "warning"}),
        ({"a": run_text(qids=(1, 2, 3, 9))}, {("qid-mismatch", "a"): "note"}),
    ],
)
def test_query_sets_that_differ(runs, expected) -> None:
    found = codes(study(runs).ask(CHECK))
    for key, severity in expected.items():
        assert found.get(key) == severity, found


def test_query_ids_written_another_way_are_a_near_miss() -> None:
    run = run_text(qids=("q1", "Q2", "003"), doc=lambda q, i: f"d{q[-1]}{i}")
    report = study({"a": run}).ask(CHECK)
    near = next(f for f in report.findings if f.code == "qid-near-miss")
    assert near.severity == "error" and near.count == 3 and near.queries == {"1", "2", "3"}
    assert "q1 ~ 1" in near.examples and report.status == 2
    assert "qid-near-miss" not in {f.code for f in study({"a": run_text()}).ask(CHECK).findings}


@pytest.mark.parametrize("prefix", ["doc:", "msmarco_passage_", "D"])
def test_document_ids_with_a_prefix_the_qrels_lack_are_a_near_miss(prefix: str) -> None:
    qrels = "".join(f"{q} 0 {q}{i} {g}\n" for q in (1, 2, 3) for i, g in enumerate([2, 1, 0, 0]))
    report = study({"a": run_text(doc=lambda q, i: f"{prefix}{q}{i}")}, qrels=qrels).ask(CHECK)
    near = next(f for f in report.findings if f.code == "docid-near-miss")
    assert near.severity == "error" and near.count == 12 and f"{prefix}10 ~ 10" in near.examples


def test_two_collections_numbering_alike_are_no_near_miss() -> None:
    """KILT_7 and MARCO_D7 (TREC CAsT) are two documents, not one written two ways; a segment suffix
    on one side is."""
    qrels = "".join(
        f"{q} 0 MARCO_D{q}{i} {g}\n" for q in (1, 2, 3) for i, g in enumerate([2, 1, 0, 0])
    )
    kilt = run_text(doc=lambda q, i: f"MARCO_D{q}{i}" if i < 4 else f"KILT_{q}{i - 4}")
    assert "docid-near-miss" not in {
        f.code for f in study({"a": kilt}, qrels=qrels).ask(CHECK).findings
    }
    segments = run_text(doc=lambda q, i: f"MARCO_D{q}{i}#{i}" if i == 1 else f"MARCO_D{q}{i}")
    near = [
        f
        for f in study({"a": segments}, qrels=qrels).ask(CHECK).findings
        if f.code == "docid-near-miss"
    ]
    assert near and near[0].severity == "warning" and near[0].count == 3


def test_judged_ids_normalised_once_match_every_sample_as_fresh_ones_do() -> None:
    """A qrels' docid forms (normalised, and each addition's test run, once) match sample after
    sample as the ids themselves do: each way of writing an id on either side."""
    import pyarrow as pa

    from rankviz.io.id_forms import IdForms, near_match

    targets = pa.array(
        ["D0012", "doc:7", "clueweb09-en0000-00-00001", "MARCO_D3#2", "44", "Q9", "x#1"]
    )
    forms = IdForms(targets)
    samples = {
        ("d12", "7", "doc:clueweb09-en0000-00-00001"): [-1, 1, 2],
        ("marco_d3", "44#3", "q09", "X"): [3, 4, -1, 6],
        ("d0012#1", "msmarco_passage_44", "nothing"): [0, 4, -1],
    }
    for sample, expected in samples.items():
        unmatched = pa.array(sample)
        assert near_match(unmatched, forms).tolist() == expected
        assert near_match(unmatched, targets).tolist() == expected
    assert forms.keys is forms.keys  # normalised once
    passes = []

    def counted(keys):
        passes.append(len(keys))
        return np.ones(len(keys), dtype=bool)

    assert forms.carrying((counted,)).tolist() == forms.carrying((counted, counted)).tolist()
    assert passes == [len(targets)]  # each test's pass over the ids made once


def test_identical_ids_ranked_first_are_a_warning_met_by_chance_a_note() -> None:
    first = run_text(doc=lambda q, i: str(q) if i == 0 else f"d{q}{i}")
    last = run_text(doc=lambda q, i: str(q) if i == 7 else f"d{q}{i}")
    assert codes(study({"a": first}).ask(CHECK))[("identical-ids", "a")] == "warning"
    assert codes(study({"a": last}).ask(CHECK))[("identical-ids", "a")] == "note"
    assert (
        codes(study({"a": first}, ignore_identical_ids=True).ask(CHECK))[("identical-ids", "a")]
        == "note"
    )


def test_a_top_k_that_hardly_touches_the_judgments() -> None:
    unjudged = run_text(doc=lambda q, i: f"x{q}{i}")
    found = codes(study({"a": run_text(), "b": unjudged}).ask(CHECK, k=5))
    assert (
        found[("low-judged-overlap", "b")] == "error" and ("low-judged-overlap", "a") not in found
    )
    six = "".join(f"{q} 0 d{q}{i} {g}\n" for q in range(1, 7) for i, g in enumerate([2, 1, 0, 0]))
    qids = range(1, 7)
    # 1 of the 24 it could hold
    sparse = run_text(qids, doc=lambda q, i: f"d{q}0" if q == 1 and i == 7 else f"x{q}{i}")
    found = codes(study({"a": run_text(qids), "b": sparse}, qrels=six).ask(CHECK, k=8))
    assert (
        found[("low-judged-overlap", "b")] == "warning" and ("low-judged-overlap", "a") not in found
    )
    alone = codes(study({"b": sparse}, qrels=six).ask(CHECK, k=8))
    assert alone[("low-judged-overlap", "b")] == "warning"
    # sparse judgments (MS MARCO's one a query)
    one_judgment = "".join(f"{q} 0 d{q}0 1\n" for q in qids)
    # 2 of the 6 it could hold
    found_once = run_text(qids, doc=lambda q, i: f"d{q}0" if i == 3 and q < 3 else f"x{q}{i}")
    assert ("low-judged-overlap", "b") not in codes(
        study({"b": found_once}, qrels=one_judgment).ask(CHECK, k=8)
    )


def test_a_large_run_has_its_document_ids_compared_on_an_even_sample_of_its_lines(
    monkeypatch,
) -> None:
    from rankviz.evaluation import run_facts

    # 24 lines: every 4th is looked at (lines 0, 4, ..., 20)
    monkeypatch.setattr(run_facts, "SAMPLE", 6)
    qrels = "".join(f"{q} 0 {q}{i} {g}\n" for q in (1, 2, 3) for i, g in enumerate([2, 1, 0, 0]))
    found = study({"a": run_text(doc=lambda q, i: f"doc:{q}{i}")}, qrels=qrels).ask(CHECK).findings
    near = next(f for f in found if f.code == "docid-near-miss")
    # lines 0, 8 and 16 name judged documents 10, 20, 30
    assert near.count == 3 and near.severity == "error"
    assert "of 6 lines looked at, an even sample of 24" in near.message


def test_depths_that_differ_matter_only_past_the_shallower() -> None:
    runs = {"a": run_text(depth=8), "b": run_text(depth=4)}
    assert codes(study(runs).ask(CHECK))[("depth-differs", None)] == "warning"
    assert (
        codes(study(runs, measures=("RR@3", "P@4")).ask(CHECK))[("depth-differs", None)] == "note"
    )
    below = study({"a": run_text(depth=4)}, measures=("nDCG@10", "P@4")).ask(CHECK)
    finding = next(f for f in below.findings if f.code == "depth-below-cutoff")
    assert finding.examples == ("nDCG@10",) and finding.severity == "warning"


def test_relevant_documents_no_run_retrieves() -> None:
    qrels = QRELS + "4 0 lost 1\n"
    runs = {"a": run_text(qids=(1, 2, 3, 4)), "b": run_text(qids=(1, 2, 3, 4))}
    finding = next(
        f for f in study(runs, qrels=qrels).ask(CHECK).findings if f.code == "unretrieved-relevant"
    )
    assert finding.queries == {"4"} and finding.severity == "warning"  # 1 of 4 queries: past 10%
    assert "a 85.7%" in finding.message  # 6 of the 7 relevant documents: the recall ceiling


@pytest.mark.parametrize("engine", ["memory", "stream"])
def test_a_relevant_document_one_run_retrieves_is_not_lost(engine: str) -> None:
    """Lost: the queries with a relevant document no run retrieves, whether a run lists the query
    or not; listed in the qrels' order, each run's count of relevant documents retrieved."""
    from rankviz.settings.engine_settings import EngineSettings

    qrels = QRELS + "8 0 y80 1\n4 0 lost 1\n5 0 x50 1\n6 0 x60 1\n7 0 d70 0\n"
    found_by = {"a": (1, 2, 3, 5, 8), "b": (1, 2, 3, 6, 8)}
    runs = {
        name: run_text(qids, doc=lambda q, i: f"x{q}0" if q in (5, 6) and i == 0 else f"d{q}{i}")
        for name, qids in found_by.items()
    }
    read = study(runs, qrels=qrels)
    settings = EngineSettings(engine=engine, block_queries=2 if engine == "stream" else None)
    evaluation = read.evaluation(engine=settings, check_k=10)
    finding = next(
        f
        for f in read.ask(CHECK, 10, evaluation=evaluation).findings
        if f.code == "unretrieved-relevant"
    )
    # 8 and 4: no run retrieves y80 or "lost"; 5 and 6 each found by one run
    assert finding.examples[:2] == ("8", "4") and finding.queries == {"8", "4"}
    # of the 10 relevant documents: queries 1-3's 6 retrieved by both, 5's by a, 6's by b
    assert "a 70.0%, b 70.0%" in finding.message


def test_a_rank_column_against_the_scores_and_all_tied_queries() -> None:
    reversed_ranks = run_text(rank=lambda i: 8 - i)
    assert codes(study({"a": reversed_ranks}).ask(CHECK))[("rank-score-disagree", "a")] == "warning"
    # query 9 is not judged: the checks speak of the judged queries only
    tied = run_text(qids=(1, 9, 2, 3), score=lambda i: 1.0)
    finding = next(f for f in study({"a": tied}).ask(CHECK).findings if f.code == "all-tied")
    assert finding.queries == {"1", "2", "3"} and finding.examples == ("1", "2", "3")
    unjudged_only = run_text(qids=(1, 9), rank=lambda i: 8 - i) + run_text(qids=(2, 3))
    found = study({"a": unjudged_only}).ask(CHECK).findings
    assert next(f for f in found if f.code == "rank-score-disagree").queries == {"1"}


def test_judgments_against_the_settings() -> None:
    qrels = QRELS + "4 0 d40 0\n"
    found = study({"a": run_text(qids=(1, 2, 3, 4))}, qrels=qrels).ask(CHECK)
    assert next(f for f in found.findings if f.code == "no-relevant-query").queries == {"4"}
    graded = QRELS.replace("d10 2", "d10 6")
    assert (
        codes(study({"a": run_text()}, qrels=graded).ask(CHECK))[("grade-scale", None)] == "error"
    )
    assert codes(study({"a": run_text()}, rel=3).ask(CHECK))[("grade-scale", None)] == "error"


def test_every_code_is_documented_and_a_finding_keeps_five_examples() -> None:
    text = (ROOT / "docs" / "check.md").read_text()
    assert all(f"`{code}`" in text for code in CODES)
    finding = Finding("all-tied", "warning", "m", examples=[str(i) for i in range(9)])
    assert finding.examples == ("0", "1", "2", "3", "4")
    assert set(finding.to_dict()) == {"code", "severity", "run", "count", "examples", "message"}


def _cli(capsys, *args: str) -> tuple[int, str, str]:
    """The command line in this process (exit status, stdout, stderr)."""
    from rankviz.cli import main

    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


def test_the_command_exits_by_the_worst_finding_and_prints_json(tmp_path, capsys) -> None:
    (tmp_path / "qrels.txt").write_text(QRELS)
    # as deep as the default measures' cutoffs
    (tmp_path / "good.txt").write_text(run_text(depth=20))
    (tmp_path / "prefixed.txt").write_text(run_text(qids=("q1", "q2", "q3"), depth=20))
    (tmp_path / "short.txt").write_text(run_text(qids=(1, 2), depth=20))
    for runs, expected in (
        (["good.txt"], 0),
        (["good.txt", "short.txt"], 1),
        (["good.txt", "prefixed.txt"], 2),
    ):
        status, out, err = _cli(
            capsys,
            "check",
            str(tmp_path / "qrels.txt"),
            *(str(tmp_path / r) for r in runs),
            "--format",
            "json",
        )
        assert status == expected, (runs, err)
        payload = json.loads(out)
        assert isinstance(payload, list) and all(
            set(f) == {"code", "severity", "run", "count", "examples", "message"} for f in payload
        )
    status, out, err = _cli(
        capsys,
        "evaluate",
        str(tmp_path / "qrels.txt"),
        str(tmp_path / "good.txt"),
        str(tmp_path / "prefixed.txt"),
    )
    assert (
        status == 0 and err.count("qid-near-miss") == 1 and "error: qid-near-miss [prefixed]" in err
    )
    status, out, err = _cli(
        capsys,
        "evaluate",
        str(tmp_path / "qrels.txt"),
        str(tmp_path / "prefixed.txt"),
        "--no-check",
    )
    assert status == 0 and "qid-near-miss" not in err and "prefixed" in out


@pytest.mark.parametrize("collection", ["cranfield", "dl-hard-passage", "trec-cast-2021"])
def test_the_bundled_collections_give_no_error(collection: str) -> None:
    report = rv.Study.open(rv.StudyRequest(ROOT / "sample_data" / collection)).ask(CHECK)
    assert report.status < 2, [f.line() for f in report.at_least("error")]


@pytest.mark.parametrize("engine", ["memory", "stream"])
def test_the_facts_an_evaluation_gathers_give_the_studys_findings(tmp_path, engine: str) -> None:
    """evaluate and compare check from what the evaluation gathered in its one pass (every engine,
    any block of queries): the same findings as a check of the runs read whole."""
    from rankviz.settings.engine_settings import EngineSettings

    (tmp_path / "qrels.txt").write_text(QRELS + "4 0 lost 1\n5 0 d50 0\n")
    qids = (1, 2, 3, 4, 5, "q6")
    (tmp_path / "a.txt").write_text(
        run_text(qids, doc=lambda q, i: str(q) if i == 0 else f"d{q}{i}")
    )
    (tmp_path / "b.txt").write_text(
        run_text((1, 2, 3), depth=5, score=lambda i: 1.0, doc=lambda q, i: f"doc:d{q}{i}")
    )
    study = rv.Study.open(
        rv.StudyRequest(
            tmp_path / "qrels.txt",
            [tmp_path / "a.txt", tmp_path / "b.txt"],
            measures=["AP", "nDCG@10"],
        )
    )
    settings = (
        EngineSettings(engine=engine, block_queries=1)
        if engine == "stream"
        else EngineSettings(engine=engine)
    )
    evaluation = study.evaluation(engine=settings, check_k=10)
    assert evaluation.facts is not None and set(evaluation.facts) == {"a", "b"}
    from_evaluation = study.ask(CHECK, 10, evaluation=evaluation)
    read_whole = rv.Study.open(
        rv.StudyRequest(
            tmp_path / "qrels.txt",
            [tmp_path / "a.txt", tmp_path / "b.txt"],
            measures=["AP", "nDCG@10"],
        )
    ).ask(CHECK, 10)
    assert {
        "identical-ids",
        "all-tied",
        "docid-near-miss",
        "depth-differs",
        "unretrieved-relevant",
        "no-relevant-query",
        "qid-mismatch",
    } <= {f.code for f in from_evaluation.findings}
    assert from_evaluation == read_whole
