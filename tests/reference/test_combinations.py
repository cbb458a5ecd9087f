"""Where inputs, options and front ends meet: each case here once gave a silent wrong number or a
crash."""

from __future__ import annotations

import contextlib
import json
import shutil
from pathlib import Path

import ir_measures
import pandas as pd
import pytest
from conftest import CRANFIELD, TE

import rankviz as rv
from rankviz.cli import main
from rankviz.cli.parser import build_parser


def _subparsers(parser):
    for action in parser._actions:
        if hasattr(action, "choices") and isinstance(action.choices, dict):
            for name, sub in action.choices.items():
                yield name, sub
                yield from ((f"{name} {n}", s) for n, s in _subparsers(sub))


def test_every_subcommand_formats_its_help() -> None:
    parser = build_parser()
    names = []
    for name, sub in _subparsers(parser):
        assert sub.format_help().startswith("usage: rankviz")
        names.append(name)
    assert {
        "evaluate",
        "compare",
        "ties",
        "metrics-report",
        "unjudged",
        "judgments add",
        "tags export",
    } <= set(names)
    assert "80% power" in dict(_subparsers(parser))["compare"].format_help()


@pytest.mark.parametrize(
    ("spelling", "canonical"),
    [
        ("nDCG(cutoff=10)", "nDCG@10"),
        ("RR(cutoff=5)", "RR@5"),
        ("P(cutoff=10)", "P@10"),
        ("RR(rel=2,cutoff=3)", "RR(rel=2)@3"),
    ],
)
def test_ir_measures_cutoff_spelling_is_the_same_measure(spelling: str, canonical: str) -> None:
    assert rv.parse(spelling) == rv.parse(canonical)
    assert str(rv.parse(spelling)) == canonical


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("nDCG(cutoff=10)@5", "two different cutoffs"),
        ("nDCG(foo=1)", "no parameter 'foo'"),
        ("RR(cutoff=x)", "whole number"),
    ],
)
def test_a_bad_parameter_is_a_one_line_error(text: str, message: str, capsys) -> None:
    with pytest.raises(rv.MeasureError, match=message):
        rv.parse(text)
    assert main(["evaluate", str(TE / "qrels.txt"), str(TE / "run_STANDARD.txt"), "-m", text]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_ir_measures_measure_objects_are_accepted() -> None:
    qrels, run = rv.read_qrels(TE / "qrels.txt"), rv.read_run(TE / "run_STANDARD.txt")
    got = rv.evaluate(qrels, run, [ir_measures.nDCG @ 10, ir_measures.RR(rel=2)]).means()
    assert list(got.columns) == ["nDCG@10", "RR(rel=2)"]
    single = rv.evaluate(qrels, run, ir_measures.AP).means()
    assert (
        single.loc["run_STANDARD", "AP"]
        == rv.evaluate(qrels, run, "AP").means().loc["run_STANDARD", "AP"]
    )
    with pytest.raises(rv.MeasureError, match="not a int"):
        rv.parse(3)  # type: ignore[arg-type]


def test_binary_rbp_prints_a_name_ir_measures_reads_as_the_same_measure() -> None:
    qrels = {"q": {"a": 2, "b": 1, "c": 0}}
    run = {"q": {"a": 3.0, "c": 2.0, "b": 1.0}}
    for text in ("RBP", "RBP(p=0.5)", "RBP(rel=2,p=0.5)"):
        measure = rv.parse(text)
        assert rv.parse(str(measure)) == measure
        ours = rv.evaluate(qrels, run, measure).means().iloc[0, 0]
        theirs = ir_measures.calc_aggregate([ir_measures.parse_measure(str(measure))], qrels, run)
        assert ours == pytest.approx(next(iter(theirs.values())), abs=1e-12), str(measure)
    assert str(rv.parse("RBP")) == "RBP(rel=1)"


# --- run names
# -------------------------------------------------------------------------------------


@pytest.fixture
def same_base_names(tmp_path):
    lines = (TE / "run_STANDARD.txt").read_text().splitlines(keepends=True)
    for folder, kept in (("a", lines), ("b", lines[::3])):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "run.txt").write_text("".join(kept))
    return [str(tmp_path / "a" / "run.txt"), str(tmp_path / "b" / "run.txt")]


def test_runs_with_one_base_name_are_named_by_their_folders_everywhere(
    same_base_names, capsys
) -> None:
    qrels = rv.read_qrels(TE / "qrels.txt")
    expected = {
        "a/run": rv.evaluate(qrels, rv.read_run(TE / "run_STANDARD.txt"), "AP").means().iloc[0, 0],
        "b/run": rv.evaluate(qrels, rv.read_run(same_base_names[1], name="b"), "AP")
        .means()
        .iloc[0, 0],
    }
    assert expected["a/run"] != expected["b/run"]
    assert rv.evaluate(qrels, same_base_names, "AP").means()["AP"].to_dict() == expected
    for engine in ("memory", "stream"):
        sources = rv.RunSource.of_paths(same_base_names)
        means = rv.evaluate_sources(
            qrels, sources, ["AP"], engine=rv.EngineSettings(engine=engine)
        ).means()
        assert means["AP"].to_dict() == expected
        assert (
            main(
                [
                    "evaluate",
                    str(TE / "qrels.txt"),
                    *same_base_names,
                    "-m",
                    "AP",
                    "--format",
                    "json",
                    "--engine",
                    engine,
                ]
            )
            == 0
        )
        records = json.loads(capsys.readouterr().out)
        assert {r["run"]: r["value"] for r in records} == expected
    assert (
        main(["compare", str(TE / "qrels.txt"), *same_base_names, "-m", "AP", "--format", "json"])
        == 0
    )
    assert [r["run"] for r in json.loads(capsys.readouterr().out)] == ["b/run"]
    for command in ("ties", "unjudged"):
        assert (
            main([command, str(TE / "qrels.txt"), *same_base_names, "-m", "AP", "--format", "json"])
            == 0
        ), command
        out = capsys.readouterr()
        assert "a/run" in out.out and "b/run" in out.out and "Traceback" not in out.err


def test_two_sources_by_one_name_are_refused(same_base_names) -> None:
    qrels = rv.read_qrels(TE / "qrels.txt")
    twice = [rv.RunSource(path, "run") for path in same_base_names]
    with pytest.raises(rv.OptionError, match="repeated: run"):
        rv.evaluate_sources(qrels, twice, ["AP"])
    with pytest.raises(rv.OptionError, match="given twice"):
        rv.evaluate(qrels, [same_base_names[0], same_base_names[0]], "AP")


def test_api_shapes_the_readme_promises() -> None:
    qrels, run = rv.read_qrels(TE / "qrels.txt"), rv.read_run(TE / "run_STANDARD.txt")
    expected = rv.evaluate(qrels, run, "AP").means().iloc[0, 0]
    scored = list(ir_measures.read_trec_run(str(TE / "run_STANDARD.txt")))
    assert rv.evaluate(qrels, scored, "AP").means().iloc[0, 0] == expected  # one ir_measures run
    frame = run.to_frame()
    named = rv.evaluate(
        qrels, {"bm25": frame, "flipped": frame.assign(score=-frame.score)}, "AP"
    ).means()
    assert list(named.index) == ["bm25", "flipped"] and named.loc["bm25", "AP"] == expected
    assert named.loc["flipped", "AP"] != expected
    with pytest.raises(rv.OptionError, match="repeated: run") as info:
        rv.evaluate(qrels, [frame, frame.copy()], "AP")
    assert len(str(info.value)) < 200
    by_run_object = rv.evaluate(qrels, {"renamed": run}, "AP").means()
    assert list(by_run_object.index) == ["renamed"]
    bad = pd.DataFrame({"qid": ["1"] * 3, "docid": ["a", "b", "c"], "score": ["x", "y", "z"]})
    with pytest.raises(rv.RankvizError) as info:
        rv.evaluate(qrels, {"bad": bad}, "AP")
    assert len(str(info.value)) < 300


# --- ids every format can carry ------------------------------------------------------------------


def test_an_id_a_qrels_file_cannot_carry_is_refused_where_it_enters(tmp_path, capsys) -> None:
    db = tmp_path / "notes.sqlite"
    assert (
        main(
            [
                "judgments",
                "add",
                str(db),
                "#7",
                "d1",
                "1",
                "--by",
                "ann",
                "--collection",
                str(CRANFIELD),
            ]
        )
        == 2
    )
    assert "starts with '#'" in capsys.readouterr().err
    assert (
        main(["tags", "add", str(db), "#7", "hard", "--by", "ann", "--collection", str(CRANFIELD)])
        == 2
    )
    for frame in (
        pd.DataFrame({"qid": ["#7"], "docid": ["d1"], "rel": [1]}),
        pd.DataFrame({"qid": ["7"], "docid": ["d\x0b1"], "rel": [1]}),
        pd.DataFrame({"qid": ["7"], "docid": ["d 1"], "rel": [1]}),
    ):
        with pytest.raises(rv.FormatError, match="TREC file"):
            rv.qrels_from_frame(frame)
    with pytest.raises(rv.FormatError, match="starts with '#'"):
        rv.run_from_dict({"#7": {"d1": 1.0}})
    csv = tmp_path / "run.csv"
    csv.write_text("qid,docid,score\n7,d1,1.0\n#8,d2,2.0\n")
    with pytest.raises(rv.FormatError) as info:
        rv.read_run(csv)
    assert info.value.line_no == 3


def test_record_entries_written_outside_rankviz_are_left_out_with_a_warning(
    tmp_path, capsys
) -> None:
    import sqlite3

    from rankviz.io.meeting import MeetingStore

    db = tmp_path / "notes.sqlite"
    store = MeetingStore(db)
    store.judge("301", "FBIS3-10082", 1, by="ann", via="typed name")
    # rows an older version or another program wrote
    with contextlib.closing(sqlite3.connect(db)) as raw, raw:
        for qid, docid, grade in (
            ("#302", "d", 1),
            ("301", "FBIS3-10169", "high"),
            ("30 1", "d", 2),
        ):
            insert = (
                "INSERT INTO judgments (qid, docid, grade, previous, by, at, note) VALUES (?, "
                "?, ?, NULL, 'x', 'now', '')"
            )
            raw.execute(insert, (qid, docid, grade))
    grades, left_out = store.latest_checked()
    assert grades == store.latest() == {("301", "FBIS3-10082"): 1}
    assert len(left_out) == 3
    exported = tmp_path / "merged.txt"
    assert main(["judgments", "export", str(db), "--qrels", str(TE / "qrels.txt")]) == 0
    exported.write_text(capsys.readouterr().out)
    args = [str(TE / "run_STANDARD.txt"), "-m", "AP", "--format", "tsv"]
    assert main(["evaluate", str(TE / "qrels.txt"), *args, "--judgments", str(db)]) == 0
    with_record = capsys.readouterr()
    assert with_record.err.count("left out") == 3
    assert main(["evaluate", str(exported), *args]) == 0
    assert capsys.readouterr().out == with_record.out


# --- compare --missing skip
# ------------------------------------------------------------------------


def test_missing_skip_tests_each_pair_on_the_queries_both_runs_answer() -> None:
    from scipy import stats
    from statsmodels.stats.multitest import multipletests

    qrels = {q: {"r": 1} for q in "1234"}
    a = {q: {"r": 2.0, "x": 1.0} for q in "1234"}
    b = {
        "1": {"x": 2.0, "r": 1.0},
        "2": {"r": 2.0},
        "3": {"x": 2.0, "y": 1.5, "r": 1.0},
        "4": {"r": 1.0},
    }
    c = {"1": {"r": 1.0}, "2": {"x": 2.0, "r": 1.0}}  # answers two queries only
    two = rv.evaluate(qrels, {"A": a, "B": b}, "RR", missing="skip")
    three = rv.evaluate(qrels, {"A": a, "B": b, "C": c}, "RR", missing="skip")
    alone = rv.compare(two, test="t", correction="none").table.iloc[0]
    beside = rv.compare(three, test="t", correction="none").table
    row = beside[(beside.baseline == "A") & (beside.run == "B")].iloc[0]
    assert row.n == alone.n == 4
    assert row.p_value == alone.p_value == stats.ttest_rel([0.5, 1, 1 / 3, 1], [1, 1, 1, 1]).pvalue
    assert row.mean_baseline == 1.0
    versus_c = beside[beside.run == "C"].iloc[0]
    assert versus_c.n == 2 and versus_c.mean_run == 0.75
    assert versus_c.p_value == stats.ttest_rel([1, 0.5], [1, 1]).pvalue
    holm = rv.compare(three, test="t", correction="holm").table
    assert list(holm.p_adjusted) == list(multipletests(beside.p_value, method="holm")[1])


# --- what a new user reads
# -------------------------------------------------------------------------


def test_tables_print_counts_as_counts_and_tiny_p_values_as_a_bound(capsys) -> None:
    assert main(["ties", str(CRANFIELD), "bm25", "rrf", "-m", "AP"]) == 0
    head = capsys.readouterr().out.splitlines()[1:3]
    # queries answered: 225, not 225.000
    assert all(".000" not in line.split()[1] for line in head), head
    assert main(["compare", str(CRANFIELD), "bm25-raw", "rrf", "-m", "AP", "--test", "t"]) == 0
    out = capsys.readouterr().out
    assert "< 1e-4" in out and "0.0000  " not in out.split("\n")[1]
    assert (
        main(["evaluate", str(CRANFIELD), "rrf", "-m", "AP", "--ties", "random", "--trials", "5"])
        == 0
    )
    assert capsys.readouterr().out.splitlines()[0].split() == ["run", "AP", "AP", "std"]


def test_metric_report_names_tau_ap() -> None:
    from rankviz.cli.render_reports import REPORT_TITLES

    assert REPORT_TITLES["tau_ap"].startswith("tau-AP")


def test_results_have_short_reprs_for_a_notebook() -> None:
    collection = rv.open_collection(CRANFIELD)
    qrels = collection.read_qrels()
    runs = [collection.read_run(n) for n in ("bm25", "dense", "rrf")]
    evaluation = rv.evaluate(qrels, runs, ["AP", "nDCG@10"])
    for value in (evaluation, rv.compare(evaluation), qrels, runs[0], rv.rank(runs[0], qrels)):
        assert len(repr(value)) < 200, type(value).__name__
    html = evaluation._repr_html_()
    assert "<table" in html and "rrf" in html and "ties:" in html
    assert rv.__version__ and rv.__version__[0].isdigit()
    assert (Path(rv.__file__).parent / "py.typed").is_file()


def test_judgments_add_says_what_the_qrels_graded(tmp_path, capsys) -> None:
    folder = tmp_path / "cranfield"
    shutil.copytree(CRANFIELD, folder)
    qrels = rv.read_qrels(folder / "qrels.txt").to_frame()
    judged = qrels[qrels.rel == qrels.rel.max()].iloc[0]
    assert (
        main(
            [
                "judgments",
                "add",
                str(folder),
                str(judged.qid),
                str(judged.docid),
                "0",
                "--by",
                "ann",
            ]
        )
        == 0
    )
    assert f"was {judged.rel}" in capsys.readouterr().err
    assert (
        main(["judgments", "add", str(tmp_path / "db.sqlite"), "1", "x", "0", "--by", "ann"]) == 2
    )
    assert "must know the collection it judges: give --collection DIR" in capsys.readouterr().err
    assert (
        main(
            [
                "judgments",
                "add",
                str(tmp_path / "db.sqlite"),
                "1",
                "x",
                "0",
                "--by",
                "ann",
                "--collection",
                str(folder),
            ]
        )
        == 0
    )
    assert "unjudged before" in capsys.readouterr().err


def test_measure_names_in_app_text_copy_as_typed() -> None:
    from rankviz.app.widgets.text import md

    assert "\u2060" not in md("RR(rel=2)@10") and "\u2060" not in md("P@5: 0.3")
    assert "\u2060" in md("ann@example.org") and "\u2060" in md("https://example.org")


# --- faults and hostile files
# ----------------------------------------------------------------------


@pytest.mark.parametrize("engine", ["memory", "stream"])
@pytest.mark.few
def test_a_file_without_line_breaks_is_refused_by_its_first_long_line(tmp_path, engine) -> None:
    from rankviz.io.blocks import pieces

    sparse = tmp_path / "zeros.run"
    with open(sparse, "wb") as handle:
        handle.truncate(256 * 2**20)  # 256 MiB of NUL bytes, no line break, nothing on disk
    long_line = tmp_path / "long.run"
    long_line.write_bytes(b"1 Q0 d1 1 2.0 t\n1 Q0 " + b"x" * (17 * 2**20) + b" 2 1.0 t\n")
    qrels = rv.read_qrels(TE / "qrels.txt")
    for path, line in ((sparse, 1), (long_line, 2)):
        with pytest.raises(rv.FormatError) as info:
            rv.evaluate_sources(
                qrels, [rv.RunSource.of(path)], ["AP"], engine=rv.EngineSettings(engine=engine)
            )
        assert info.value.line_no == line or "NUL" in str(info.value), str(info.value)
    with pytest.raises(rv.FormatError, match="longer than"):
        next(pieces(sparse))  # the stream engine's reader stops at the first piece, never reads on


@pytest.mark.slow
def test_a_run_overwritten_while_it_is_read_gives_an_error_never_a_signal(tmp_path) -> None:
    import subprocess
    import sys

    path = tmp_path / "run.txt"
    small = "".join(f"q{q} Q0 d{d} {d + 1} {100 - d} t\n" for q in range(50) for d in range(100))
    large = small * 3
    path.write_text(large)
    reader = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, rankviz as rv\n"
            "for _ in range(200):\n"
            "    try: rv.read_run(sys.argv[1], duplicates='first')\n"
            "    except rv.RankvizError: pass\n",
            str(path),
        ],
    )
    while reader.poll() is None:
        for text in (small, large):
            with open(path, "w") as handle:  # in place, as cp does: truncate, then write
                handle.write(text)
    assert reader.returncode == 0


def _one_query_collection(folder: Path) -> Path:
    (folder / "runs").mkdir(parents=True)
    lines = (CRANFIELD / "qrels.txt").read_text().splitlines(keepends=True)
    (folder / "qrels.txt").write_text("".join(line for line in lines if line.split()[0] == "1"))
    for name in ("bm25", "dense", "rrf"):
        shutil.copy(CRANFIELD / "runs" / f"{name}.run.gz", folder / "runs" / f"{name}.run.gz")
    return folder


@pytest.mark.slow
@pytest.mark.parametrize(
    "page",
    ["overview", "deltas", "histograms", "significance", "metric_choice", "ties", "unjudged"],
)
@pytest.mark.few
def test_qrels_of_a_single_query_give_pages_not_tracebacks(tmp_path, monkeypatch, page) -> None:
    from apptest import start

    folder = _one_query_collection(tmp_path / "one")
    monkeypatch.setattr("sys.argv", ["app.py", "--data", str(folder)])
    at = start(page, collection="one")
    assert not at.exception, [e.value for e in at.exception]


def test_a_paired_test_of_one_query_is_untested_not_an_error(tmp_path, capsys) -> None:
    folder = _one_query_collection(tmp_path / "one")
    assert main(["compare", str(folder), "-m", "AP", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["n"] for r in rows] == [1, 1] and all(r["p_value"] is None for r in rows)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("RANKVIZ_CACHE_MB", "abc"),
        ("RANKVIZ_CACHE_MB", "1e3"),
        ("RANKVIZ_CACHE_MB", "-1"),
        ("RANKVIZ_STORE_MB", "abc"),
        ("RANKVIZ_MAX_UPLOAD_MB", "abc"),
        ("RANKVIZ_MAX_UPLOAD_MB", "0.5"),
    ],
)
@pytest.mark.few
def test_a_bad_size_setting_warns_and_the_default_applies(monkeypatch, variable, value) -> None:
    from apptest import shown, start

    from rankviz.app.caches import cache

    monkeypatch.setenv(variable, value)
    assert cache.megabytes(variable) == cache.SIZE_SETTINGS[variable] * 2**20
    at = start("overview")
    assert not at.exception
    assert any(variable in shown(w) and "not a whole number" in shown(w) for w in at.warning)


@pytest.mark.slow
def test_a_record_path_too_long_for_the_file_system_is_a_warning(monkeypatch, tmp_path) -> None:
    from apptest import shown, start

    monkeypatch.setenv("RANKVIZ_NOTES", str(tmp_path / ("x" * 300 + ".sqlite")))
    at = start("overview")
    assert not at.exception
    assert any("record" in shown(w) and "too long" in shown(w) for w in at.warning)
    assert not any(str(tmp_path) in shown(w) for w in at.warning)


@pytest.mark.parametrize("grade", ["5", "1000000000"])
def test_the_unjudged_page_says_why_a_grade_cannot_be_filled(grade) -> None:
    from apptest import shown, start

    at = start("unjudged", grade=grade)
    assert not at.exception
    assert any("gmax" in shown(e) for e in at.error)


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ("rel = inf", "finite"),
        ("rel = -inf", "finite"),
        ("gmax = nan", "finite"),
        ("rel = 1e300", "must be from 1"),
        ("a = " + "[" * 5000 + "]" * 5000, "nested too deeply"),
    ],
)
def test_collection_settings_out_of_any_range_are_an_error_naming_the_file(
    tmp_path, capsys, toml, message
) -> None:
    folder = _one_query_collection(tmp_path / "c")
    (folder / "collection.toml").write_text(toml)
    with pytest.raises(rv.CollectionError, match=message):
        rv.open_collection(folder)
    assert main(["evaluate", str(folder), "-m", "AP"]) == 2
    err = capsys.readouterr().err
    assert "collection.toml" in err and "Traceback" not in err


def _texts(at) -> str:
    from apptest import shown

    parts = [
        shown(e)
        for kind in ("markdown", "caption", "warning", "error", "info", "success")
        for e in getattr(at, kind)
    ]
    return "\n".join(parts + [str(e.value) for e in at.exception])


def test_the_app_follows_no_link_out_of_a_served_folder_and_shows_no_server_path(
    tmp_path, monkeypatch
) -> None:
    from apptest import start

    secret = tmp_path / "secret.txt"
    secret.write_text("root:x:0:0:the secret first line\n")
    folder = _one_query_collection(tmp_path / "served" / "one")
    (folder / "runs" / "evil.run").symlink_to(secret)
    monkeypatch.setattr("sys.argv", ["app.py", "--data", str(folder)])
    at = start("overview", collection="one", runs="bm25,evil")
    text = _texts(at)
    assert not at.exception
    assert "runs/evil.run" in text and "secret first line" not in text
    assert str(tmp_path) not in text
    assert "evil" not in at.sidebar.multiselect[0].options
    (folder / "qrels.txt").rename(folder / "qrels.real")
    (folder / "qrels.txt").symlink_to(secret)
    at = start("overview", collection="one")
    text = _texts(at)
    assert (
        "links outside the collection folder" in text
        and "secret first line" not in text
        and str(tmp_path) not in text
    )


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"ties": "random"}, "ties='random'"),
        ({"aggregate": "macro"}, "aggregate='macro'"),
        ({"k": ["5", "7"]}, "given 2 times"),
    ],
)
@pytest.mark.few
def test_every_url_fallback_warns(params, expected) -> None:
    from apptest import shown
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_string(
        "from rankviz.app.frame.pages import navigate\nnavigate(default='overview')\n",
        default_timeout=120,
    )
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception
    assert any(expected in shown(w) for w in at.warning), [shown(w) for w in at.warning]


def test_an_error_quotes_the_offending_field_shortened_never_the_rest_of_the_line(tmp_path) -> None:
    path = tmp_path / "r.run"
    path.write_text("root:x:0:0:root:/root:/bin/bash-and-a-secret-tail\n")
    with pytest.raises(rv.FormatError) as info:
        rv.read_run(path)
    assert "secret" not in str(info.value) and "expected 6 fields" in str(info.value)
    assert info.value.line.startswith("root:x:0")  # the caller still has the line
    path.write_text("1 Q0 d 1 " + "9" * 100 + "x tag\n")
    with pytest.raises(rv.FormatError) as info:
        rv.read_run(path)
    assert "is not a number" in str(info.value) and len(str(info.value)) < len(str(path)) + 100


@pytest.mark.parametrize(
    ("measures", "columns"), [("nDCG(cutoff=10)", ["nDCG@10"]), ("RR(cutoff=5),AP", ["RR@5", "AP"])]
)
@pytest.mark.few
def test_ir_measures_spellings_in_a_link_open_the_overview(measures, columns) -> None:
    from apptest import start

    at = start("overview", measures=measures)
    assert not at.exception
    assert list(at.dataframe[0].value.columns)[: len(columns)] == columns


def test_a_bad_measure_parameter_in_a_link_is_a_warning() -> None:
    from apptest import shown, start

    at = start("overview", measures="nDCG(foo=1)")
    assert not at.exception and any("nDCG(foo=1)" in shown(w) for w in at.warning)


def test_two_served_folders_of_one_name_are_numbered_not_shown_by_path(tmp_path) -> None:
    from rankviz.app.caches.inputs import collection_folders

    first, second = (
        _one_query_collection(tmp_path / "a" / "one"),
        _one_query_collection(tmp_path / "b" / "one"),
    )
    found = collection_folders([str(first), str(second)])
    assert found["one"] == first.resolve() and found["one (2)"] == second.resolve()
    assert not any(str(tmp_path) in name for name in found)
