"""Every sample collection opens through the app's loader and reproduces its SOURCE.md figures."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import SAMPLES

import rankviz as rv
from rankviz.errors import CollectionError
from rankviz.evaluation.evaluate import collection_measures
from rankviz.io.collection import open_collection
from rankviz.io.docs import DocumentTexts
from rankviz.measures import make

# (folder, relevance threshold of the SOURCE.md table, queries, runs)
COLLECTIONS = [
    ("cranfield", 1, 225, 6),
    ("cranfield-reproduction", 1, 225, 4),
    ("cranfield-diversity", 1, 225, 4),
    ("dl-hard-passage", 2, 50, 6),
    ("trec-cast-2021", 1, 239, 5),
    ("rag24-judges", 1, 0, 4),  # no query texts
]


def reference_table(source_md: Path) -> dict[str, dict[str, float]]:
    """The '| run | MAP | MRR | nDCG@10 |' table under 'Reference values' in a SOURCE.md."""
    text = source_md.read_text()
    section = text[text.index("## Reference values") :]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and re.fullmatch(r"[0-9.]+", cells[1]):
            rows[cells[0]] = {
                "MAP": float(cells[1]),
                "MRR": float(cells[2]),
                "nDCG@10": float(cells[3]),
            }
    return rows


@pytest.mark.parametrize(("folder", "rel", "n_queries", "n_runs"), COLLECTIONS)
def test_sample_collection_reproduces_source_figures(folder, rel, n_queries, n_runs) -> None:
    collection = open_collection(SAMPLES / folder)
    assert len(collection.run_paths) == n_runs
    assert len(collection.queries) == n_queries
    expected = reference_table(SAMPLES / folder / "SOURCE.md")
    assert set(expected) == set(collection.run_paths)
    measures = {"MAP": make("AP", rel=rel), "MRR": make("RR", rel=rel), "nDCG@10": make("nDCG", 10)}
    frame = rv.evaluate(
        collection.read_qrels(), [collection.read_run(n) for n in expected], list(measures.values())
    ).to_frame()
    got = {(r.run, r.measure): r.value for r in frame.itertuples()}
    for run, values in expected.items():
        for label, measure in measures.items():
            assert round(got[(run, str(measure))], 4) == values[label], (run, label)


def test_dl_hard_defaults_follow_its_protocol() -> None:
    collection = open_collection(SAMPLES / "dl-hard-passage")
    assert collection.config.rel == 2
    settings = rv.EvalSettings(rel=collection.config.rel, gmax=collection.config.gmax)
    assert [str(m) for m in collection_measures(collection, settings)][:3] == [
        "nDCG@10",
        "RR(rel=2)",
        "AP(rel=2)",
    ]


def test_an_unknown_measure_in_collection_toml_names_the_file(tmp_path) -> None:
    (tmp_path / "runs").mkdir()
    (tmp_path / "qrels.txt").write_text("1 0 a 1\n")
    (tmp_path / "runs" / "a.run").write_text("1 Q0 a 1 1 t\n")
    (tmp_path / "collection.toml").write_text('measures = ["NOPE@3"]\n')
    with pytest.raises(CollectionError, match=r"collection\.toml: unknown measure 'NOPE'"):
        collection_measures(open_collection(tmp_path), rv.EvalSettings())


def test_dl_hard_qrels_mix_0_and_q0() -> None:
    lines = (SAMPLES / "dl-hard-passage" / "qrels.txt").read_text().splitlines()
    assert {line.split()[1] for line in lines} == {"0", "Q0"}
    assert len(open_collection(SAMPLES / "dl-hard-passage").read_qrels()) == len(lines)


def test_cast_runs_differ_in_depth_per_query() -> None:
    run = open_collection(SAMPLES / "trec-cast-2021").read_run("org_manual_bm25")
    depths = run.to_frame().groupby("qid").size()
    assert depths.min() < depths.max() <= 100


def test_documents_are_indexed_at_the_first_lookup(tmp_path) -> None:
    collection = open_collection(SAMPLES / "cranfield")
    assert collection.docs is not None
    texts = DocumentTexts(collection.docs.path, folder=tmp_path)
    assert not texts.ready()
    found = texts.get(["486", "51", "no-such-doc"])
    assert set(found) == {"486", "51"} and found["486"]["text"] and texts.ready()


def test_cranfield_queries_use_positional_ids() -> None:
    collection = open_collection(SAMPLES / "cranfield")
    assert collection.queries["3"].startswith("what problems of heat conduction in composite slabs")


@pytest.mark.parametrize(
    ("layout", "message"),
    [
        ({}, "no judgments"),
        ({"qrels.txt": "1 0 a 1\n"}, "no runs/ folder"),
        ({"qrels.txt": "1 0 a 1\n", "runs/README.md": "x"}, "no run files"),
        (
            {
                "qrels.txt": "1 0 a 1\n",
                "runs/a.run": "1 Q0 a 1 1 t\n",
                "collection.toml": "rel = \n",
            },
            "not valid TOML",
        ),
        (
            {
                "qrels.txt": "1 0 a 1\n",
                "runs/a.run": "1 Q0 a 1 1 t\n",
                "collection.toml": "colour = 1\n",
            },
            "unknown keys colour",
        ),
        (
            {
                "qrels.txt": "1 0 a 1\n",
                "runs/a.run": "1 Q0 a 1 1 t\n",
                "collection.toml": "gmax = 100000\n",
            },
            "gmax=100000",
        ),
        (
            {
                "qrels.txt": "1 0 a 1\n",
                "runs/a.run": "1 Q0 a 1 1 t\n",
                "collection.toml": "rel = 1.7\n",
            },
            "rel=1.7",
        ),
        (
            {"qrels.txt": "1 0 a 1\n", "runs/a.run": "x", "runs/a.txt": "y"},
            "two runs would be named 'a'",
        ),
    ],
)
def test_broken_layouts_say_what_is_wrong(tmp_path, layout, message) -> None:
    for name, content in layout.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(content)
    with pytest.raises(CollectionError, match=message):
        open_collection(tmp_path)


def test_not_a_folder(tmp_path) -> None:
    with pytest.raises(CollectionError, match="not a folder"):
        open_collection(tmp_path / "missing")
