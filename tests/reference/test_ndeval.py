"""``rankviz ndeval`` prints ndeval 4.5's CSV byte for byte (tests/data/ndeval-generated, with its
source), every value equals pyndeval's per topic, and bad input is one line."""

from __future__ import annotations

import pytest
from conftest import ROOT, heavy_imports, run_cli

from rankviz.io.readers import read_run
from rankviz.io.subtopics import read_subtopic_qrels
from rankviz.measures.diversity import COLUMNS, DiversityJudgments, diversity_values

KEPT = ROOT / "tests" / "data" / "ndeval-generated"
QRELS, RUN = KEPT / "qrels.txt", KEPT / "run.txt"


def _cases():
    for line in (KEPT / "cases.tsv").read_text().splitlines():
        if line and not line.startswith("#"):
            name, arguments = line.split("\t")
            yield pytest.param(arguments.split(), KEPT / f"{name}.out", id=name)


@pytest.mark.parametrize(("arguments", "expected"), list(_cases()))
def test_the_output_is_ndevals_byte_for_byte(arguments, expected) -> None:
    done = run_cli("ndeval", *arguments, str(QRELS), str(RUN))
    assert done.returncode == 0, done.stderr
    assert done.stdout == expected.read_text()


@pytest.mark.parametrize(("alpha", "beta", "rel"), [(0.5, 0.5, 1), (0.3, 0.8, 1), (0.9, 0.2, 2)])
def test_every_value_is_pyndevals(alpha, beta, rel) -> None:
    """pyndeval sorts each topic by score, then docid ascending: it is given trec_eval's order
    (-traditional's) as scores, so both evaluate the same lists."""
    import pyndeval

    qrels, run = read_subtopic_qrels(QRELS), read_run(RUN)
    judgments = DiversityJudgments.of(qrels, rel=rel)
    values = diversity_values(judgments, run, alpha=alpha, beta=beta, by_rank=False)
    ours = {name: values.column(name) for name in COLUMNS}

    scored = [  # trec_eval's order: score descending, then docid descending
        (q, d, -float(i)) for q, docids in _trec_eval_order().items() for i, d in enumerate(docids)
    ]
    judged = [
        (q, str(s), d, int(j))
        for q, s, d, j in zip(
            qrels.qids.to_pylist(),
            qrels.subtopics.tolist(),
            qrels.docids.to_pylist(),
            qrels.judgments.tolist(),
            strict=True,
        )
    ]
    names = [n for n in COLUMNS if n in pyndeval.DEFAULT_MEASURES]
    theirs = (
        pyndeval.ndeval(judged, scored, measures=names, alpha=alpha, beta=beta)
        if rel == 1
        else (
            pyndeval.RelevanceEvaluator(
                judged, names, relevance_level=rel, alpha=alpha, beta=beta
            ).evaluate(scored)
        )
    )
    compared = 0
    for topic, values in theirs.items():
        for name in names:
            if name == "nNRBP" and values[name] != values[name]:  # NaN: no subtopic covered
                assert ours[name][topic] != ours[name][topic]
            else:
                assert ours[name][topic] == pytest.approx(values[name], abs=1e-12), (
                    topic,
                    name,
                )
            compared += 1
    assert compared == len(names) * 9  # every judged topic the run answers


def _trec_eval_order() -> dict[str, list[str]]:
    """Each query's docids by score descending, then docid descending (by hand, not rankviz's)."""
    lines: dict[str, list[tuple[float, str]]] = {}
    for line in RUN.read_text().splitlines():
        if line.strip():
            qid, _, docid, _, score, _ = line.split()
            lines.setdefault(qid, []).append((float(score), docid))
    return {q: [d for _, d in sorted(docs, reverse=True)] for q, docs in lines.items()}


@pytest.mark.parametrize(
    ("qrels", "run", "said"),
    [
        ("1 1 d1 1\n1 1 d1 0\n", None, "line 2: document 'd1' is judged for subtopic 1"),
        ("1 1 d1 1 x\n", None, "line 1: a diversity qrels line is"),
        ("1 a d1 1\n", None, "line 1: the subtopic 'a' is not a natural number"),
        ("1 1 d1 -1\n", None, "the judgment '-1' is not a natural number"),
        ("x 1 d1 1\n", None, "topic 'x' is not a natural number"),
        ("1 1 d1 1\n", "1 Q0 d1 1 2.0 r\n1 Q0 d2 1 1.0 r\n", "rank 1 is given twice for topic 1"),
    ],
)
def test_bad_input_is_one_line(tmp_path, qrels, run, said) -> None:
    (tmp_path / "qrels").write_text(qrels)
    (tmp_path / "run").write_text(run or "1 Q0 d1 1 2.0 r\n")
    done = run_cli("ndeval", str(tmp_path / "qrels"), str(tmp_path / "run"))
    assert done.returncode == 2 and done.stdout == ""
    assert said in done.stderr and len(done.stderr.splitlines()) == 1


def test_a_gzipped_run_reads_as_the_plain_one(tmp_path) -> None:
    import gzip

    packed = tmp_path / "run.gz"
    packed.write_bytes(gzip.compress(RUN.read_bytes()))
    plain = run_cli("ndeval", str(QRELS), str(RUN))
    zipped = run_cli("ndeval", str(QRELS), str(packed))
    assert zipped.returncode == 0 and zipped.stdout == plain.stdout


def test_a_run_topic_may_carry_a_task_prefix_as_ndeval_reads_it(tmp_path) -> None:
    """ndeval reads ``wt09-1`` in a run as topic 1 (its parseTopic): the same output."""
    prefixed = tmp_path / "run"
    prefixed.write_text(
        "".join(f"wt09-{line}\n" for line in RUN.read_text().splitlines() if line.strip())
    )
    plain = run_cli("ndeval", "-traditional", str(QRELS), str(RUN))
    done = run_cli("ndeval", "-traditional", str(QRELS), str(prefixed))
    assert done.returncode == 0 and done.stdout == plain.stdout


def test_the_drop_in_imports_only_what_it_uses() -> None:
    """A pipeline calls ``rankviz ndeval`` once per run: pandas (0.2 s to import, which a
    ``pa.array`` of a NumPy array brings in), scipy and the study are never imported."""
    assert heavy_imports("ndeval", str(QRELS), str(RUN)) == (0, [])
