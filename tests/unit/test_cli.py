"""The command line: formats, errors on stderr with a non-zero exit, collection folders."""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import subprocess
import sys

import pandas as pd
import pytest
from conftest import ROOT, SAMPLES, TE, run_cli

from rankviz.cli import main


def test_tsv_per_query_then_means_at_full_precision(capsys) -> None:
    code = main(
        [
            "evaluate",
            str(TE / "qrels.txt"),
            str(TE / "run_STANDARD.txt"),
            "-m",
            "MAP",
            "-m",
            "RR@10",
            "--per-query",
            "--format",
            "tsv",
        ]
    )
    lines = capsys.readouterr().out.splitlines()
    assert code == 0
    assert lines[0] == "run\tmeasure\tqid\tvalue"
    assert float(lines[1].split("\t")[3]) == 0.032425344803747251
    rows = [line.split("\t") for line in lines[1:]]
    assert [r[2] for r in rows] == ["301", "302", "303", "301", "302", "303", "all", "all"]
    assert float(rows[-2][3]) == 0.17854506039656948


def test_json_records(capsys) -> None:
    main(
        [
            "evaluate",
            str(TE / "qrels.txt"),
            str(TE / "run_STANDARD.txt"),
            str(TE / "run_trunc.txt"),
            "-m",
            "nDCG@10",
            "--format",
            "json",
        ]
    )
    records = json.loads(capsys.readouterr().out)
    assert {r["run"] for r in records} == {"run_STANDARD", "run_trunc"}
    assert set(records[0]) == {"run", "measure", "qid", "value"}


def test_table_names_the_conventions_in_force(capsys) -> None:
    main(
        [
            "evaluate",
            str(TE / "qrels.txt"),
            str(TE / "run_trunc.txt"),
            "-m",
            "RR",
            "--missing",
            "skip",
            "--ties",
            "run",
        ]
    )
    out = capsys.readouterr().out
    assert "rank column" in out and "only the queries a run answers" in out


def test_errors_go_to_stderr_with_exit_2(capsys, tmp_path) -> None:
    bad = tmp_path / "bad.run"
    bad.write_text("301 Q0 doc 1 x tag\n")
    assert main(["evaluate", str(TE / "qrels.txt"), str(bad)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and f"{bad}, line 1: score 'x' is not a number" in captured.err
    assert main(["evaluate", str(TE / "qrels.txt"), str(TE / "run_trunc.txt"), "-m", "NOPE"]) == 2
    assert "unknown measure" in capsys.readouterr().err


def test_collection_folder_uses_its_defaults(capsys) -> None:
    assert main(["evaluate", str(SAMPLES / "dl-hard-passage"), "bm25", "--format", "tsv"]) == 0
    rows = [line.split("\t") for line in capsys.readouterr().out.splitlines()[1:]]
    values = {r[1]: float(r[3]) for r in rows}
    assert round(values["RR(rel=2)"], 4) == 0.5044 and round(values["nDCG@10"], 4) == 0.3037


@pytest.mark.slow
def test_module_entry_point() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "rankviz",
            "evaluate",
            str(TE / "qrels.txt"),
            str(TE / "run_STANDARD.txt"),
            "-m",
            "P@10",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "0.3000" in done.stdout


def _run_json(capsys, argv: list[str]):
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_ties_report_bounds_and_reproducible_random(capsys) -> None:
    argv = [
        "ties",
        str(SAMPLES / "cranfield"),
        "qld",
        "rrf",
        "-m",
        "RR@10",
        "--trials",
        "50",
        "--seed",
        "3",
        "--format",
        "json",
    ]
    report = _run_json(capsys, argv)
    assert report == _run_json(capsys, argv)
    assert report["statistics"]["rrf"]["queries with ties"] == 134
    (section,) = report["measures"]
    rrf = section["means"]["rrf"]
    assert rrf["pessimistic"] < rrf["expected"] < rrf["optimistic"]
    assert rrf["width"] == rrf["optimistic"] - rrf["pessimistic"]
    assert abs(rrf["random"] - rrf["expected"]) <= 5 * rrf["random std"]
    assert section["means"]["qld"]["random std"] == 0.0
    assert [(p["baseline"], p["run"]) for p in section["pairs"]] == [("qld", "rrf")]
    pair = section["pairs"][0]  # signed as compare: run - baseline
    assert pair["delta trec_eval"] == pytest.approx(
        section["means"]["rrf"]["trec_eval"] - section["means"]["qld"]["trec_eval"]
    )
    moving = section["queries"]["rrf"]
    assert len(moving) == 5 and all(q["width"] > 0 for q in moving.values())


def test_evaluate_expected_and_random_ties(capsys) -> None:
    cranfield = SAMPLES / "cranfield"
    expected = _run_json(
        capsys,
        [
            "evaluate",
            str(cranfield),
            "rrf",
            "-m",
            "nDCG@10",
            "--ties",
            "expected",
            "--format",
            "json",
        ],
    )
    pessimistic = _run_json(
        capsys,
        [
            "evaluate",
            str(cranfield),
            "rrf",
            "-m",
            "nDCG@10",
            "--ties",
            "pessimistic",
            "--format",
            "json",
        ],
    )
    assert pessimistic[0]["value"] < expected[0]["value"]
    argv = [
        "evaluate",
        str(cranfield),
        "rrf",
        "-m",
        "nDCG@10",
        "--ties",
        "random",
        "--trials",
        "40",
        "--seed",
        "9",
    ]
    assert main([*argv, "--format", "tsv", "--per-query"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "run\tmeasure\tqid\tvalue\tstd"
    assert (
        lines[-1].split("\t")[:3] == ["rrf", "nDCG@10", "all"]
        and float(lines[-1].split("\t")[4]) > 0
    )
    assert main([*argv, "--format", "tsv", "--per-query"]) == 0
    assert capsys.readouterr().out.splitlines() == lines
    assert main(argv) == 0
    assert "40 random orders within equal scores (seed 9)" in capsys.readouterr().out


@pytest.mark.slow
def test_compare_json_records_match_the_api(capsys) -> None:
    import numpy as np
    from scipy import stats

    import rankviz as rv
    from rankviz.analyses.effect import topic_set_size

    argv = [
        "compare",
        str(SAMPLES / "cranfield"),
        "bm25",
        "dense",
        "rrf",
        "-m",
        "nDCG@10",
        "--format",
        "json",
    ]
    records = _run_json(capsys, [*argv, "--test", "t", "--correction", "bonferroni"])
    assert [(r["baseline"], r["run"]) for r in records] == [("bm25", "dense"), ("bm25", "rrf")]
    keys = (
        "baseline run measure test n mean_baseline mean_run delta statistic p_value p_adjusted "
        "ci_low ci_high"
    )
    assert list(records[0]) == [*keys.split(), "effect_size", "wins", "ties", "losses"]
    collection = rv.io.collection.open_collection(SAMPLES / "cranfield")
    qrels = collection.read_qrels()
    matrix = rv.evaluate(
        qrels, [collection.read_run(n) for n in ("bm25", "dense", "rrf")], ["nDCG@10"]
    ).matrix("nDCG@10")
    reference = stats.ttest_rel(matrix["rrf"], matrix["bm25"])
    assert (
        records[1]["p_value"] == reference.pvalue and records[1]["statistic"] == reference.statistic
    )
    assert records[1]["p_adjusted"] == min(1.0, 2 * reference.pvalue)
    assert records[1]["wins"] + records[1]["ties"] + records[1]["losses"] == records[1]["n"] == 225
    seeded = [*argv, "--test", "randomization", "--seed", "4", "--resamples", "2000"]
    assert _run_json(capsys, seeded) == _run_json(capsys, seeded)
    reseeded = [*argv, "--test", "randomization", "--seed", "5", "--resamples", "2000"]
    assert [r["p_value"] for r in _run_json(capsys, seeded)] != [
        r["p_value"] for r in _run_json(capsys, reseeded)
    ]
    assert min(r["p_value"] for r in _run_json(capsys, seeded)) >= 1 / 2001
    detect = _run_json(capsys, [*argv, "--detect", "0.03"])
    sd = (matrix["rrf"] - matrix["bm25"]).std(ddof=1)
    assert (
        detect[1]["queries_needed"] == topic_set_size(0.03, sd)
        and "queries_needed" not in records[1]
    )
    pairs = _run_json(
        capsys, [*argv, "--test", "tukey", "--pairs", "all", "--seed", "1", "--resamples", "1000"]
    )
    assert len(pairs) == 3 and all(np.isclose(r["p_value"], r["p_adjusted"]) for r in pairs)


def test_compare_table_and_errors(capsys) -> None:
    folder = str(SAMPLES / "cranfield")
    assert main(["compare", folder, "bm25", "rrf", "-m", "AP", "--baseline", "rrf"]) == 0
    out = capsys.readouterr().out
    assert "worse" in out and "# test: t (two-sided); correction: holm; alpha 0.05" in out
    assert main(["compare", folder, "bm25", "rrf", "-m", "AP", "--baseline", "ghost"]) == 2
    assert "ghost" in capsys.readouterr().err
    assert main(["compare", folder, "bm25", "-m", "AP"]) == 2
    assert "at least two runs" in capsys.readouterr().err


def test_ties_report_lists_verdicts_that_change_with_the_tie_order(capsys) -> None:
    argv = [
        "ties",
        str(SAMPLES / "cranfield"),
        "bm25",
        "rrf",
        "qld",
        "-m",
        "RR@10",
        "--baseline",
        "qld",
        "--format",
        "json",
    ]
    (section,) = _run_json(capsys, argv)["measures"]
    assert (
        section["verdicts"]["rrf"]["trec_eval"] == "n.s."
        and section["verdicts"]["rrf"]["optimistic"] == "better"
    )
    assert (
        section["verdicts"]["rrf"]["changes"] is True
        and section["verdicts"]["bm25"]["changes"] is False
    )


@pytest.mark.slow
def test_metrics_report_json(capsys) -> None:
    argv = [
        "metrics-report",
        str(SAMPLES / "cranfield"),
        "bm25",
        "dense",
        "rrf",
        "--seed",
        "2",
        "--resamples",
        "200",
    ]
    asked = [*argv, "--splits", "100", "--answers", "one", "--graded", "no", "--stops", "no"]
    asked += ["--format", "json"]
    report = _run_json(capsys, asked)
    assert report == _run_json(capsys, asked)
    assert [r["measure"] for r in report["recommendations"]] == ["RR@10", "Hits@10"]
    assert set(report["means"]) == {"bm25", "dense", "rrf"} and "nDCG@10" in report["kendall"]
    assert (
        report["kendall"]["AP"]["AP"] == 1.0 and report["discriminative_power"]["AP"]["pairs"] == 3
    )
    assert main(["metrics-report", str(SAMPLES / "cranfield"), "bm25", "-m", "AP"]) == 2
    assert "two or more runs" in capsys.readouterr().err


def test_compare_wilcoxon_zero_method_is_an_explicit_option(capsys) -> None:
    from scipy import stats

    import rankviz as rv

    argv = [
        "compare",
        str(SAMPLES / "cranfield"),
        "bm25",
        "qld",
        "-m",
        "RR@10",
        "--test",
        "wilcoxon",
        "--format",
        "json",
    ]
    collection = rv.io.collection.open_collection(SAMPLES / "cranfield")
    qrels = collection.read_qrels()
    matrix = rv.evaluate(
        qrels, [collection.read_run(n) for n in ("bm25", "qld")], ["RR@10"]
    ).matrix("RR@10")
    for method in ("wilcox", "pratt", "zsplit"):
        (record,) = _run_json(capsys, [*argv, "--zero-method", method])
        assert (
            record["p_value"]
            == stats.wilcoxon(matrix["qld"], matrix["bm25"], zero_method=method).pvalue
        )


@pytest.mark.parametrize("fmt", ["table", "tsv", "json"])
@pytest.mark.few
def test_evaluate_never_imports_pandas(fmt: str) -> None:
    """pandas costs 0.15-0.2 s to import; the engine's path from files to printed numbers does
    without it."""
    cranfield = SAMPLES / "cranfield"
    script = (
        "import sys; from rankviz.cli import main; "
        f"main(['evaluate', {str(cranfield / 'qrels.txt')!r}, "
        f"{str(cranfield / 'runs' / 'bm25.run.gz')!r}, "
        f"'-m', 'AP', '-m', 'nDCG@10', '-m', 'ERR@20', '--per-query', '--format', {fmt!r}]); "
        "print('pandas' in sys.modules, file=sys.stderr)"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert "ERR@20" in done.stdout
    assert done.stderr.strip() == "False"


@pytest.mark.few
def test_trec_eval_scoring_missed_queries_imports_no_pandas(tmp_path) -> None:
    """``-c`` adds a line for each judged query the run misses; building those lines once imported
    pandas (pyarrow's ``pa.array`` of a Python list looks for pandas types), a fifth of a second
    of a drop-in that should cost what trec_eval costs."""
    cranfield = SAMPLES / "cranfield"
    qrels = (cranfield / "qrels.txt").read_text().splitlines()
    first = qrels[0].split()[0]
    run = tmp_path / "missed.run"
    with gzip.open(cranfield / "runs" / "bm25.run.gz", "rt") as lines:
        run.write_text("".join(line for line in lines if line.split()[0] != first))
    script = (
        "import sys; from rankviz.cli import main; "
        f"main(['trec-eval', '-c', '-q', {str(cranfield / 'qrels.txt')!r}, {str(run)!r}]); "
        "print('pandas' in sys.modules, file=sys.stderr)"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert f"map                   \t{first}\t0.0000" in done.stdout
    assert done.stderr.strip() == "False"


def test_table_lists_queries_then_means(capsys) -> None:
    argv = [
        "evaluate",
        str(TE / "qrels.txt"),
        str(TE / "run_STANDARD.txt"),
        "-m",
        "RR",
        "-m",
        "AP",
        "--per-query",
    ]
    assert main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["run", "qid", "RR", "AP"]
    assert lines[1].split() == ["run_STANDARD", "301", "0.1667", "0.0324"]
    assert lines[5].split() == ["run", "RR", "AP"]
    assert lines[6].split() == ["run_STANDARD", "0.4064", "0.1785"]


def test_a_test_that_cannot_run_is_untested_and_says_why(capsys, tmp_path) -> None:
    """One judged query: no paired test has a distribution; the row says n/a and a footnote says why
    (that used to be a bare ValueError the CLI did not catch, then an error for the whole table)."""
    (tmp_path / "qrels.txt").write_text("q1 0 d1 1\n")
    for name, score in (("a", 1.0), ("b", 2.0)):
        (tmp_path / f"{name}.run").write_text(f"q1 Q0 d1 1 {score} t\nq1 Q0 d2 2 0.5 t\n")
    argv = [
        "compare",
        str(tmp_path / "qrels.txt"),
        str(tmp_path / "a.run"),
        str(tmp_path / "b.run"),
        "-m",
        "AP",
    ]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "n/a" in out and "n/a in p_value: fewer than two queries" in out


def test_rankviz_errors_are_value_errors_too() -> None:
    import pandas as pd

    import rankviz as rv
    from rankviz.analyses import pair_tests

    with pytest.raises(ValueError):
        rv.parse("nope@3")
    with pytest.raises(rv.RankvizError):
        pair_tests.compare_runs(
            pd.DataFrame({"a": [0.1, 0.2], "b": [0.3, 0.1]}), measure="AP", baseline="ghost"
        )


def test_every_option_has_help_that_shows_its_default() -> None:
    import argparse

    from rankviz.cli.parser import build_parser

    parser = build_parser()
    commands = dict(next(a for a in parser._actions if a.dest == "command").choices)
    while commands:
        name, command = commands.popitem()
        for action in command._actions:
            # judgments add|import|export, tags add|export
            if isinstance(action, argparse._SubParsersAction):
                commands.update({f"{name} {sub}": parser for sub, parser in action.choices.items()})
                continue
            if action.dest in ("help", "qrels", "runs"):
                continue
            assert action.help, (name, action.dest)
            # an optional flag says what it is without it
            if action.option_strings and not action.required:
                assert "default" in action.help or action.dest in (
                    "per_query",
                    "protocol",
                    "no_check",
                ), (
                    name,
                    action.dest,
                    action.help,
                )


def test_the_table_footer_lists_every_convention_the_app_banner_does(capsys) -> None:
    main(
        [
            "evaluate",
            str(SAMPLES / "dl-hard-passage"),
            "bm25",
            "-m",
            "ERR@20",
            "--gain",
            "exp",
            "--gmax",
            "5",
        ]
    )
    out = capsys.readouterr().out
    expected = (
        "relevant: grade >= 2",
        "nDCG gain: 2^grade - 1",
        "gmax = 5",
        "ties:",
        "trec_eval -c",
        "mean over queries",
    )
    assert all(text in out for text in expected)


def test_queries_needed_is_a_whole_number(capsys) -> None:
    argv = ["compare", str(SAMPLES / "cranfield"), "bm25", "rrf", "-m", "AP", "--detect", "0.03"]
    assert main([*argv, "--format", "tsv"]) == 0
    header, row = capsys.readouterr().out.splitlines()[:2]
    needed = row.split("\t")[header.split("\t").index("queries_needed")]
    assert needed.isdigit()
    assert main(argv) == 0
    assert (
        ".0" not in capsys.readouterr().out.split("queries_needed")[1].splitlines()[1].split()[-2]
    )


def test_an_empty_cell_says_why(capsys, tmp_path) -> None:
    """Identical runs: no spread, so the effect size cannot be standardised; the table says so."""
    run = (SAMPLES / "cranfield" / "runs" / "bm25.run.gz").read_bytes()
    (tmp_path / "a.run.gz").write_bytes(run)
    (tmp_path / "b.run.gz").write_bytes(run)
    qrels = str(SAMPLES / "cranfield" / "qrels.txt")
    assert (
        main(["compare", qrels, str(tmp_path / "a.run.gz"), str(tmp_path / "b.run.gz"), "-m", "AP"])
        == 0
    )
    out = capsys.readouterr().out
    assert "n/a" in out and "# n/a in effect_size: every per-query difference is the same" in out
    assert (
        main(
            [
                "compare",
                qrels,
                str(tmp_path / "a.run.gz"),
                str(tmp_path / "b.run.gz"),
                "-m",
                "AP",
                "--format",
                "json",
            ]
        )
        == 0
    )
    (record,) = json.loads(capsys.readouterr().out)  # strict JSON: NaN is null
    assert record["effect_size"] is None


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--seed", "-1"], "seed=-1: must be from 0"),
        (
            ["--trials", "1000000000", "--ties", "random"],
            "trials=1000000000: must be from 1 to 10,000",
        ),
        (["--rel", "1.7"], "rel='1.7': expected a whole number"),
        (["--rel", "\u00b9"], "rel='\u00b9': expected a whole number"),
        (["-m", "nDCG@1000000000000000000000"], "at most 2147483647"),
        (["--gmax", "100000"], "gmax=100000: must be from 1 to 1,000"),
    ],
)
def test_options_out_of_range_are_one_line_errors(capsys, argv, message) -> None:
    with pytest.raises(SystemExit) if argv[0] != "-m" else contextlib.nullcontext():
        code = main(["evaluate", str(TE / "qrels.txt"), str(TE / "run_STANDARD.txt"), *argv])
        assert code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def _frame(**columns):
    return lambda path: pd.DataFrame(columns).to_parquet(path)


NUL_LATE = "".join(f"301 Q0 d{i} {i} 1.0 t\n" for i in range(5000)).encode() + (
    b"301 Q0 d\x00x 5000 0.5 t\n"
)
BIG = "100000000000000000000000000000"
TOML = {
    "c/collection.toml": b"rel = 1.7\n",
    "c/qrels.txt": "QRELS_BYTES",
    "c/runs/a.txt": "RUN_BYTES",
}
BAD_INPUTS = [
    # (what, files to write {name: bytes, a writer or a marker}, argv, message)
    (
        "null qid in Parquet",
        {"r.parquet": _frame(qid=["301", None], docid=["a", "b"], score=[1.0, 0.5])},
        ["evaluate", "QRELS", "r.parquet"],
        "row 2: qid is missing, not text",
    ),
    (
        "list-typed qids",
        {"r.parquet": _frame(qid=[["301"], ["302"]], docid=["a", "b"], score=[1.0, 0.5])},
        ["evaluate", "QRELS", "r.parquet"],
        "qid is ndarray, not text",
    ),
    (
        "boolean scores",
        {"r.parquet": _frame(qid=["301", "302"], docid=["a", "b"], score=[True, False])},
        ["evaluate", "QRELS", "r.parquet"],
        "score must be numbers, not true/false",
    ),
    (
        "grade 10^29 in TREC qrels",
        {"q.txt": f"301 0 a {BIG}\n".encode()},
        ["evaluate", "q.txt", "RUN"],
        f"q.txt, line 1: relevance grade {BIG} is out of range",
    ),
    (
        "grade 10^29 in CSV qrels",
        {"q.csv": f"qid,docid,rel\n301,a,{BIG}\n".encode()},
        ["evaluate", "q.csv", "RUN"],
        "q.csv, line 2: relevance grade",
    ),
    (
        "fractional grade",
        {"q.txt": b"301 0 a 1.5\n"},
        ["evaluate", "q.txt", "RUN"],
        "relevance grade '1.5' is not an integer",
    ),
    (
        "NUL byte after 64 KiB",
        {"r.txt": NUL_LATE},
        ["evaluate", "QRELS", "r.txt"],
        "line 5001: binary content (NUL byte)",
    ),
    (
        "a symlink loop",
        {"loop.run": "symlink-loop"},
        ["evaluate", "QRELS", "loop.run"],
        "loop.run: cannot be read",
    ),
    (
        "metrics-report --resamples 0",
        {},
        ["metrics-report", "QRELS", "RUN", "RUN2", "--resamples", "0"],
        "n_resamples=0: must be from 100",
    ),
    (
        "metrics-report -k 0",
        {},
        ["metrics-report", "QRELS", "RUN", "RUN2", "-k", "0"],
        "k=0: must be from 1",
    ),
    ("ties -k -1", {}, ["ties", "QRELS", "RUN", "-k", "-1"], "k=-1: must be from 1"),
    (
        "ties --queries -1",
        {},
        ["ties", "QRELS", "RUN", "--queries", "-1"],
        "queries=-1: must be from 1",
    ),
    (
        "compare --resamples 10^9",
        {},
        ["compare", "QRELS", "RUN", "RUN2", "--resamples", "1000000000"],
        "must be from 100 to 1,000,000",
    ),
    (
        "evaluate --trials 10^9",
        {},
        ["evaluate", "QRELS", "RUN", "--ties", "random", "--trials", "1000000000"],
        "must be from 1 to 10,000",
    ),
    (
        "evaluate --seed -1",
        {},
        ["evaluate", "QRELS", "RUN", "--seed", "-1"],
        "seed=-1: must be from 0",
    ),
    (
        "rel 1.7 in collection.toml",
        TOML,
        ["evaluate", "c"],
        "collection.toml: rel=1.7: expected a whole number",
    ),
]


@pytest.mark.parametrize(
    ("what", "files", "argv", "message"), BAD_INPUTS, ids=[case[0] for case in BAD_INPUTS]
)
def test_bad_inputs_and_options_are_one_line_errors(
    tmp_path, monkeypatch, capsys, what, files, argv, message
) -> None:
    for name, content in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if content == "symlink-loop":
            path.symlink_to(path)
        elif callable(content):
            content(path)
        else:
            data = {
                "QRELS_BYTES": (TE / "qrels.txt").read_bytes(),
                "RUN_BYTES": (TE / "run_STANDARD.txt").read_bytes(),
            }
            path.write_bytes(data.get(content, content) if isinstance(content, str) else content)
    places = {
        "QRELS": str(TE / "qrels.txt"),
        "RUN": str(TE / "run_STANDARD.txt"),
        "RUN2": str(TE / "run_trunc.txt"),
    }
    monkeypatch.chdir(tmp_path)
    argv = [places.get(a, a) for a in argv]
    try:
        code = main(argv)
    except SystemExit as exit_:  # argparse refuses a flag's value itself
        code = exit_.code
    err = capsys.readouterr().err
    assert code == 2, err
    assert message in err and "Traceback" not in err
    assert len([line for line in err.splitlines() if "error" in line]) == 1


def test_an_unreadable_file_is_a_message(monkeypatch, capsys) -> None:
    """Permission denied (as root the file system never says it, so open() is made to)."""
    import builtins

    real_open = builtins.open

    def refusing(file, *args, **kwargs):
        if str(file).endswith("run_trunc.txt"):
            raise PermissionError(13, "Permission denied", str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", refusing)
    assert main(["evaluate", str(TE / "qrels.txt"), str(TE / "run_trunc.txt")]) == 2
    assert "permission denied" in capsys.readouterr().err


def test_rankviz_app_says_what_is_missing(monkeypatch, capsys, tmp_path) -> None:
    """``rankviz app`` without the app extra names it; a folder that is not there is said before
    anything starts."""
    import importlib.util

    from rankviz.cli import main

    assert main(["app", str(tmp_path / "missing")]) == 2
    assert "missing: no such folder" in capsys.readouterr().err
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "streamlit" else real(name, *a),
    )
    assert main(["app"]) == 2
    err = capsys.readouterr().err  # the packages by name: no registry serves rankviz[app]
    assert "pip install 'streamlit<2,>=1.50' 'plotly>=5.22'" in err and "rankviz[" not in err


def test_an_output_file_that_cannot_be_written_is_one_line_and_exit_2(tmp_path, capsys) -> None:
    """``report -o missing_folder/x.html`` ended in a traceback: a path the system refuses is an
    input error."""
    from rankviz.io.meeting import MeetingStore

    record = tmp_path / "record.sqlite"
    MeetingStore(record, scale=(0, 4), collection="Cranfield").judge(
        "1", "184", 2, by="Ann", via="typed name"
    )
    target = tmp_path / "missing_folder" / "x.html"
    assert (
        main(["report", str(SAMPLES / "cranfield"), "--judgments", str(record), "-o", str(target)])
        == 2
    )
    err = capsys.readouterr().err.splitlines()
    assert (
        err[-1] == f"rankviz: error: {target}: No such file or directory"
        and not target.parent.exists()
    )


def test_a_run_linked_from_outside_the_collection_is_named_without_its_text(
    tmp_path, capsys
) -> None:
    """A run in runs/ that links to a file elsewhere on the machine: the error names the run and the
    line, and quotes nothing of that file (the app does not follow such links at all); a file given
    by its own path is quoted as always."""
    import shutil

    folder = tmp_path / "collection"
    (folder / "runs").mkdir(parents=True)
    shutil.copy(SAMPLES / "cranfield" / "qrels.txt", folder / "qrels.txt")
    secret = tmp_path / "elsewhere.txt"
    secret.write_text("secret-token-abc123 line\n")
    (folder / "runs" / "x.txt").symlink_to(secret)
    assert main(["evaluate", str(folder)]) == 2
    err = capsys.readouterr().err
    assert (
        f"{folder / 'runs' / 'x.txt'}, line 1: cannot be read as a run" in err
        and "secret-token" not in err
    )
    assert main(["evaluate", str(folder / "qrels.txt"), str(secret)]) == 2
    assert "secret-token" in capsys.readouterr().err  # named by the person who runs the command


@pytest.mark.parametrize(
    ("given", "address", "warned"),
    [
        ([], "127.0.0.1", False),
        (["--host", "0.0.0.0"], "0.0.0.0", True),
        (["--host", "::1"], "::1", False),
    ],
)
def test_rankviz_app_listens_on_this_machine_unless_told_and_says_so(
    monkeypatch, capsys, given, address, warned
) -> None:
    """Local by default: ``rankviz app`` serves 127.0.0.1; ``--host`` another address, and one
    line says when anyone who reaches the machine could record judgments."""
    import os

    from rankviz._memory import TUNABLES
    from rankviz.cli import main

    started, environments = [], []
    monkeypatch.delenv("GLIBC_TUNABLES", raising=False)
    monkeypatch.delenv("NUMPY_MADVISE_HUGEPAGE", raising=False)
    monkeypatch.setattr(
        os,
        "execve",
        lambda path, command, environment: (
            started.append(command),
            environments.append(environment),
        ),
    )
    assert main(["app", *given]) == 0
    command = started[0]
    assert command[command.index("--server.address") + 1] == address
    # the server's allocator reuses freed blocks (rankviz/_memory.py); the rest of the environment
    # is this process's
    assert environments[0]["GLIBC_TUNABLES"] == TUNABLES
    assert environments[0]["NUMPY_MADVISE_HUGEPAGE"] == "0"
    assert environments[0]["PATH"] == os.environ["PATH"]
    err = capsys.readouterr().err
    assert ("without sign-in: anyone who reaches this server" in err) == warned


def test_streamlit_run_app_py_serves_this_machine_alone() -> None:
    """The README's ``streamlit run app.py`` reads the checkout's .streamlit/config.toml."""
    import tomllib

    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["server"]["address"] == "127.0.0.1"


@pytest.mark.slow
def test_the_command_lines_allocator_reuses_freed_blocks() -> None:
    """``rankviz`` sets glibc's thresholds before its work (a new process, as a user starts it): a
    freed 56 MB array is reused by the next one, where glibc's default hands it back to the kernel
    and the next one faults in fresh pages."""
    import os
    import platform
    import subprocess
    import sys

    if platform.libc_ver()[0] != "glibc":
        pytest.skip("the thresholds are glibc's")
    probe = (
        "import resource, sys, numpy as np\n"
        "if sys.argv[1] == 'rankviz':\n"
        "    from rankviz._memory import reuse_freed_memory\n"
        "    reuse_freed_memory()\n"
        "a = np.ones(7_000_000)\n"
        "b = a * 2.0; del b\n"
        "before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt\n"
        "for _ in range(10):\n"
        "    b = a * 2.0; del b\n"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)\n"
    )
    environment = {k: v for k, v in os.environ.items() if k != "GLIBC_TUNABLES"}
    faults = {
        mode: int(
            subprocess.run(
                [sys.executable, "-c", probe, mode],
                capture_output=True,
                text=True,
                check=True,
                env=environment,
            ).stdout
        )
        for mode in ("default", "rankviz")
    }
    # 10 arrays of 56 MB: 13,700 pages each when fresh (fewer with huge pages); reused: none
    assert faults["rankviz"] < 100 < faults["default"], faults
    advice = (
        "import numpy\n"
        "from rankviz._memory import reuse_freed_memory\n"
        "before = numpy._core.multiarray._get_madvise_hugepage()\n"
        "reuse_freed_memory()\n"
        "print(before, numpy._core.multiarray._get_madvise_hugepage())\n"
    )
    environment.pop("NUMPY_MADVISE_HUGEPAGE", None)
    said = subprocess.run(
        [sys.executable, "-c", advice], capture_output=True, text=True, check=True, env=environment
    ).stdout.split()
    assert said[1] == "False"  # numpy's arrays in small pages from then on (whatever before)


def test_trec_evals_spellings_give_the_same_numbers_as_the_canonical_names(capsys) -> None:
    """``-m P.5,10 -m ndcg_cut_10 -m map``: trec_eval's spellings, several cutoffs in one, are the
    canonical measures and print under their canonical names."""
    files = [str(TE / "qrels.txt"), str(TE / "run_STANDARD.txt"), "--format", "json"]
    spelled = _run_json(
        capsys, ["evaluate", *files, "-m", "P.5,10", "-m", "ndcg_cut_10", "-m", "map"]
    )
    canonical = _run_json(
        capsys, ["evaluate", *files, "-m", "P@5", "-m", "P@10", "-m", "nDCG@10", "-m", "AP"]
    )
    assert spelled == canonical
    assert "P@5" in json.dumps(spelled) and "ndcg_cut" not in json.dumps(spelled)


def _helps():
    """Every command's parser (nested ones too), by its name after ``rankviz``."""
    import argparse

    from rankviz.cli import build_parser

    def walk(parser, name):
        yield name, parser
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for child, below in action.choices.items():
                    yield from walk(below, f"{name} {child}".strip())

    return dict(walk(build_parser(), ""))


def test_every_help_fits_100_columns_and_ends_with_its_examples(monkeypatch) -> None:
    """In a terminal of 200 columns too: the top-level list was 164 wide."""
    from rankviz.cli.parser import EXAMPLES

    monkeypatch.setenv("COLUMNS", "200")
    helps = _helps()
    assert set(helps) == set(EXAMPLES)
    for name, parser in helps.items():
        text = parser.format_help()
        assert max(map(len, text.splitlines())) <= 100, name
        last = " ".join(text.rstrip().splitlines()[-1].split())
        assert EXAMPLES[name][-1].endswith(last), name
        assert name == "" or parser.description, name


@pytest.mark.slow
def test_every_example_of_the_help_runs_on_a_copy_of_the_samples(tmp_path, monkeypatch) -> None:
    """Each example (``app`` and ``ndeval`` aside: a server, and diversity qrels no sample has),
    in the order written, from a folder holding a copy of the samples: exit 0."""
    import shlex
    import shutil

    from rankviz.cli.parser import EXAMPLES

    shutil.copytree(ROOT / "sample_data", tmp_path / "sample_data", symlinks=False)
    for record in (tmp_path / "sample_data").rglob("rankviz-notes.sqlite*"):
        record.unlink()
    shutil.copy(ROOT / "sample_data" / "cranfield" / "qrels.txt", tmp_path / "llm.qrels")
    monkeypatch.chdir(tmp_path)
    ran = 0
    for name, examples in EXAMPLES.items():
        if name.split(" ")[0] in ("app", "ndeval"):
            continue
        for example in examples:
            done = run_cli(*shlex.split(example)[1:])
            assert done.returncode == 0, (example, done.stderr)
            ran += 1
    assert ran >= 30


def test_a_wide_table_continues_in_blocks_of_100_columns() -> None:
    """``compare``'s table was 153 columns wide: its columns continue below, the labels repeated,
    every value still there once."""
    done = run_cli("compare", str(SAMPLES / "cranfield"), "bm25", "dense", "qld", "-m", "AP")
    table = done.stdout.split("\n#", 1)[0]
    lines = table.splitlines()
    assert max(map(len, lines)) <= 100
    blocks = table.strip().split("\n\n")
    assert len(blocks) >= 2
    headers = [block.splitlines()[0].split() for block in blocks]
    assert all(h[:3] == ["baseline", "run", "measure"] for h in headers)
    keys = len(os.path.commonprefix(headers))  # the label columns every block repeats
    every = [name for h in headers for name in h[keys:]]
    assert len(every) == len(set(every)) and {"p_value", "verdict", "effect_size"} <= set(every)
    tsv = run_cli("compare", str(SAMPLES / "cranfield"), "bm25", "dense", "qld", "-m", "AP",
                  "--format", "tsv")  # fmt: skip
    assert set(every) - {"verdict"} <= set(tsv.stdout.splitlines()[0].split("\t"))


@pytest.mark.slow  # two whole processes
def test_the_ranks_resampling_shows_its_progress_on_a_terminal() -> None:
    """``evaluate --ranks`` draws a progress bar of its resamples on stderr when stderr is a
    terminal (a pseudo-terminal here, read until the process ends), and none when it is a file;
    the table printed is the same either way."""
    import fcntl
    import pty
    import struct
    import termios

    command = [
        sys.executable, "-m", "rankviz", "evaluate", str(SAMPLES / "cranfield"), "bm25", "dense",
        "-m", "nDCG@10", "--ranks", "--seed", "7",
    ]  # fmt: skip
    terminal, attached = pty.openpty()
    # a terminal's size, as a window gives one (tqdm draws nothing on a terminal of no columns)
    fcntl.ioctl(attached, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=attached) as process:
        os.close(attached)
        drawn = b""
        while True:  # until the process closes its end (an event: EOF, or EIO on Linux)
            try:
                chunk = os.read(terminal, 4096)
            except OSError:
                break
            if not chunk:
                break
            drawn += chunk
        printed = process.stdout.read() if process.stdout else b""
    os.close(terminal)
    assert process.returncode == 0, drawn.decode(errors="replace")
    text = drawn.decode(errors="replace")
    assert "resampling" in text and "%|" in text  # tqdm's bar: description, percentage, bar
    plain = subprocess.run(command, capture_output=True, check=True)
    assert "resampling" not in plain.stderr.decode()
    assert plain.stdout == printed
