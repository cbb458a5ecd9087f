"""One pass per run (:mod:`rankviz.study.run_pass`): the numbers every page starts from, taken from
one table per run, equal the study's own evaluation, chance level, judged share and checks' facts;
kept on disk as plain arrays, they come back the same."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import CRANFIELD, DL_HARD
from generated import collections, write_files
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankviz as rv
from rankviz.analyses.checks import TOP_K
from rankviz.analyses.unjudged import judged_share
from rankviz.io.store import ArrayStore
from rankviz.study import CHANCE, CHECK, FACTS, FROM_PASSES, RUN_PASS, Study, StudyRequest
from rankviz.study.run_pass import RunPass

MEASURES = ["RR@10", "nDCG@10", "AP", "ERR@20", "P@5", "R@100", "Bpref", "RBP"]


def _same(a: rv.Evaluation, b: rv.Evaluation) -> None:
    assert a.runs == b.runs and list(a.qids) == list(b.qids)
    for measure in a.measures:
        np.testing.assert_array_equal(a.values[str(measure)], b.values[str(measure)])
    assert a.means().equals(b.means())


def _passes(study: Study, k: int = 10) -> list[tuple[str, RunPass]]:
    return [(name, study.ask(RUN_PASS, name, k=k, facts_k=TOP_K)) for name in study.run_names]


@pytest.mark.parametrize(
    ("folder", "options"),
    [
        # the quick subset: the default and a closed form with a depth; the rest in the full suite
        (CRANFIELD, {}),
        (CRANFIELD, {"ties": "expected", "depth": 50}),
        # its own order: the chance level and facts from trec_eval's
        pytest.param(CRANFIELD, {"ties": "optimistic", "missing": "skip"}, marks=pytest.mark.slow),
        pytest.param(CRANFIELD, {"ties": "run", "unjudged": "relevant:1"}, marks=pytest.mark.slow),
        pytest.param(DL_HARD, {"rel": 2, "ignore_identical_ids": True}, marks=pytest.mark.slow),
        pytest.param(DL_HARD, {"ties": "pessimistic", "gain": "exp"}, marks=pytest.mark.slow),
    ],
)
def test_a_pass_per_run_gives_the_studys_numbers(folder, options) -> None:
    study = Study.open(StudyRequest(folder, measures=MEASURES, options=options))
    passes = _passes(study)
    _same(study.ask(FROM_PASSES, passes), study.evaluation())
    _same(study.ask(FROM_PASSES, passes, chance=True), study.ask(CHANCE))
    facts = study.ask(FACTS, TOP_K)
    for name, found in passes:
        assert found.judged == judged_share(study.table(name), 10)
        assert found.facts == facts[name]
    assert (
        study.ask(CHECK, TOP_K, facts={n: p.facts for n, p in passes}).to_dict()
        == study.ask(CHECK, TOP_K).to_dict()
    )


def test_a_pass_kept_on_disk_comes_back_the_same(tmp_path) -> None:
    study = Study.open(StudyRequest(DL_HARD, measures=MEASURES, options={"rel": 2}))
    store = ArrayStore(tmp_path, budget=2**30)
    passes = _passes(study)
    for name, found in passes:
        store.put(name, found.to_arrays())
    back = [(name, RunPass.from_arrays(store.get(name))) for name, _ in passes]
    _same(study.ask(FROM_PASSES, back), study.ask(FROM_PASSES, passes))
    _same(study.ask(FROM_PASSES, back, chance=True), study.ask(FROM_PASSES, passes, chance=True))
    assert [p.facts for _, p in back] == [p.facts for _, p in passes]
    assert [p.judged for _, p in back] == [p.judged for _, p in passes]
    # the queries' places in strcmp order come back (the evaluation does not sort their ids)
    for (_, read), (_, taken) in zip(back, passes, strict=True):
        assert taken.values.qid_rank is not None
        assert read.values.qid_rank.tolist() == taken.values.qid_rank.tolist()
        assert read.values.qids.tolist() == taken.values.qids.tolist()
        assert read.values.qids.dtype == object
    assert store.get("no such key") is None


def test_a_passs_lists_of_query_ids_are_kept_as_packed_text() -> None:
    """A million query ids as fixed-width text cost 28 MB on disk: a pass keeps them, and the
    facts' lists of queries, as one array of bytes each (their text, NUL between two); only the
    sample of document ids (at most 20,000) stays fixed-width text."""
    study = Study.open(StudyRequest(CRANFIELD, measures=["AP"]))
    found = study.ask(RUN_PASS, study.run_names[0], k=10, facts_k=10)
    arrays = found.to_arrays()
    lists = ("unjudged", "missing", "unfound")
    assert {f"facts:{name}.packed" for name in lists} <= set(arrays)
    assert [k for k, v in arrays.items() if v.dtype.kind == "U"] == [
        "facts:sampled_docids",
        "meta",
    ]
    back = RunPass.from_arrays(arrays).facts
    for name in lists:
        assert getattr(back, name).tolist() == getattr(found.facts, name).tolist()
    assert "qids" not in arrays and arrays["qids.packed"].dtype == np.uint8
    qids = found.values.qids.tolist()
    assert arrays["qids.packed"].tobytes() == "\x00".join(qids).encode()
    assert RunPass.from_arrays(arrays).values.qids.tolist() == qids


def test_a_damaged_or_foreign_file_on_disk_is_no_pass(tmp_path) -> None:
    store = ArrayStore(tmp_path, budget=2**30)
    study = Study.open(StudyRequest(CRANFIELD, measures=["AP"]))
    found = study.ask(RUN_PASS, study.run_names[0], k=10)
    store.put("a", found.to_arrays())
    (path,) = tmp_path.glob("*.npz")
    path.write_bytes(path.read_bytes()[:100])  # cut short
    assert store.get("a") is None
    arrays = found.to_arrays()
    arrays["meta"] = np.array('{"format": "0"}')
    with pytest.raises(ValueError, match="another format"):
        RunPass.from_arrays(arrays)


def test_random_ties_take_no_pass() -> None:
    study = Study.open(
        StudyRequest(CRANFIELD, measures=["AP"], options={"ties": "random", "seed": 1})
    )
    with pytest.raises(ValueError, match="random ties"):
        study.ask(RUN_PASS, study.run_names[0], k=10)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    data=collections(),
    ties=st.sampled_from(["trec_eval", "expected", "optimistic", "pessimistic", "run"]),
    k=st.integers(1, 5),
)
@pytest.mark.slow
def test_generated_runs_with_ties_pass_to_the_studys_numbers(tmp_path, data, ties, k) -> None:
    qrels_path, run_path = write_files(tmp_path, *data)
    study = Study.open(
        StudyRequest(
            qrels_path,
            [run_path],
            measures=["RR", f"nDCG@{k}", "AP", f"P@{k}", "ERR"],
            options={"ties": ties},
        )
    )
    passes = [(name, study.ask(RUN_PASS, name, k=k, facts_k=k)) for name in study.run_names]
    _same(study.ask(FROM_PASSES, passes), study.evaluation())
    _same(study.ask(FROM_PASSES, passes, chance=True), study.ask(CHANCE))
    (name, found), facts = passes[0], study.ask(FACTS, k)
    assert found.facts == facts[name] and found.judged == judged_share(study.table(name), k)
    back = RunPass.from_arrays(found.to_arrays())
    _same(study.ask(FROM_PASSES, [(name, back)]), study.ask(FROM_PASSES, passes))
    assert back.facts == found.facts
