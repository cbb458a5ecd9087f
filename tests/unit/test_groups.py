"""Query groups and weighting: per-group values, macro and weighted means, coverage, protocols."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pandas as pd
import pytest
from conftest import SAMPLES

import rankviz as rv
from rankviz.analyses.protocol import protocol_values
from rankviz.cli import main
from rankviz.errors import FormatError, OptionError
from rankviz.evaluation.aggregate import Aggregation
from rankviz.io.collection import open_collection
from rankviz.io.groups import NO_GROUP, derived_groups, read_groups, read_weights

DL_HARD = SAMPLES / "dl-hard-passage"


@pytest.fixture(scope="module")
def dl_hard():
    collection = open_collection(DL_HARD)
    return (
        collection,
        collection.read_qrels(),
        [collection.read_run(n) for n in ("bm25", "bm25_t5-zs")],
    )


def test_each_group_value_equals_evaluate_on_that_subset(dl_hard, tmp_path) -> None:
    collection, qrels, runs = dl_hard
    measures = [
        rv.parse(m, defaults={"rel": collection.config.rel}) for m in ("nDCG@10", "RR", "AP")
    ]
    frame = rv.evaluate(
        qrels, runs, measures, groups=collection.groups, group_by="query_intent"
    ).to_frame()
    judgments = qrels.to_frame()
    intent = collection.groups.column("query_intent")
    for group in ("description", "list", "entity"):
        subset = tmp_path / f"{group}.qrels"
        members = judgments[judgments.qid.map(intent) == group]
        subset.write_text(
            "".join(f"{q} 0 {d} {r}\n" for q, d, r in zip(members.qid, members.docid, members.rel))
        )
        alone = rv.evaluate(subset, runs, measures).to_frame()
        for run, measure, value in zip(alone.run, alone.measure, alone.value):
            row = frame[(frame.run == run) & (frame.measure == measure) & (frame.group == group)]
            assert row.value.iloc[0] == pytest.approx(value, abs=1e-12)
    overall = frame[frame.group == "all"].set_index(["run", "measure"]).value
    plain = rv.evaluate(qrels, runs, measures).to_frame().set_index(["run", "measure"]).value
    pd.testing.assert_series_equal(overall, plain, check_names=False)


def test_macro_mean_is_the_mean_of_group_means(dl_hard) -> None:
    collection, qrels, runs = dl_hard
    frame = rv.evaluate(
        qrels,
        runs,
        ["nDCG@10"],
        groups=collection.groups,
        group_by="topic_domain",
        aggregate="macro",
    ).to_frame()
    for run in ("bm25", "bm25_t5-zs"):
        rows = frame[frame.run == run]
        group_means = rows[rows.group != "all"].value
        assert len(group_means) == 12
        assert rows[rows.group == "all"].value.iloc[0] == pytest.approx(
            group_means.mean(), abs=1e-15
        )


def test_weights_reproduce_a_hand_computed_mean(tmp_path) -> None:
    (tmp_path / "qrels").write_text("a 0 x 1\nb 0 y 1\nc 0 z 1\n")
    (tmp_path / "run").write_text(
        "a Q0 x 1 3 t\nb Q0 w 1 3 t\nb Q0 y 2 2 t\nc Q0 v 1 3 t\nc Q0 u 2 2 t\nc Q0 t 3 1 t\n"
    )
    (tmp_path / "weights.tsv").write_text("qid\tweight\na\t1\nb\t3\nc\t0.5\n")
    weights = read_weights(tmp_path / "weights.tsv")
    frame = rv.evaluate(
        tmp_path / "qrels", tmp_path / "run", ["RR"], aggregate="weights", weights=weights
    ).to_frame()
    # RR: a = 1, b = 1/2, c = 0  ->  (1 * 1 + 3 * 0.5 + 0.5 * 0) / 4.5
    assert frame.value.iloc[0] == pytest.approx(2.5 / 4.5, abs=1e-15)
    with pytest.raises(OptionError, match="no weight for 1 queries: c"):
        rv.evaluate(
            tmp_path / "qrels",
            tmp_path / "run",
            ["RR"],
            aggregate="weights",
            weights=weights.drop("c"),
        ).to_frame()


def test_unknown_and_ungrouped_queries_are_reported(dl_hard, tmp_path) -> None:
    collection, qrels, runs = dl_hard
    judged = sorted(set(qrels.query_ids))
    lines = (
        ["qid\tkind"]
        + [f"{q}\t{'odd' if i % 2 else 'even'}" for i, q in enumerate(judged[:-3])]
        + ["not-judged\teven"]
    )
    (tmp_path / "groups.tsv").write_text("\n".join(lines) + "\n")
    groups = read_groups(tmp_path / "groups.tsv")
    evaluation = rv.evaluate(qrels, runs[:1], ["RR"], groups=groups, group_by="kind")
    frame = evaluation.to_frame(per_query=True)
    assert evaluation.coverage.unknown == ["not-judged"]
    assert evaluation.coverage.ungrouped == judged[-3:]
    assert set(frame[frame.group == NO_GROUP].qid) == {*judged[-3:], "all"}
    assert "not-judged" not in set(frame.qid)


def test_groups_file_errors_name_file_and_line(tmp_path) -> None:
    (tmp_path / "dup.tsv").write_text("qid\tkind\n1\ta\n2\tb\n1\tc\n")
    with pytest.raises(FormatError, match=r"dup.tsv, line 4.*already given on line 2"):
        read_groups(tmp_path / "dup.tsv")
    (tmp_path / "short.tsv").write_text("qid\tkind\tdomain\n1\ta\n")
    with pytest.raises(FormatError, match=r"short.tsv, line 2.*expected 3 fields, found 2"):
        read_groups(tmp_path / "short.tsv")
    (tmp_path / "weights.tsv").write_text("qid\tweight\n1\t-2\n")
    with pytest.raises(FormatError, match=r"weights.tsv, line 2.*not a finite number >= 0"):
        read_weights(tmp_path / "weights.tsv")
    (tmp_path / "nohead.tsv").write_text("1\ta\n")
    with pytest.raises(FormatError, match="the header must start with qid"):
        read_groups(tmp_path / "nohead.tsv")


def test_cast_conversations_and_turns_are_derived() -> None:
    collection = open_collection(SAMPLES / "trec-cast-2021")
    assert collection.groups.columns == ["conversation", "turn"]
    assert collection.groups.frame.loc["106_2"].tolist() == ["106", "2"]
    assert derived_groups(["1", "2_1"]) is None
    frame = rv.evaluate(
        collection.read_qrels(),
        collection.read_run(next(iter(collection.run_paths))),
        ["nDCG@10"],
        groups=collection.groups,
        group_by="conversation",
        aggregate="macro",
    ).to_frame()
    assert len(frame) == len(frame.group.unique()) > 10


def test_a_protocol_gives_each_group_its_primary_measure(dl_hard, tmp_path) -> None:
    folder = tmp_path / "dl-hard-protocol"
    shutil.copytree(DL_HARD, folder)
    with open(folder / "collection.toml", "a") as handle:
        handle.write(
            '\n[protocol]\ngroup_by = "serp_result_type"\ndefault = "nDCG@10"\nprimary = '
            '{ "KG" = "Hits@1" }\n'
        )
    collection = open_collection(folder)
    qrels = collection.read_qrels()
    tables = {n: rv.rank(collection.read_run(n), qrels) for n in ("bm25", "bm25_t5-zs")}
    settings = rv.EvalSettings(rel=collection.config.rel, gmax=collection.config.gmax)
    values = protocol_values(tables, collection.groups, collection.config.protocol, settings)
    assert "KG: Hits(rel=2)@1" in values.columns and "web passage: nDCG@10" in values.columns
    grouped = rv.evaluate(
        qrels,
        list(collection.read_run(n) for n in tables),
        ["nDCG@10", "Hits(rel=2)@1"],
        groups=collection.groups,
        group_by="serp_result_type",
    ).to_frame()
    kg = (
        grouped[(grouped.group == "KG") & (grouped.measure == "Hits(rel=2)@1")]
        .set_index("run")
        .value
    )
    assert values["KG: Hits(rel=2)@1"].to_dict() == pytest.approx(kg.to_dict())
    np.testing.assert_allclose(values["macro"], values.drop(columns="macro").mean(axis=1))
    assert main(["evaluate", str(folder), "bm25", "--protocol", "--format", "json"]) == 0
    (folder / "collection.toml").write_text(
        'name = "x"\n[protocol]\ngroup_by = "nope"\ndefault = "AP"\n'
    )
    with pytest.raises(rv.RankvizError, match="group_by 'nope' is not a group column"):
        open_collection(folder)


def test_cli_group_by_adds_a_group_column(capsys) -> None:
    argv = [
        "evaluate",
        str(DL_HARD),
        "bm25",
        "-m",
        "RR",
        "--group-by",
        "query_intent",
        "--per-query",
        "--format",
    ]
    assert main([*argv, "tsv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "run\tmeasure\tgroup\tqid\tvalue"
    assert lines[-1].split("\t")[:4] == ["bm25", "RR(rel=2)", "all", "all"]
    assert main([*argv, "json", "--aggregate", "macro"]) == 0
    records = json.loads(capsys.readouterr().out)
    group_rows = [r for r in records if r["qid"] == "all" and r["group"] != "all"]
    assert records[-1]["value"] == pytest.approx(np.mean([r["value"] for r in group_rows]))
    assert main(["evaluate", str(DL_HARD), "bm25", "--group-by", "nope"]) == 2
    assert "no group column 'nope'" in capsys.readouterr().err
    assert main(["evaluate", str(DL_HARD), "bm25", "--aggregate", "macro"]) == 2
    assert "needs a group column" in capsys.readouterr().err


def test_every_aggregate_is_the_one_mean(dl_hard) -> None:
    """Aggregation.mean over queries, groups or weights equals the hand-computed mean, on one run or
    many trials."""
    collection, qrels, runs = dl_hard
    frame = rv.evaluate(qrels, runs[:1], ["nDCG@10"]).to_frame(per_query=True)
    values = frame[frame.qid != "all"].set_index("qid").value
    groups = collection.groups.column("topic_domain").to_dict()
    weights = {q: float(i + 1) for i, q in enumerate(values.index)}
    member = pd.Series({q: groups.get(q, NO_GROUP) for q in values.index})
    expected = {
        "query": values.mean(),
        "macro": values.groupby(member).mean().mean(),
        "weights": sum(v * weights[q] for q, v in values.items()) / sum(weights.values()),
    }
    for how, value in expected.items():
        aggregation = Aggregation(how, group_of=groups, weights=weights)
        assert aggregation.mean(values.to_numpy(), values.index) == pytest.approx(value, abs=1e-15)
        trials = np.vstack([values.to_numpy(), values.to_numpy()[::-1]])  # leading axes are kept
        assert aggregation.mean(trials, values.index)[0] == pytest.approx(value, abs=1e-15)
