"""The house rules, checked on the code itself: who may import whom, stage faces, room sizes."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ("rlauto_core", "tasks", "flows", "device_flows", "dashboards")
# what each layer must never import (architecture.md "Arrows")
OUTER = {"tasks", "flows", "device_flows", "dashboards"}
FORBIDDEN = {
    "rlauto_core": {"prefect", "streamlit", "uiautomator2", "adbutils", "s3fs", *OUTER},
    "tasks": {"flows", "dashboards", "device_flows", "streamlit"},
    "dashboards": {"flows", "tasks", "device_flows"},
    "device_flows": {"flows", "tasks", "dashboards", "streamlit"},
    "flows": {"device_flows"},
}
MAX_LINES = 400


def _modules(layer: str) -> list[Path]:
    return sorted((ROOT / layer).rglob("*.py"))


@functools.cache  # the checks read the same modules many times over (the import graph once per import)
def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(), filename=str(path))


def _imports(path: Path) -> list[str]:
    tree = _tree(path)
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append(node.module)
    return found


@pytest.mark.parametrize("layer", LAYERS)
def test_no_layer_imports_one_it_must_not(layer: str) -> None:
    wrong = [
        f"{path.relative_to(ROOT)}: {name}"
        for path in _modules(layer)
        for name in _imports(path)
        if name.split(".")[0] in FORBIDDEN[layer]
    ]
    assert wrong == []


def _stages() -> set[str]:
    return {p.name for p in (ROOT / "rlauto_core").iterdir() if (p / "__init__.py").is_file()}


def _rooms() -> dict[str, Path]:
    """Sub-packages of a stage (`rlauto_core.agent.run`): each a room with a face of its own."""
    return {
        ".".join(init.parent.relative_to(ROOT).parts): init.parent
        for init in (ROOT / "rlauto_core").glob("*/*/__init__.py")
    }


def _face_names(package: Path) -> list[str]:
    face = ast.parse((package / "__init__.py").read_text())
    for node in face.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            assert isinstance(node.value, ast.List | ast.Tuple), f"{package}: __all__ is not a literal list"
            return [ast.literal_eval(element) for element in node.value.elts]
    return []


def _imported(path: Path) -> list[tuple[str, list[str]]]:
    """(module, names) of every absolute import; `import a.b` imports no names."""
    tree = _tree(path)
    found: list[tuple[str, list[str]]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, []) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.module, [alias.name for alias in node.names]))
    return found


def _faces() -> dict[str, Path]:
    """Every face: a stage (`rlauto_core.memory`) and a room (`rlauto_core.agent.run`)."""
    stages = {f"rlauto_core.{name}": ROOT / "rlauto_core" / name for name in _stages()}
    return {**stages, **_rooms()}


@pytest.mark.parametrize("layer", [layer for layer in LAYERS if layer != "rlauto_core"])
def test_outer_layers_import_a_stages_face_not_its_files(layer: str) -> None:
    faces = _faces()
    names = {face: set(_face_names(path)) for face, path in faces.items()}
    wrong = []
    for path in _modules(layer):
        for module, imported in _imported(path):
            if not module.startswith("rlauto_core.") or module.split(".")[1] not in _stages():
                continue
            if module not in faces:
                wrong.append(f"{path.relative_to(ROOT)}: {module}")
            wrong += [
                f"{path.relative_to(ROOT)}: {module}.{n} (not on the face)" for n in imported if n not in names[module]
            ]
    assert wrong == []


def test_rooms_import_each_other_through_their_faces_only() -> None:
    """A room's files are its own: from outside the room only its face, and only the names on it."""
    rooms = _rooms()
    names = {room: set(_face_names(path)) for room, path in rooms.items()}
    wrong = []
    for layer in LAYERS:
        for path in _modules(layer):
            home = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            for module, imported in _imported(path):
                room = next((r for r in rooms if module == r or module.startswith(r + ".")), None)
                if room is None or home.startswith(room + "."):
                    continue
                if module != room:
                    wrong.append(f"{path.relative_to(ROOT)}: {module}")
                wrong += [
                    f"{path.relative_to(ROOT)}: {room}.{n} (not on the face)" for n in imported if n not in names[room]
                ]
    assert wrong == []


def _room_arrows() -> dict[str, set[str]]:
    """Which rooms and stages each room's files import (the agent's rooms and the memory stage)."""
    faces = _faces()
    nodes = {face for face in faces if face.startswith("rlauto_core.agent.") or face == "rlauto_core.memory"}
    arrows: dict[str, set[str]] = {node: set() for node in nodes}
    for node in nodes:
        for path in faces[node].rglob("*.py"):
            for module, imported in _imported(path):
                targets = {module, *(f"{module}.{n}" for n in imported)}
                arrows[node] |= {other for other in nodes if other != node and any(
                    t == other or t.startswith(other + ".") for t in targets)}  # fmt: skip
    return arrows


def test_the_agents_rooms_import_each_other_in_no_circle() -> None:
    arrows = _room_arrows()
    done: set[str] = set()

    def visit(node: str, path: list[str]) -> None:
        assert node not in path, f"a circle of imports: {' -> '.join([*path, node])}"
        if node in done:
            return
        for target in sorted(arrows[node]):
            visit(target, [*path, node])
        done.add(node)

    for node in sorted(arrows):
        visit(node, [])
    assert "rlauto_core.memory" not in set().union(*(arrows[n] for n in arrows if n != "rlauto_core.memory")), (
        "the agent imports its memory: memory implements the agent's hooks, not the other way"
    )


@pytest.mark.parametrize(
    "face",
    ["rlauto_core.agent", "rlauto_core.memory", *sorted(r for r in _rooms() if r.startswith("rlauto_core.agent."))],
)
def test_the_agents_faces_hold_at_most_30_names(face: str) -> None:
    names = _face_names(ROOT / face.replace(".", "/"))
    assert 0 < len(names) <= 30, f"{face}: {len(names)} names on its face"


def test_every_stage_and_room_has_a_curated_face() -> None:
    for face, path in _faces().items():
        tree = ast.parse((path / "__init__.py").read_text())
        assert ast.get_docstring(tree), f"{face} has no docstring saying what it is"
        assert _face_names(path), f"{face}/__init__.py has no __all__"


def test_the_core_root_holds_shared_modules_only() -> None:
    loose = sorted(p.name for p in (ROOT / "rlauto_core").glob("*.py") if p.name != "__init__.py")
    assert loose == ["errors.py", "gcpause.py", "recording.py", "redact.py", "secret_values.py", "trusted.py"]


def test_no_module_holds_two_ideas_by_size() -> None:
    big = [
        f"{path.relative_to(ROOT)} ({n} lines)"
        for layer in LAYERS
        for path in _modules(layer)
        if (n := len(path.read_text().splitlines())) > MAX_LINES
    ]
    assert big == []


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _import_graph(layer: str) -> dict[str, set[str]]:
    """Module -> the modules of the same layer it imports, at the top or inside a function
    (a lazy import hides a circle from Python, not from this check)."""
    modules = {_module_name(p): p for p in _modules(layer)}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        found = set()
        for imported in _imports(path):
            # `from flows import control` names the module flows.control
            for candidate in (imported, *(f"{imported}.{n}" for n in _imported_names(path, imported))):
                if candidate in modules and candidate != name:
                    found.add(candidate)
        graph[name] = found
    return graph


def _imported_names(path: Path, module: str) -> list[str]:
    tree = _tree(path)
    return [
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == module and node.level == 0
        for alias in node.names
    ]


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    found: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the path, 2: done

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                found.append([*path[path.index(nxt) :], nxt])
            elif nxt not in state:
                visit(nxt, [*path, nxt])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    return found


def test_no_import_circle_between_flows_modules() -> None:
    """flows/launch and flows/item_launch once imported each other through a lazy import."""
    graph = {m: deps for m, deps in _import_graph("flows").items() if m != "flows"}
    assert _cycles(graph) == []


def test_the_cycle_check_finds_a_circle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [["a", "b", "c", "a"]]


def test_checkers_do_not_import_package() -> None:
    """Package builds on checkers (the DSL, the views); the scoring runtime reads a package
    through the shapes in checkers/scored.py, never the package models: no arrow back up."""
    wrong = [
        f"{path.relative_to(ROOT)}: {name}"
        for path in sorted((ROOT / "rlauto_core" / "checkers").rglob("*.py"))
        for name in _imports(path)
        if name == "rlauto_core.package" or name.startswith("rlauto_core.package.")
    ]
    assert wrong == []
