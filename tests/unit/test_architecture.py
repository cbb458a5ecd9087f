"""The layers of the design: every module imports only modules of its own layer or below, no cycles,
and only the app (and pages/) import streamlit. Function-level imports count too."""

from __future__ import annotations

import ast
import functools
from collections import Counter, defaultdict

import pytest
from conftest import PAGES, ROOT
from source_trees import nodes
from source_trees import tree as parsed

PACKAGE = ROOT / "rankviz"
# lowest first; a module may import its own layer and the layers below
LAYERS = [
    ("foundations", ("rankviz.errors", "rankviz._arrow", "rankviz._memory", "rankviz.settings")),
    ("readers", ("rankviz.io",)),
    ("ordering", ("rankviz.ranking",)),
    ("measures", ("rankviz.measures",)),
    ("evaluation", ("rankviz.evaluation",)),
    ("analyses", ("rankviz.analyses",)),
    ("study", ("rankviz.study", "rankviz.trec_eval", "rankviz.ndeval")),
    ("figures and exports", ("rankviz.plots",)),
    ("front ends", ("rankviz.cli", "rankviz.app", "rankviz.__main__", "rankviz")),
]
#: the modules at the top of the package beside the layers' folders
TOP_LEVEL = {"__init__", "__main__", "errors", "_arrow", "_memory"}


def module_name(path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer_of(module: str) -> int:
    best = None
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and (
                best is None or len(prefix) > best[1]
            ):
                best = (index, len(prefix))
    assert best is not None, f"{module} belongs to no layer"
    return best[0]


MODULES = {module_name(p): p for p in PACKAGE.rglob("*.py")}


def imports(path) -> set[str]:
    """Modules a file imports: ``from pkg import mod`` is ``pkg.mod`` when that is a module, else
    ``pkg``."""
    found = set()
    for node in nodes(path):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                found.add(
                    f"{node.module}.{alias.name}"
                    if f"{node.module}.{alias.name}" in MODULES
                    else node.module
                )
    return found


@functools.cache
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


@pytest.mark.slow
def test_only_the_app_and_the_pages_import_streamlit() -> None:
    importers = {
        module_name(p)
        for p in PACKAGE.rglob("*.py")
        if any(m.split(".")[0] == "streamlit" for m in imports(p))
    }
    assert importers and all(m.startswith("rankviz.app") for m in importers), importers
    assert all(
        any(m.split(".")[0] in ("streamlit", "rankviz") for m in imports(page))
        for page in PAGES.glob("*.py")
    )


def test_caches_are_never_keyed_on_object_ids() -> None:
    """hash_funcs={Run: id} could serve a freed run's table to a new run that reuses its id."""
    for path in [*PACKAGE.rglob("*.py"), *PAGES.glob("*.py"), ROOT / "app.py"]:
        assert "hash_funcs" not in path.read_text(), path


# --- the front ends go through the study -------------------------------------------------------

FRONT_ENDS = ("rankviz.cli", "rankviz.app")
#: Modules that compute (or read what is computed on): a front end asks the Study instead.
BEHIND_THE_STUDY = (
    "rankviz.io",
    "rankviz.ranking.ranking_table",
    "rankviz.ranking.ordering",
    "rankviz.measures",
    "rankviz.evaluation.evaluate",
    "rankviz.evaluation.assembly",
    "rankviz.evaluation.result",
    "rankviz.evaluation.engines",
    "rankviz.evaluation.pieces",
    "rankviz.evaluation.dask_engine",
    "rankviz.evaluation.aggregate",
    "rankviz.analyses",
)
#: (front-end module, library module) -> why it may import from behind the study's face.
EXCEPTIONS = {
    (
        "rankviz.app.caches.cache",
        "rankviz.io.store",
    ): "the disk store of parsed runs is the app's cache",
    (
        "rankviz.app.frame.measure_picker",
        "rankviz.measures",
    ): "the measure catalogue: the sidebar offers every family and checks a typed name",
    (
        "rankviz.cli.render_numbers",
        "rankviz.measures",
    ): "the measure catalogue: `rankviz measures` lists the families",
}


def test_the_studys_face_names_what_it_says() -> None:
    """Each name of ``rankviz.study``'s face is the object its module defines, listed in
    ``__all__``; of what is behind the study, it names only what a front end names."""
    import importlib

    import rankviz.study as face

    for name, module in face._FACE.items():
        assert getattr(face, name) is getattr(importlib.import_module(module), name), name
    assert sorted(face.__all__) == sorted(face._FACE)
    named = set()
    for _, path in front_end_files():
        for node in nodes(path):
            if isinstance(node, ast.ImportFrom) and node.module == "rankviz.study":
                named |= {a.name for a in node.names}
    behind = {name for name, module in face._FACE.items() if behind_the_study(module)}
    assert behind - named == set()


def behind_the_study(module: str) -> bool:
    return any(module == m or module.startswith(m + ".") for m in BEHIND_THE_STUDY)


def front_end_files():
    for name, path in MODULES.items():
        if name.startswith(FRONT_ENDS):
            yield name, path
    for path in [*PAGES.glob("*.py"), ROOT / "app.py"]:
        yield f"pages.{path.stem}" if path.parent == PAGES else "app", path


def test_the_front_ends_reach_the_library_through_the_study() -> None:
    """The CLI, the app and the pages compute through :class:`rankviz.study.study.Study` and
    name what it takes and hands out (its types, its reports' thresholds) from its face,
    ``rankviz.study``; nothing behind it but a named exception."""
    found, used = [], set()
    for name, path in front_end_files():
        for node in nodes(path):
            if isinstance(node, ast.Import):
                found += [
                    f"{name} imports {a.name}" for a in node.names if behind_the_study(a.name)
                ]
            elif isinstance(node, ast.ImportFrom) and node.module and behind_the_study(node.module):
                if (name, node.module) not in EXCEPTIONS:
                    names = ", ".join(a.name for a in node.names)
                    found.append(f"{name} imports {names} from {node.module}")
                else:
                    used.add((name, node.module))
    assert not found, "\n".join(found)
    assert used == set(EXCEPTIONS), f"exceptions no longer needed: {set(EXCEPTIONS) - used}"


#: the names of the app's context and its answers that are also questions of the study (or its
#: methods), and why each is kept by the app under a key of its own
KEPT_BY_THE_APP = {
    "evaluation": "kept under content keys, revised for the queries a judgment changed",
    "chance": "the same, of the chance level",
    "check": "the runs' facts kept apart from the meeting's judgments",
    "meeting_report": "of two studies: the meeting's qrels and the file's",
    "beats": "from the paired tests the Significance page keeps",
    "conventions": "the lines the app shows (the served folder's names)",
    "test_settings": "the test the link chose",
    "thinly_judged": "the frame's warning, from the passes",
    "ask": "the study's entries asked, each answer kept under what its entry says it follows",
    "ranked": "whether the frame holds rankings",
}


def _public_names(paths) -> set[str]:
    """The public functions of ``paths`` and the public methods of their classes."""
    found = set()
    for path in paths:
        tree = parsed(path)
        for node in tree.body:
            bodies = node.body if isinstance(node, ast.ClassDef) else [node]
            found |= {
                f.name
                for f in bodies
                if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) and f.name[0] != "_"
            }
    return found


def test_the_app_restates_no_question_of_the_study() -> None:
    """A page asks the study with the question's entry (``ctx.ask(TIE_REPORT, ...)``): what the
    app's context and its answers name as a question (or a method) of the study is one of the
    few answers kept under keys of their own."""
    from rankviz.study import QUESTIONS, Study

    app = [
        p
        for p in (PACKAGE / "app").rglob("*.py")
        if p.stem in ("context", "frame_inputs", "answers")
    ]
    assert len(app) == 3
    studys = {q.name for q in QUESTIONS} | {n for n in vars(Study) if n[0] != "_"}
    shared = _public_names(app) & studys
    assert shared <= set(KEPT_BY_THE_APP), shared - set(KEPT_BY_THE_APP)


def test_no_question_is_asked_by_its_name() -> None:
    """No front end names a question by a string (``ctx.ask("tie_report")``) nor reaches one by
    ``getattr``: an entry is asked, which a type checker and an editor follow."""
    from rankviz.study import QUESTIONS

    names = {q.name for q in QUESTIONS}
    by_name = []
    for name, path in front_end_files():
        for node in nodes(path):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            strings = [a.value for a in node.args if isinstance(a, ast.Constant)]
            if called in ("ask", "getattr") and set(map(str, strings)) & names:
                by_name.append(f"{name}:{node.lineno}")
    assert not by_name, by_name


#: What opens a study besides its opener: a front end builds none of them itself.
OPENERS = {"Study", "open_inputs", "open_scores"}


def _a_request(node: ast.expr) -> bool:
    """Whether ``node`` is a request: a variable named ``request``, or one built where it is
    passed (``StudyRequest(...)``, ``StudyRequest.from_args(args)``)."""
    if isinstance(node, ast.Name):
        return node.id == "request"
    if isinstance(node, ast.Call):
        func = node.func
        return (isinstance(func, ast.Name) and func.id == "StudyRequest") or (
            isinstance(func, ast.Attribute) and func.attr == "from_args"
        )
    return False


def test_every_front_end_opens_its_studies_through_the_front_door() -> None:
    """The command line, the API and the app open a study with ``Study.open(request)``, which
    picks runs or scores: no front end builds a study from its parts or opens its inputs by
    another road; the app hands in its reading and narrows what it opened."""
    built, doors = [], set()
    for name, path in front_end_files():
        for node in nodes(path):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            called = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            if called in OPENERS:
                built.append(f"{name} calls {called}")
            if called == "open" and node.args and _a_request(node.args[0]):
                doors.add(name.split(".")[1] if name.startswith("rankviz.") else name)
    assert not built, built
    assert {"cli", "app"} <= doors, doors


def test_no_module_is_over_400_lines() -> None:
    long = {
        name: n for name, path in MODULES.items() if (n := len(path.read_text().splitlines())) > 400
    }
    assert not long, long


def test_no_function_is_over_60_statements() -> None:
    """A function a reader can hold at once: none over 60 statements (its nested ones counted in
    it); a longer one is split by what its parts decide."""
    long = {}
    for name, path in MODULES.items():
        for node in nodes(path):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                statements = sum(isinstance(n, ast.stmt) for n in ast.walk(node)) - 1
                if statements > 60:
                    long[f"{name}.{node.name}"] = statements
    assert not long, long


def test_no_app_module_is_over_250_lines() -> None:
    """The app's rooms stay small: each page and each part of the frame decides one thing."""
    app = [*(PACKAGE / "app").rglob("*.py"), *PAGES.glob("*.py"), ROOT / "app.py"]
    long = {
        str(p.relative_to(ROOT)): n for p in app if (n := len(p.read_text().splitlines())) > 250
    }
    assert not long, long


def test_the_layers_are_the_folders() -> None:
    """``rankviz/`` holds the layers' folders and a few modules beside them, and the import graph
    of those folders and modules (what docs/architecture.md draws) stays small."""
    top = {p.stem for p in PACKAGE.glob("*.py")}
    assert top == TOP_LEVEL
    folders = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    layered = {
        prefix.split(".")[1] for _, prefixes in LAYERS for prefix in prefixes if "." in prefix
    }
    assert folders - {"sample_data"} <= layered
    nodes = defaultdict(set)
    for name, targets in graph().items():
        node = ".".join(name.split(".")[:2])
        nodes[node] |= {".".join(t.split(".")[:2]) for t in targets} - {node}
    assert 10 <= len(nodes) <= 25

    @functools.cache
    def levels(node: str) -> int:
        return 1 + max((levels(t) for t in nodes.get(node, ())), default=0)

    assert max(levels(node) for node in list(nodes)) <= 10


def test_a_module_is_named_for_what_it_holds_without_its_folder() -> None:
    """No two modules of ``rankviz/`` share a file name (``cli/features.py`` beside
    ``analyses/features.py`` said nothing of either); the app's page scripts are named by their
    pages' keys, the paths of their links."""
    views = PACKAGE / "app" / "views"
    names = Counter(
        path.name
        for path in PACKAGE.rglob("*.py")
        if path.name != "__init__.py" and path.parent != views
    )
    assert not [name for name, count in names.items() if count > 1]


#: the app's folders, lowest first: an app module imports from its own folder and those below
#: (``rankviz.app.main``, above them all, starts the pages)
APP_FOLDERS = ["widgets", "signin", "caches", "meeting", "frame", "panels", "views", "main"]


def app_folder(module: str) -> str:
    """``rankviz.app.caches.cache`` -> ``caches``; ``rankviz.app.main`` -> ``main``."""
    return module.split(".")[2]


def app_graph() -> dict[str, set[str]]:
    """The app's import graph with its folders as nodes."""
    folders: dict[str, set[str]] = defaultdict(set)
    for name, targets in graph().items():
        if name.startswith("rankviz.app."):
            folder = app_folder(name)
            folders[folder] |= {app_folder(t) for t in targets if t.startswith("rankviz.app.")} - {
                folder
            }
    return dict(folders)


def test_the_apps_modules_live_in_its_folders() -> None:
    app = PACKAGE / "app"
    assert {p.stem for p in app.glob("*.py")} == {"__init__", "main"}
    assert {p.name for p in app.iterdir() if (p / "__init__.py").exists()} == set(APP_FOLDERS) - {
        "main"
    }


def test_no_app_module_imports_a_folder_above_its_own() -> None:
    """Sign-in knows nothing of the caches or the meeting, the meeting nothing of the frame, a
    panel nothing of the pages: what a folder holds can be read with the folders below it alone."""
    upward = [
        f"{source} imports {target}"
        for source, targets in graph().items()
        if source.startswith("rankviz.app.")
        for target in targets
        if target.startswith("rankviz.app.")
        and APP_FOLDERS.index(app_folder(target)) > APP_FOLDERS.index(app_folder(source))
    ]
    assert not upward, "\n".join(upward)


def test_the_apps_folders_draw_a_small_graph() -> None:
    """The app drawn by folder (docs/architecture.md): at most 10 nodes on at most 7 levels."""
    folders = app_graph()

    @functools.cache
    def level(node: str) -> int:
        return 1 + max((level(t) for t in folders.get(node, ())), default=0)

    assert len(folders) <= 10
    assert max(level(node) for node in folders) <= 7
