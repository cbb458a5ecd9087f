"""Document texts at any size: every format gives the same texts, a side file is built once and
never serves a rewritten file's old texts, a bad line is named, and many ids are looked up at
once."""

from __future__ import annotations

import gzip
import json
import os
import time

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from rankviz.errors import FormatError
from rankviz.io.docs import DocumentTexts

DOCS = [
    ("d1", "A title", "first text, with a tab-free body"),
    ("d2", "", "second"),
    ("D3", "Third", "ünïcode text"),
]


def write(folder, name: str, docs=DOCS):
    path = folder / name
    if name.endswith(".parquet"):
        pq.write_table(
            pa.table(
                {
                    "doc_id": [d for d, _, _ in docs],
                    "title": [t for _, t, _ in docs],
                    "text": [x for _, _, x in docs],
                }
            ),
            path,
        )
        return path
    if ".jsonl" in name:
        body = "".join(json.dumps({"doc_id": d, "title": t, "text": x}) + "\n" for d, t, x in docs)
    else:
        body = "id\ttext\ttitle\n" + "".join(f"{d}\t{x}\t{t}\n" for d, t, x in docs)
    data = body.encode()
    path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    return path


@pytest.mark.parametrize(
    "name", ["docs.jsonl", "docs.jsonl.gz", "docs.tsv", "docs.tsv.gz", "docs.parquet"]
)
def test_every_format_gives_the_same_texts(tmp_path, name) -> None:
    texts = DocumentTexts(write(tmp_path, name), folder=tmp_path / "store")
    found = texts.get(["D3", "d1", "nope", "d2"])
    assert list(found) == ["D3", "d1", "d2"]  # in the order asked, unknown ids left out
    assert found == {d: {"title": t, "text": x} for d, t, x in [DOCS[2], DOCS[0], DOCS[1]]}


def test_a_beir_corpus_names_its_ids_underscore_id(tmp_path) -> None:
    path = tmp_path / "docs.jsonl"
    path.write_text(json.dumps({"_id": "x", "title": "T", "text": "body"}) + "\n")
    assert DocumentTexts(path, folder=tmp_path / "store").get(["x"]) == {
        "x": {"title": "T", "text": "body"}
    }


def test_the_side_file_is_built_once_and_a_rewritten_file_is_indexed_again(tmp_path) -> None:
    path = write(tmp_path, "docs.tsv")
    store = tmp_path / "store"
    first = DocumentTexts(path, folder=store)
    first.get(["d1"])
    side = first.side_file()
    built = side.stat().st_mtime_ns
    again = DocumentTexts(path, folder=store)
    assert (
        again.ready()
        and again.get(["d2"])["d2"]["text"] == "second"
        and side.stat().st_mtime_ns == built
    )
    time.sleep(0.01)
    write(tmp_path, "docs.tsv", [("d1", "", "rewritten")])
    # even with its old modification time, the change time and size differ
    os.utime(path, ns=(built, built))
    assert not again.ready()
    assert again.get(["d1", "d2"]) == {"d1": {"title": "", "text": "rewritten"}}
    assert not side.exists() and len(list(store.glob("*.sqlite"))) == 1  # the old index is gone


def test_a_bad_line_is_named(tmp_path) -> None:
    path = tmp_path / "docs.jsonl"
    path.write_text('{"doc_id": "a", "text": "x"}\nnot json\n')
    with pytest.raises(FormatError, match="line 2"):
        DocumentTexts(path, folder=tmp_path / "store").get(["a"])
    assert not list((tmp_path / "store").glob("*.sqlite")) and not list(
        (tmp_path / "store").glob(".building-*")
    )


def test_many_ids_at_once_and_the_progress_reaches_the_end(tmp_path) -> None:
    docs = [(f"doc{i}", "", f"text {i}") for i in range(3000)]
    seen = []
    texts = DocumentTexts(write(tmp_path, "docs.tsv.gz", docs), folder=tmp_path / "store")
    texts.build(lambda done, total: seen.append((done, total)))
    found = texts.get([f"doc{i}" for i in range(0, 3000, 3)])
    assert len(found) == 1000 and found["doc2997"]["text"] == "text 2997"
    assert seen and seen[-1][0] == seen[-1][1]
