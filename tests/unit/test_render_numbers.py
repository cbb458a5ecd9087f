"""``rankviz evaluate --per-query``'s text, written column by column from the evaluation's arrays:
the records of :meth:`Evaluation.to_dict` value for value, and n/a where a measure has none."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import math

import numpy as np
import pytest
from conftest import CRANFIELD, DL_HARD

import rankviz as rv
from rankviz.cli import main
from rankviz.cli.render_numbers import evaluation


def _three_queries(tmp_path) -> rv.Evaluation:
    (tmp_path / "qrels").write_text("q1 0 a 1\nq2 0 b 1\nq3 0 c 1\n")
    (tmp_path / "r1").write_text(
        "q1 Q0 a 1 3 r1\nq1 Q0 x 2 2 r1\nq2 Q0 x 1 3 r1\nq2 Q0 b 2 2 r1\nq3 Q0 c 1 1 r1\n"
    )
    (tmp_path / "r2").write_text("q1 Q0 x 1 3 r2\nq1 Q0 a 2 2 r2\nq3 Q0 c 1 1 r2\n")
    runs = [rv.read_run(tmp_path / name) for name in ("r1", "r2")]
    return rv.evaluate(rv.read_qrels(tmp_path / "qrels"), runs, ["RR", "P@2"])


def test_a_query_one_measure_has_no_value_for_is_shown_after_the_others_with_n_a(
    tmp_path,
) -> None:
    """r1's RR has no value for q2 (its rows follow RR's queries, then those P@2 adds), r2's P@2
    is infinite for q1 (n/a, as a table shows any value that is no finite number)."""
    result = _three_queries(tmp_path)
    values = {measure: column.copy() for measure, column in result.values.items()}
    values["RR"][1, 0] = np.nan
    values["P@2"][0, 1] = np.inf
    text = evaluation(dataclasses.replace(result, values=values), "table", per_query=True)
    assert text.split("\n\n")[0] == (
        "run  qid      RR     P@2\n"
        "r1   q1   1.0000  0.5000\n"
        "r1   q3   1.0000  0.5000\n"
        "r1   q2      n/a  0.5000\n"
        "r2   q1   0.5000     n/a\n"
        "r2   q2   0.0000  0.0000\n"
        "r2   q3   1.0000  0.5000"
    )
    tsv = evaluation(dataclasses.replace(result, values=values), "tsv", per_query=True)
    assert "r1\tRR\tq2" not in tsv and "r1\tP@2\tq2\t0.5\n" in tsv
    assert "r2\tP@2\tq1\t\n" in tsv  # not finite: an empty cell, as in the means' rows


def _cli(*argv: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(list(argv)) == 0
    return out.getvalue()


@pytest.mark.parametrize(
    "options",
    [
        [str(CRANFIELD), "bm25", "dense", "-m", "AP", "-m", "nDCG@10", "-m", "ERR@20"],
        [str(CRANFIELD), "bm25", "dense", "-m", "AP", "--ties", "random", "--trials", "4"],
        [str(DL_HARD), "--group-by", "query_intent", "-m", "RR", "--missing", "skip"],
        [str(DL_HARD), "--group-by", "query_intent", "--ties", "random", "--trials", "3"],
    ],
)
def test_each_query_s_tsv_line_is_its_record(options) -> None:
    """The tsv lines, read back, are the records the json output prints (made record by record),
    in their order: every key, every text, every double to the last bit (an empty cell where the
    record holds null)."""
    lines = _cli("evaluate", *options, "--per-query", "--format", "tsv").split("\n")
    records = json.loads(_cli("evaluate", *options, "--per-query", "--format", "json"))
    keys = lines[0].split("\t")
    assert keys == [k for k in records[-1] if not k.endswith("_not_finite")]
    body = [line for line in lines[1:] if line and not line.startswith("#")]
    assert len(body) == len(records) > 100
    for line, record in zip(body, records):
        for key, cell in zip(keys, line.split("\t"), strict=True):
            held = record.get(key)  # a group's mean row has no std
            if held is None:
                assert cell == ""
            elif isinstance(held, float):
                assert float(cell) == held and cell == repr(held)
            else:
                assert cell == held


def test_each_query_s_json_object_is_its_record_with_ids_json_must_escape(tmp_path) -> None:
    """Query ids holding a quote, a backslash and a letter beyond ASCII (written as is), values
    infinite (null, with ``value_not_finite``) and NaN (no record): the objects, parsed, are the
    records :meth:`Evaluation.to_dict` gives, in their order."""
    (tmp_path / "qrels").write_text('q"1 0 a 1\nq\\2 0 b 1\nqé3 0 c 1\n', encoding="utf-8")
    (tmp_path / "r1").write_text(
        'q"1 Q0 a 1 3 r1\nq\\2 Q0 x 1 3 r1\nq\\2 Q0 b 2 2 r1\nqé3 Q0 c 1 1 r1\n', encoding="utf-8"
    )
    qrels, run = rv.read_qrels(tmp_path / "qrels"), rv.read_run(tmp_path / "r1")
    result = rv.evaluate(qrels, [run], ["RR", "P@1"])
    values = {
        "RR": np.array([[np.inf], [np.nan], [0.25]]),
        "P@1": np.array([[-np.inf], [0.5], [1]]),
    }
    result = dataclasses.replace(result, values=values)
    text = evaluation(result, "json", per_query=True)
    assert "qé3" in text and text.endswith("]\n")
    expected = []
    for record in result.to_dict(per_query=True):
        value = record["value"]
        if math.isfinite(value):
            expected.append(record)
        else:
            sign = "+inf" if value > 0 else "-inf"
            expected.append({**record, "value": None, "value_not_finite": sign})
    assert json.loads(text) == expected
    assert [r["qid"] for r in expected if r["qid"] != "all"] == ['q"1', "qé3", 'q"1', "q\\2", "qé3"]
