"""irds:DATASET_ID, offline: a dataset registered in ir_datasets from DL-HARD's local files (its
qrels, queries, a few passages and the official measures of TREC DL) gives the numbers of the same
qrels from a file, the dataset's measures and relevance level as defaults, its texts in the query
view, and plain messages when ir_datasets is missing, the id unknown or the files absent. Nothing
downloads."""

from __future__ import annotations

import json
import shutil
import sys

import pytest
from apptest import start
from conftest import ROOT

import rankviz as rv
from rankviz.cli import main
from rankviz.errors import RankvizError

ir_datasets = pytest.importorskip("ir_datasets")

DL_HARD = ROOT / "sample_data" / "dl-hard-passage"
DATASET = "rankviz-test/dl-hard"
RUNS = [str(DL_HARD / "runs" / f"{name}.run.gz") for name in ("bm25", "bm25_t5-zs")]


class Documentation:
    """What ir_datasets' documentation says of TREC DL 2019 passage: its official measures."""

    def documentation(self) -> dict:
        return {"official_measures": ["nDCG@10", "RR(rel=2)", "AP(rel=2)"]}


def register(dataset_id: str, docs, queries, qrels) -> None:
    from ir_datasets.datasets.base import Dataset
    from ir_datasets.formats import TrecQrels, TsvDocs, TsvQueries
    from ir_datasets.util import LocalDownload

    if dataset_id not in ir_datasets.registry:
        parts = [
            TsvDocs(LocalDownload(docs)),
            TsvQueries(LocalDownload(queries)),
            TrecQrels(LocalDownload(qrels), {}),
            Documentation(),
        ]
        ir_datasets.registry.register(dataset_id, Dataset(*parts))


@pytest.fixture(scope="module")
def passages(tmp_path_factory):
    """The first passage of bm25's ranking of each query, with a made-up text naming it."""
    folder = tmp_path_factory.mktemp("irds")
    run = rv.read_run(RUNS[0]).to_frame()
    first = run.groupby("qid").head(1)
    docs = folder / "docs.tsv"
    docs.write_text(
        "".join(
            f"{d}\tpassage {d} about {q}\n"
            for q, d in zip(first["qid"], first["docid"], strict=True)
        )
    )
    register(DATASET, docs, DL_HARD / "queries.tsv", DL_HARD / "qrels.txt")
    return dict(zip(first["qid"], first["docid"], strict=True))


def test_the_cli_gives_the_numbers_of_the_same_qrels_from_a_file(passages, capsys) -> None:
    assert main(["evaluate", f"irds:{DATASET}", *RUNS, "--format", "json"]) == 0
    from_irds = json.loads(capsys.readouterr().out)
    assert (
        main(
            [
                "evaluate",
                str(DL_HARD / "qrels.txt"),
                *RUNS,
                "-m",
                "nDCG@10",
                "-m",
                "RR(rel=2)",
                "-m",
                "AP(rel=2)",
                "--format",
                "json",
            ]
        )
        == 0
    )
    from_file = json.loads(capsys.readouterr().out)
    # the official measures
    assert {r["measure"] for r in from_irds} == {"nDCG@10", "RR(rel=2)", "AP(rel=2)"}
    assert from_irds == from_file
    study = rv.Study.open(rv.StudyRequest(f"irds:{DATASET}", RUNS))
    assert (
        study.settings.rel == 2
        and study.collection is not None
        and study.collection.name == f"irds:{DATASET}"
    )
    assert study.collection.queries == rv.open_collection(DL_HARD).queries


def test_a_folder_of_runs_takes_its_judgments_and_texts_from_the_dataset(
    passages, tmp_path, monkeypatch
) -> None:
    folder = tmp_path / "runs-only"
    (folder / "runs").mkdir(parents=True)
    for run in RUNS:
        shutil.copy(run, folder / "runs")
    (folder / "collection.toml").write_text(
        f'name = "DL-HARD from ir_datasets"\nirds = "{DATASET}"\n'
    )
    collection = rv.open_collection(folder)
    assert (
        collection.config.measures == ("nDCG@10", "RR(rel=2)", "AP(rel=2)")
        and collection.config.rel == 2
    )
    qid, docid = next(iter(passages.items()))
    assert (
        collection.docs is not None
        and collection.docs.get([docid])[docid]["text"] == f"passage {docid} about {qid}"
    )
    monkeypatch.setattr("sys.argv", ["app.py", "--data", str(folder)])
    at = start(
        "deltas", collection="runs-only", baseline="bm25", run="bm25_t5-zs", query=qid, doc=docid
    )
    assert not at.exception and not at.error, [e.value for e in at.error]
    # the query view reads the docs store
    assert any(f"passage {docid} about" in h.proto.body for h in at.get("html"))


def test_the_messages_say_what_is_missing(passages, tmp_path, monkeypatch, capsys) -> None:
    assert main(["evaluate", "irds:no-such/dataset", *RUNS]) == 2
    assert "ir_datasets knows no dataset" in capsys.readouterr().err
    register(
        "rankviz-test/absent", tmp_path / "gone.tsv", tmp_path / "gone.tsv", tmp_path / "gone.qrels"
    )
    with pytest.raises(RankvizError, match="qrels are not available here"):
        rv.Study.open(rv.StudyRequest("irds:rankviz-test/absent", RUNS))
    monkeypatch.setitem(sys.modules, "ir_datasets", None)  # not installed
    assert main(["evaluate", "irds:rankviz-test/other", *RUNS]) == 2
    assert "needs ir_datasets: pip install 'ir_datasets>=0.5.6'" in capsys.readouterr().err


class Unreachable:
    """A download as ir_datasets meets it offline: its logger says each retry, then it gives up."""

    def path(self, force: bool = True) -> str:
        raise ConnectionError("Max retries exceeded (no network here)")

    def stream(self):
        log = ir_datasets.log.easy()
        for _ in range(3):
            log.info("download error: Max retries exceeded (no network here). Retrying from start.")
        log.warn("Download failed: Max retries exceeded (no network here)")
        raise ConnectionError("Max retries exceeded (no network here)")


def test_offline_the_missing_qrels_are_one_line_that_says_how_to_work_offline(capfd) -> None:
    from ir_datasets.datasets.base import Dataset
    from ir_datasets.formats import TrecQrels

    if "rankviz-test/offline" not in ir_datasets.registry:
        ir_datasets.registry.register("rankviz-test/offline", Dataset(TrecQrels(Unreachable(), {})))
    assert main(["evaluate", "irds:rankviz-test/offline", RUNS[0]]) == 2
    err = capfd.readouterr().err
    assert len(err.splitlines()) == 1 and "Retrying" not in err, err
    assert "its qrels are not available here" in err and "IR_DATASETS_HOME" in err
