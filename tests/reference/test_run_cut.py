"""The documents that count: ``depth=N`` is trec_eval ``-M N`` (trec_eval's own values on the
conformance cases; pytrec_eval on runs cut to trec_eval's first N), under every tie policy the
evaluation of the run cut first; ``ignore_identical_ids`` is the evaluation of the run file without
those lines. Every engine reads the same documents."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import CONFORMANCE
from generated import LAYOUTS, collections, write_files
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_conformance import _expected, _runs
from test_reference_property import PYTREC, _pytrec_eval, _trec_eval_top

import rankviz as rv
from rankviz.evaluation.engines import evaluate_sources
from rankviz.evaluation.pieces import RunSource
from rankviz.settings.engine_settings import EngineSettings

POLICIES = ("trec_eval", "run", "optimistic", "pessimistic", "expected")
MEASURES = ["RR", "RR@3", "AP", "nDCG", "nDCG@3", "P@3", "Hits@1", "R@3", "ERR@3", "Bpref", "Rprec"]
EXAMPLE = settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def _conformance_files():
    for case in sorted(CONFORMANCE.iterdir()):
        for path in sorted(case.glob("expected_c*.tsv")) + sorted(case.glob("expected_noc*.tsv")):
            if "recip_rank_M10" in path.read_text():
                yield pytest.param(case, path, id=f"{case.name}/{path.stem}")


@pytest.mark.parametrize(("case", "expected_file"), list(_conformance_files()))
def test_depth_10_is_trec_eval_minus_M10(case: Path, expected_file: Path) -> None:
    """trec_eval -M10 -m recip_rank, as trec_eval 10 printed it for every conformance case."""
    missing = "zero" if expected_file.stem.startswith("expected_c") else "skip"
    rel = 2 if expected_file.stem.endswith("_l2") else 1
    name = str(rv.parse("RR", defaults={"rel": rel}))
    expected = _expected(expected_file, {"recip_rank_M10": name})
    assert expected
    qrels, runs = rv.read_qrels(case / "qrels.txt"), _runs(case)
    for run_name in {run for run, _, _ in expected}:
        run = rv.read_run(runs[run_name], name=run_name)
        frame = rv.evaluate(qrels, run, [name], missing=missing, rel=rel, depth=10).to_frame(
            per_query=True
        )
        got = {(r.run, r.qid, r.measure): r.value for r in frame.itertuples()}
        for key, value in expected.items():
            if key[0] == run_name:
                assert got[key] == pytest.approx(value, abs=1e-12), key


def _cut(run: dict, depth: int) -> dict:
    """Each query's first ``depth`` documents in trec_eval's order, listed as the run lists them
    (its rank column keeps their order for ``ties=run``)."""
    return {
        qid: {d: s for d, s in docs.items() if d in _trec_eval_top(docs, depth)}
        for qid, docs in run.items()
    }


@pytest.mark.slow
@EXAMPLE
@given(data=collections(), depth=st.integers(1, 6), layout=st.sampled_from(LAYOUTS))
def test_depth_matches_pytrec_eval_on_the_run_cut_to_trec_evals_first_n(
    tmp_path: Path, data, depth: int, layout: str
) -> None:
    qrels, run = data
    qrels_path, run_path = write_files(tmp_path, qrels, run, layout)
    frame = rv.evaluate(
        rv.read_qrels(qrels_path), rv.read_run(run_path), list(PYTREC.values()), depth=depth
    )
    ours = {(r.qid, r.measure): r.value for r in frame.to_frame(per_query=True).itertuples()}
    reference = _pytrec_eval(qrels, _cut(run, depth), 1)
    for qid in qrels:
        for te_name, name in PYTREC.items():
            expected = reference[qid][te_name] if qid in run else 0.0
            assert ours[(qid, name)] == pytest.approx(expected, abs=1e-12), (qid, name)


@pytest.mark.slow
@EXAMPLE
@given(
    data=collections(),
    depth=st.integers(1, 6),
    ties=st.sampled_from(POLICIES),
    missing=st.sampled_from(["zero", "skip"]),
)
def test_under_every_policy_a_depth_is_the_run_cut_first(
    tmp_path: Path, data, depth: int, ties: str, missing: str
) -> None:
    """The depth keeps trec_eval's first N; the tie policy then orders those N. Under ties=run the
    run's own order (its rank column) decides which N are first, as trec_eval's preference
    measures cut a run ranked ties by docno ascending."""
    qrels, run = data
    qrels_path, run_path = write_files(tmp_path, qrels, run)
    cut_dir = tmp_path / "cut"
    cut_dir.mkdir(exist_ok=True)
    first = (
        {qid: dict(list(docs.items())[:depth]) for qid, docs in run.items()}  # rank column order
        if ties == "run"
        else _cut(run, depth)
    )
    _, cut_path = write_files(cut_dir, qrels, first)
    given_qrels = rv.read_qrels(qrels_path)
    if not any(run.values()):
        return
    if missing == "skip" and not {q for q, docs in run.items() if docs} & set(qrels):
        # a clear error, either way
        with pytest.raises(rv.RankvizError, match="answers none of the judged queries"):
            rv.evaluate(
                given_qrels,
                rv.read_run(run_path, name="r"),
                MEASURES,
                ties=ties,
                missing=missing,
                depth=depth,
            )
        return
    ours = rv.evaluate(
        given_qrels,
        rv.read_run(run_path, name="r"),
        MEASURES,
        ties=ties,
        missing=missing,
        depth=depth,
    )
    cut = rv.evaluate(
        given_qrels, rv.read_run(cut_path, name="r"), MEASURES, ties=ties, missing=missing
    )
    a, b = ours.to_frame(per_query=True), cut.to_frame(per_query=True)
    assert a["value"].to_numpy() == pytest.approx(b["value"].to_numpy(), abs=1e-12, nan_ok=True)


@st.composite
def with_identical_ids(draw):
    """A generated collection whose run retrieves some documents named like their query."""
    qrels, run = draw(collections())
    for qid, docs in run.items():
        if draw(st.booleans()):
            docs[qid] = draw(st.sampled_from([0.0, 1.0, 3.0]))
            if draw(st.booleans()):
                qrels.setdefault(qid, {})[qid] = draw(st.integers(0, 3))
    return qrels, run


@pytest.mark.slow
@EXAMPLE
@given(data=with_identical_ids(), ties=st.sampled_from(POLICIES), depth=st.sampled_from([None, 2]))
def test_ignoring_identical_ids_is_the_run_file_without_those_lines(
    tmp_path: Path, data, ties: str, depth
) -> None:
    qrels, run = data
    qrels_path, run_path = write_files(tmp_path, qrels, run)
    kept = {qid: {d: s for d, s in docs.items() if d != qid} for qid, docs in run.items()}
    kept = {qid: docs for qid, docs in kept.items() if docs}
    without = tmp_path / "without"
    without.mkdir(exist_ok=True)
    _, kept_path = write_files(without, qrels, kept)
    given_qrels = rv.read_qrels(qrels_path)
    ours = rv.evaluate(
        given_qrels,
        rv.read_run(run_path, name="r"),
        MEASURES,
        ties=ties,
        depth=depth,
        ignore_identical_ids=True,
    )
    if kept:
        reference = rv.evaluate(
            given_qrels, rv.read_run(kept_path, name="r"), MEASURES, ties=ties, depth=depth
        )
        assert ours.means().to_numpy() == pytest.approx(reference.means().to_numpy(), abs=1e-12)
    else:
        assert (ours.means().to_numpy() == 0).all()


@pytest.mark.parametrize("engine", ["stream", "memory"])
def test_every_engine_reads_the_same_documents(tmp_path: Path, engine: str) -> None:
    lines = [
        f"{q} Q0 {d} {r} {s} t\n"
        for q in ("1", "2", "3")
        for r, (d, s) in enumerate([("a", 3), ("b", 3), (q, 2), ("c", 1), ("d", 1)])
    ]
    run = tmp_path / "run.txt"
    run.write_text("".join(lines))
    qrels = rv.read_qrels(b"1 0 b 1\n1 0 1 2\n2 0 e 1\n", filename="qrels.txt")
    conventions = rv.EvalSettings(depth=3, ignore_identical_ids=True)
    engine_settings = (
        EngineSettings(engine=engine, block_queries=1)
        if engine == "stream"
        else EngineSettings(engine=engine)
    )
    got = evaluate_sources(qrels, [RunSource.of(run)], MEASURES, conventions, engine_settings)
    expected = rv.evaluate(qrels, rv.read_run(run), MEASURES, conventions)
    assert got.means().to_numpy() == pytest.approx(expected.means().to_numpy(), abs=1e-15)
    assert got.means().loc["run", "P@3"] == pytest.approx(expected.means().loc["run", "P@3"])
    # the query's own id kept
    by_hand = rv.evaluate(qrels, rv.read_run(run), ["P@3"], rv.EvalSettings(depth=3))
    assert by_hand.means().loc["run", "P@3"] != got.means().loc["run", "P@3"]
