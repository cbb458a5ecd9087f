"""Helpers of the app's tests (AppTest and the browser): start a page, read what it shows, a hostile
collection."""

from __future__ import annotations

import base64
import functools
import json
import re
from pathlib import Path

import numpy as np
from conftest import TE
from streamlit.components.v2 import manifest_scanner
from streamlit.testing.v1 import AppTest

# Every AppTest run scans every installed package's metadata for custom components: half a second of
# CPU, two thirds of an app test. The installed packages do not change while the tests run: scan
# once.
manifest_scanner.scan_component_manifests = functools.cache(
    manifest_scanner.scan_component_manifests
)


def shown(element) -> str:
    """An element's markdown as a reader sees it (the app escapes every punctuation mark of user
    text and puts invisible word joiners where markdown would make a link)."""
    return seen(element.value)


def seen(markdown: str) -> str:
    """Markdown as a reader sees it (:func:`shown`'s, of a text that is not an element's value: an
    expander's label)."""
    return re.sub(r"\\(.)", r"\1", markdown).replace("\u2060", "")


def conventions(at: AppTest) -> str:
    """The conventions line at the top of the page, and every convention behind it, as a reader
    sees them."""
    line = next(e for e in at.main.expander if e.label.startswith("**"))
    return seen(line.label) + "\n" + shown(line.caption[0])


def start(page: str = "overview", **params: str) -> AppTest:
    """The app's navigation (as app.py runs it) with ``page`` as the page being shown."""
    at = AppTest.from_string(
        f"from rankviz.app.frame.pages import navigate\nnavigate(default={page!r})\n",
        default_timeout=120,
    )
    for key, value in params.items():
        at.query_params[key] = value
    return at.run()


def figure(at: AppTest, index: int = 0) -> dict:
    """The figure's JSON with Plotly's base64-packed arrays decoded to lists."""
    charts = at.get("plotly_chart")
    return _decode(json.loads(charts[index].proto.spec))


def _decode(node):
    if isinstance(node, dict):
        if set(node) >= {"bdata", "dtype"}:
            array = np.frombuffer(base64.b64decode(node["bdata"]), dtype=node["dtype"])
            if "shape" not in node:
                return array.tolist()
            shape = node["shape"]
            return array.reshape(
                [int(n) for n in shape.split(",")] if isinstance(shape, str) else shape
            ).tolist()
        return {k: _decode(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_decode(v) for v in node]
    return node


LINK = "[Session expired - click to sign in](http://evil.example/login)"


IMAGE = "![x](http://evil.example/pixel.png)"


FORMULA = "$$E=mc^2$$"


def hostile_collection(root: Path) -> Path:
    """A collection whose every user-written text is markdown, a link, an image or a formula."""
    import shutil

    folder = root / "hostile"
    (folder / "runs").mkdir(parents=True)
    te = TE
    shutil.copy(te / "qrels.txt", folder / "qrels.txt")
    shutil.copy(te / "run_STANDARD.txt", folder / "runs" / "[a](http:evil.example).txt")
    shutil.copy(te / "run_trunc.txt", folder / "runs" / "b.txt")
    (folder / "collection.toml").write_text(f'name = "{LINK}"\ndescription = "{IMAGE} {FORMULA}"\n')
    (folder / "queries.tsv").write_text(
        f"301\t{LINK} <b>bold</b> {FORMULA}\n302\t*two*\n303\tthree\n"
    )
    (folder / "query_groups.tsv").write_text(
        f"qid\t{IMAGE}\n301\t{FORMULA}\n302\t{LINK}\n303\tplain\n"
    )
    return folder


def rendered(at: AppTest) -> list[tuple[str, str]]:
    """(markdown source, what a reader sees) of every text element that renders markdown."""
    kinds = ("markdown", "caption", "warning", "error", "info", "success", "header", "subheader")
    labels = [(e.label, seen(e.label)) for e in at.get("expander")]
    return [
        *labels,
        *((e.value, shown(e)) for kind in kinds for e in at.get(kind) if getattr(e, "value", None)),
    ]


def assert_literal(at: AppTest, *texts: str) -> None:
    """Each text shows as written and no element carries an unescaped link, image or formula."""
    elements = rendered(at)
    for text in texts:
        assert any(text in seen for _, seen in elements), text
    for source, _ in elements:
        assert not re.search(
            r"(?<!\\)\]\((?!http)|(?<!\\)\]\(http|(?<!\\)!\[|(?<!\\)\$\$", source
        ), source


def judged_collection(root: Path) -> Path:
    """DL-HARD with a second source beside its qrels, ``qrels.umbrela.txt`` (kind ``llm:gpt-4o``):
    grades moved by -1, 0 or +1 (seeded) on 80% of the file's pairs, plus 30 pairs of bm25's top 10
    the file does not judge (graded 2), so that it also fills holes."""
    import shutil

    import pandas as pd

    import rankviz as rv

    folder = root / "judged"
    shutil.copytree(Path(__file__).resolve().parents[1] / "sample_data" / "dl-hard-passage", folder)
    frame = rv.read_qrels(folder / "qrels.txt").to_frame()
    sample = frame.sample(frac=0.8, random_state=5)
    sample["rel"] = np.clip(
        sample["rel"] + np.random.default_rng(5).integers(-1, 2, len(sample)), 0, 3
    )
    run = rv.read_run(folder / "runs" / "bm25.run.gz").to_frame()
    top = run[run.groupby("qid").cumcount() < 10][["qid", "docid"]]
    unjudged = top.merge(frame[["qid", "docid"]], how="left", indicator=True)
    extra = unjudged[unjudged["_merge"] == "left_only"][["qid", "docid"]].head(30).assign(rel=2)
    lines = pd.concat([sample, extra]).itertuples(index=False)
    (folder / "qrels.umbrela.txt").write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in lines))
    with open(folder / "collection.toml", "a") as handle:
        handle.write('\n[qrels.umbrela]\nfile = "qrels.umbrela.txt"\nkind = "llm:gpt-4o"\n')
    return folder
