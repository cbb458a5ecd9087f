"""AppTest of the Judgments page and of the other sources in force: every number on the page equals
``rankviz agreement --format json`` on the same sources, runs and measures; the meeting's record
started from an LLM's labels is compared with the people's entries; a source alone, or filling the
file's holes, gives the numbers of a study of those qrels and is named in the conventions."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from apptest import conventions, judged_collection, shown, start
from conftest import SAMPLES

import rankviz as rv
from rankviz.cli import main
from rankviz.io.frames import qrels_from_frame
from rankviz.io.judges import filled

RUNS = "bm25,bm25_t5-zs,bm25_rm3"


@pytest.fixture
def collection(tmp_path, monkeypatch):
    folder = judged_collection(tmp_path)
    monkeypatch.setattr("sys.argv", ["app.py", "--data", str(folder)])
    return folder


def frames_of(at) -> dict[str, pd.DataFrame]:
    tables = [d.value for d in at.dataframe]
    pick = {
        "queries": "pairs",
        "holes": "unjudged_by_a",
        "rankings": "kendall_tau",
        "means": "mean_filled",
        "flips": "verdict_b",
    }
    return {name: next(t for t in tables if column in t.columns) for name, column in pick.items()}


@pytest.mark.slow
def test_the_page_shows_the_commands_numbers(collection, capsys) -> None:
    at = start("judgments", collection="judged", runs=RUNS, measures="nDCG@10,AP(rel=2)")
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert (
        main(
            [
                "agreement",
                str(collection),
                f"{collection}:umbrela",
                *RUNS.split(","),
                "-m",
                "nDCG@10",
                "-m",
                "AP(rel=2)",
                "--format",
                "json",
            ]
        )
        == 0
    )
    expected = json.loads(capsys.readouterr().out)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Pairs both judge"] == f"{expected['pairs']:,}"
    assert (
        metrics["Cohen's kappa"] == f"{expected['kappa']:.3f}"
        and metrics["Linear-weighted kappa"] == f"{expected['kappa_linear']:.3f}"
    )
    assert metrics["Exact agreement"] == f"{expected['agreement']:.3f}"
    shown_frames = frames_of(at)
    for ranking in expected["rankings"]:
        row = shown_frames["rankings"].set_index("measure").loc[ranking["measure"]]
        for key in ("kendall_tau", "tau_ap", "spearman"):
            assert row[key] == pytest.approx(ranking[key], abs=1e-12)
        means = shown_frames["means"][
            shown_frames["means"]["measure"] == ranking["measure"]
        ].set_index("run")
        assert means["mean_a"].to_dict() == pytest.approx(ranking["means_a"], abs=1e-12)
        assert means["mean_b"].to_dict() == pytest.approx(ranking["means_b"], abs=1e-12)
        assert means["mean_filled"].to_dict() == pytest.approx(ranking["means_filled"], abs=1e-12)
    holes = shown_frames["holes"].set_index("run")
    assert {run: [int(r.unjudged_by_a), int(r.judged_by_b)] for run, r in holes.iterrows()} == {
        run: [h["unjudged_by_a"], h["judged_by_b"]] for run, h in expected["holes"].items()
    }
    assert holes.loc["bm25", "judged_by_b"] == 30
    queries = shown_frames["queries"]
    assert list(queries["qid"].head(10)) == [q["qid"] for q in expected["queries"]]
    words = [shown(m) for m in at.markdown if shown(m).startswith("- ")]
    assert words == [
        f"- {line}".replace("qrels.txt", "file").replace("qrels.umbrela.txt", "umbrela")
        for line in expected["verdicts"]
    ]


@pytest.mark.slow
def test_the_meeting_started_from_an_llms_labels_is_compared_with_the_people(
    collection, tmp_path, monkeypatch, capsys
) -> None:
    db = str(tmp_path / "meeting.sqlite")
    monkeypatch.setenv("RANKVIZ_NOTES", db)  # the app's record of every collection it serves
    labels = str(collection / "qrels.umbrela.txt")
    assert (
        main(
            [
                "judgments",
                "import",
                db,
                labels,
                "--by",
                "Ann",
                "--source",
                "llm:gpt-4o",
                "--collection",
                str(collection),
            ]
        )
        == 0
    )
    llm = rv.read_qrels(collection / "qrels.umbrela.txt").to_frame().head(12)
    for q, d, g in llm.itertuples(index=False):
        assert (
            main(["judgments", "add", db, str(q), str(d), str((int(g) + 1) % 4), "--by", "Bob"])
            == 0
        )
    capsys.readouterr()
    at = start(
        "judgments",
        collection="judged",
        runs=RUNS,
        judges_a="meeting:llm:gpt-4o",
        judges_b="meeting:people",
    )
    assert not at.exception and not at.error
    assert main(["agreement", f"{db}:llm:gpt-4o", f"{db}:people", "--format", "json"]) == 0
    expected = json.loads(capsys.readouterr().out)
    # Bob overruled every label he saw
    assert expected["pairs"] == 12 and expected["agreement"] == 0.0
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Pairs both judge"] == "12" and metrics["Exact agreement"] == "0.000"
    assert {s.label for s in at.selectbox} >= {"A (the reference)", "B (compared with A)"}
    options = at.selectbox(
        key=next(s.key for s in at.selectbox if s.label == "A (the reference)")
    ).options
    assert {
        "file (human)",
        "umbrela (llm:gpt-4o)",
        "meeting (meeting)",
        "meeting:people (human)",
        "meeting:llm:gpt-4o (llm:gpt-4o)",
    } <= set(options)


@pytest.mark.parametrize("mode", ["file+umbrela", pytest.param("umbrela", marks=pytest.mark.slow)])
@pytest.mark.few
def test_another_source_in_force_gives_its_numbers_and_says_so(collection, mode, capsys) -> None:
    at = start("overview", collection="judged", runs=RUNS, measures="nDCG@10", qrels=mode)
    assert not at.exception and not at.error
    means = at.dataframe[0].value
    file_qrels, llm = (
        rv.read_qrels(collection / "qrels.txt"),
        rv.read_qrels(collection / "qrels.umbrela.txt"),
    )
    qrels = llm if mode == "umbrela" else filled(file_qrels, llm)
    study = rv.Study.open(rv.StudyRequest(collection, RUNS.split(","), measures=["nDCG@10"]))
    expected = rv.Study(qrels, study.runs, study.measures, study.settings).evaluation().means()
    assert means["nDCG@10"].to_dict() == pytest.approx(expected["nDCG@10"].to_dict(), abs=1e-12)
    caption = conventions(at)
    assert "qrels.umbrela.txt (llm:gpt-4o)" in caption
    assert ("holes filled by" in caption) == (mode == "file+umbrela")
    capsys.readouterr()
    command = ["evaluate", str(collection), *RUNS.split(","), "-m", "nDCG@10", "--qrels", mode]
    # the command line: the same road
    assert main([*command, "--format", "json", "--no-check"]) == 0
    printed = capsys.readouterr()
    rows = {r["run"]: r["value"] for r in json.loads(printed.out) if r["qid"] == "all"}
    assert rows == pytest.approx(means["nDCG@10"].to_dict(), abs=1e-12)
    said = next(line for line in printed.err.splitlines() if "qrels: " in line)
    assert said.removeprefix("rankviz: ") in caption  # one sentence, word for word
    from types import SimpleNamespace

    from rankviz.app.frame.context import Context

    named = Context.export_name(
        SimpleNamespace(meeting=SimpleNamespace(mode=mode)), "rankviz_overview", "csv"
    )  # type: ignore[arg-type]
    # every download says the source in force
    assert named == f"rankviz_overview_qrels-{mode.replace('+', '-')}.csv"
    # only the holes were added
    assert filled(file_qrels, llm).to_frame().shape[0] == file_qrels.to_frame().shape[0] + 30


def test_a_collection_with_one_source_says_how_to_add_another() -> None:
    at = start("judgments")
    assert not at.exception
    assert any("qrels.NAME.txt" in shown(i) for i in at.info)


def test_qrels_from_a_frame_filled_keeps_the_file_where_both_judge() -> None:
    a = qrels_from_frame(
        pd.DataFrame({"qid": ["1", "1"], "docid": ["x", "y"], "rel": [0, 2]}), source="a"
    )
    b = qrels_from_frame(
        pd.DataFrame({"qid": ["1", "1", "2"], "docid": ["x", "z", "w"], "rel": [3, 1, 1]}),
        source="b",
    )
    frame = filled(a, b).to_frame().sort_values(["qid", "docid"])
    assert list(zip(frame["qid"], frame["docid"], frame["rel"], strict=True)) == [
        ("1", "x", 0),
        ("1", "y", 2),
        ("1", "z", 1),
        ("2", "w", 1),
    ]


def test_an_llms_means_corrected_by_the_file_are_the_librarys() -> None:
    """Qrels in force umbrela, Corrected by file: the Overview shows each run's corrected mean and
    interval and the people - LLM table, as ``evaluate --qrels umbrela --correct-with file``;
    without a source in force the choice is not offered."""
    import rankviz as rv

    rag = SAMPLES / "rag24-judges"
    at = start("overview", collection="rag24-judges", qrels="umbrela", correct_with="file")
    assert not at.exception and not at.error
    corrected = rv.Study.open(
        rv.StudyRequest(rag, qrels_in_force="umbrela", correct_with="file")
    ).ask(rv.CORRECTED_MEANS)
    expected = corrected.to_frame().set_index(["run", "measure"])
    assert "Corrected by people's judgments" in [h.value for h in at.subheader]
    grid = next(t.value for t in at.dataframe if "[" in str(t.value.iloc[0, 0]))
    for run in grid.index:
        for measure in grid.columns:
            row = expected.loc[(run, measure)]
            assert grid.loc[run, measure] == (
                f"{row.value:.4f} [{row.ci_low:.2f}, {row.ci_high:.2f}]"
            )
    assert any("43 of 301 queries judged by people" in c.value for c in at.caption)
    line = conventions(at)
    assert "each mean corrected by qrels.txt (PPI++, on the Overview)" in line.replace("\\", "")
    plain = start("overview", collection="rag24-judges")
    assert not plain.exception
    assert "Corrected by people's judgments" not in [h.value for h in plain.subheader]
    assert "Corrected by" not in [r.label for r in plain.radio]
