"""The layers of the design: every module imports only modules of its own layer or below, no cycles,
and only the app (and pages/) import streamlit. Function-level imports count too."""

from __future__ import annotations

import ast
from collections import defaultdict

from conftest import PAGES, ROOT

PACKAGE = ROOT / "rankviz"
# lowest first; a module may import its own layer and the layers below
LAYERS = [
    ("foundations", ("rankviz.errors", "rankviz.tie_policy", "rankviz.settings", "rankviz._arrow", "rankviz.numbers")),
    ("readers", ("rankviz.io",)),
    ("ordering", ("rankviz.ranking",)),
    ("measures", ("rankviz.measures",)),
    ("evaluation", ("rankviz.aggregate", "rankviz.evaluate", "rankviz.engines")),
    ("analyses", ("rankviz.analyses",)),
    ("figures and exports", ("rankviz.plots", "rankviz.export")),
    ("front ends", ("rankviz.cli", "rankviz.app", "rankviz.__main__", "rankviz")),
]


def module_name(path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer_of(module: str) -> int:
    best = None
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and (best is None or len(prefix) > best[1]):
                best = (index, len(prefix))
    assert best is not None, f"{module} belongs to no layer"
    return best[0]


MODULES = {module_name(p): p for p in PACKAGE.rglob("*.py")}


def imports(path) -> set[str]:
    """Modules a file imports: ``from pkg import mod`` is ``pkg.mod`` when that is a module, else ``pkg``."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                found.add(f"{node.module}.{alias.name}" if f"{node.module}.{alias.name}" in MODULES else node.module)
    return found


def graph() -> dict[str, set[str]]:
    modules = MODULES
    edges = defaultdict(set)
    for name, path in modules.items():
        for target in imports(path):
            if target in modules and target != name:
                edges[name].add(target)
    return {name: edges[name] for name in modules}


def test_no_module_imports_a_layer_above_its_own() -> None:
    upward = [
        f"{source} ({LAYERS[layer_of(source)][0]}) imports {target} ({LAYERS[layer_of(target)][0]})"
        for source, targets in graph().items()
        for target in targets
        if layer_of(target) > layer_of(source)
    ]
    assert not upward, "\n".join(upward)


def test_no_import_cycles() -> None:
    edges = graph()
    state: dict[str, int] = {}

    def visit(node: str, path: list[str]) -> list[str] | None:
        state[node] = 1
        for target in sorted(edges[node]):
            if state.get(target) == 1:
                return [*path, node, target]
            if target not in state and (cycle := visit(target, [*path, node])):
                return cycle
        state[node] = 2
        return None

    for start in sorted(edges):
        if start not in state:
            cycle = visit(start, [])
            assert cycle is None, " -> ".join(cycle[cycle.index(cycle[-1]) :])


def test_only_the_app_and_the_pages_import_streamlit() -> None:
    importers = {module_name(p) for p in PACKAGE.rglob("*.py") if any(m.split(".")[0] == "streamlit" for m in imports(p))}
    assert importers and all(m.startswith("rankviz.app") for m in importers), importers
    assert all(any(m.split(".")[0] in ("streamlit", "rankviz") for m in imports(page)) for page in PAGES.glob("*.py"))


def test_caches_are_never_keyed_on_object_ids() -> None:
    """hash_funcs={Run: id} could serve a freed run's table to a new run that reuses its id."""
    for path in [*PACKAGE.rglob("*.py"), *PAGES.glob("*.py"), ROOT / "app.py"]:
        assert "hash_funcs" not in path.read_text(), path
