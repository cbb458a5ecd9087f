"""The docs' generated parts agree with the code they describe, and every link of the docs leads
somewhere."""

from __future__ import annotations

import re

from conftest import ROOT

from rankviz.measures import markdown_table
from rankviz.settings.report_settings import markdown_options

DOCS = ROOT / "docs"
README = (ROOT / "README.md").read_text()


def between(name: str) -> str:
    text = (DOCS / f"{name}.md").read_text()
    match = re.search(rf"<!-- {name}:begin -->\n(.*?)<!-- {name}:end -->", text, re.S)
    assert match, f"docs/{name}.md has no {name} block"
    return match.group(1)


def test_the_measure_table_is_generated_from_the_families() -> None:
    expected = markdown_table()
    assert between("measures") == expected, (
        "stale; paste rankviz.measures.markdown_table():\n" + expected
    )


def test_the_options_table_is_generated_from_the_settings() -> None:
    expected = markdown_options()
    assert between("options") == expected, (
        "stale; paste rankviz.settings.report_settings.markdown_options():\n"
    ) + expected


def test_the_architecture_names_every_package_folder() -> None:
    section = (DOCS / "architecture.md").read_text()
    for folder in (
        "rankviz/io/",
        "rankviz/measures/",
        "rankviz/analyses/",
        "rankviz/cli/",
        "rankviz/app/",
        "pages/",
    ):
        assert f"`{folder}`" in section


def test_every_link_of_the_readme_and_the_docs_leads_to_a_file_and_heading() -> None:
    pages = {ROOT / "README.md": README, **{path: path.read_text() for path in DOCS.glob("*.md")}}
    for page, text in pages.items():
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if target.startswith(("http://", "https://")):
                continue
            file, _, anchor = target.partition("#")
            linked = (page.parent / file).resolve() if file else page
            assert linked.is_file(), f"{page.name}: {target}"
            if anchor and linked.suffix == ".md":
                headings = {_slug(h) for h in re.findall(r"(?m)^#+ (.+)$", linked.read_text())}
                assert anchor in headings, f"{page.name}: {target}"


def _slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_the_python_examples_of_the_docs_run(monkeypatch, tmp_path) -> None:
    """Every ``python`` block of the docs runs as written, from a folder outside the checkout (the
    samples found by ``rv.sample_path``)."""
    monkeypatch.chdir(tmp_path)
    pages = sorted(DOCS.glob("*.md"))
    blocks = [
        b for page in pages for b in re.findall(r"```python\n(.*?)```", page.read_text(), re.S)
    ]
    assert len(blocks) >= 4
    for block in blocks:
        exec(compile(block, "docs/python.md", "exec"), {})


def test_every_function_rankviz_exports_says_its_parameters_and_what_it_returns() -> None:
    """The API's functions (``rankviz.__all__``) carry numpydoc Parameters and Returns sections, and
    each parameter of the signature is named there (a parameter added later is documented too)."""
    import inspect

    import rankviz as rv

    checked = 0
    for name in rv.__all__:
        function = getattr(rv, name)
        if not inspect.isfunction(function):
            continue
        doc = inspect.getdoc(function) or ""
        assert "Parameters\n----------" in doc and "Returns\n-------" in doc, name
        documented = set(re.findall(r"^(\w+)$", doc.split("Returns\n-------")[0], re.M))
        for parameter in inspect.signature(function).parameters.values():
            if parameter.kind is not parameter.VAR_KEYWORD:
                assert parameter.name in documented, (name, parameter.name)
        checked += 1
    assert checked >= 18


def test_every_class_rankviz_exports_says_what_it_is_built_from() -> None:
    """The API's classes carry a numpydoc Parameters section naming each parameter of their
    constructor (the settings' sections are made from their options' help); an exception's, its
    message."""
    import inspect

    import rankviz as rv

    checked = 0
    for name in rv.__all__:
        cls = getattr(rv, name)
        if not inspect.isclass(cls):
            continue
        doc = inspect.getdoc(cls) or ""
        assert "Parameters\n----------" in doc, name
        documented = set(re.findall(r"^(\w+)$", doc.split("Parameters\n----------")[1], re.M))
        if issubclass(cls, Exception) and "__init__" not in vars(cls):
            assert "message" in documented, name
        else:
            for parameter in inspect.signature(cls).parameters.values():
                if not parameter.name.startswith("_"):
                    assert parameter.name in documented, (name, parameter.name)
        checked += 1
    assert checked >= 20


def test_every_cross_reference_in_a_docstring_names_something_that_exists() -> None:
    """``:class:`~rankviz.x.Y``` and its kin point at a module, class, function or field that is
    there (a module moved into a layer's folder left no reference behind)."""
    import dataclasses
    import importlib

    reference = re.compile(r":(?:class|func|mod|meth|data|attr):`~?(?:[^<`]*<)?(rankviz(?:\.\w+)+)")
    missing: list[str] = []
    absent, seen = object(), 0
    for path in sorted((ROOT / "rankviz").rglob("*.py")):
        for found in reference.finditer(path.read_text()):
            seen += 1
            parts = found.group(1).split(".")
            for at in range(len(parts), 0, -1):  # the longest importable module, then attributes
                try:
                    target = importlib.import_module(".".join(parts[:at]))
                    break
                except ImportError:
                    continue
            for name in parts[at:]:
                fields = dataclasses.fields(target) if dataclasses.is_dataclass(target) else ()
                if name in {f.name for f in fields}:
                    target = None
                    break
                target = getattr(target, name, absent)
                if target is absent:
                    missing.append(f"{path.relative_to(ROOT)}: {found.group(1)}")
                    break
    assert seen > 100 and missing == []


def test_a_settings_docstring_reads_the_same_however_python_indents_it() -> None:
    """Python 3.13 strips a docstring's common indentation when it compiles it; 3.11 and 3.12 keep
    it. The Parameters section made from the options' help reads the same either way (#65)."""
    import dataclasses
    import inspect

    from rankviz.settings.eval_settings import EvalSettings

    said = []
    as_311 = "Some settings.\n\n    Said over two lines.\n    "
    as_313 = "Some settings.\n\nSaid over two lines.\n"
    for doc in (as_311, as_313):
        cls = dataclasses.dataclass(frozen=True)(
            type("Some", (EvalSettings,), {"__doc__": doc, "OPTIONS": EvalSettings.OPTIONS})
        )
        said.append(inspect.getdoc(cls))
    assert said[0] == said[1]
    assert said[0].startswith("Some settings.\n\nSaid over two lines.\n\nParameters\n----------\n")
    assert "\nties\n    " in said[0]


def test_the_worker_command_of_the_docs_carries_the_settings_rankviz_gives_its_workers() -> None:
    """docs/cli.md shows the command that starts a worker with the memory settings of the workers
    ``--workers N`` starts; a change of those settings must reach the command users copy."""
    from rankviz._memory import TRIM_THRESHOLD, TUNABLES

    command = re.search(r"GLIBC_TUNABLES=.*?dask worker", (DOCS / "cli.md").read_text(), re.S)
    assert command, "docs/cli.md shows no worker command with the settings"
    words = command.group(0).replace("\\\n", " ").split()
    assert f"GLIBC_TUNABLES={TUNABLES}" in words
    assert "NUMPY_MADVISE_HUGEPAGE=0" in words
    assert f"MALLOC_TRIM_THRESHOLD_={TRIM_THRESHOLD}" in words
