"""The house rules, checked on the code itself: who may import whom, stage faces, room sizes."""

from __future__ import annotations

import ast
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


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
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


@pytest.mark.parametrize("layer", [layer for layer in LAYERS if layer != "rlauto_core"])
def test_outer_layers_import_a_stages_face_not_its_files(layer: str) -> None:
    stages = _stages()
    wrong = [
        f"{path.relative_to(ROOT)}: {name}"
        for path in _modules(layer)
        for name in _imports(path)
        if name.startswith("rlauto_core.") and len(name.split(".")) > 2 and name.split(".")[1] in stages
    ]
    assert wrong == []


def test_every_stage_has_a_curated_face() -> None:
    for stage in _stages():
        face = ast.parse((ROOT / "rlauto_core" / stage / "__init__.py").read_text())
        docstring = ast.get_docstring(face)
        exported = [n for n in face.body if isinstance(n, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in n.targets)]  # fmt: skip
        assert docstring, f"rlauto_core/{stage} has no docstring saying what the stage is"
        assert exported, f"rlauto_core/{stage}/__init__.py has no __all__"


def test_the_core_root_holds_shared_modules_only() -> None:
    loose = sorted(p.name for p in (ROOT / "rlauto_core").glob("*.py") if p.name != "__init__.py")
    assert loose == ["errors.py", "gcpause.py", "recording.py", "redact.py", "trusted.py"]


def test_no_module_holds_two_ideas_by_size() -> None:
    big = [
        f"{path.relative_to(ROOT)} ({n} lines)"
        for layer in LAYERS
        for path in _modules(layer)
        if (n := len(path.read_text().splitlines())) > MAX_LINES
    ]
    assert big == []
