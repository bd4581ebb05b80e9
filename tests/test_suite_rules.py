"""Rules the tests follow to run in parallel (docs/operations.md §8), checked on their source."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def _is_fixture(decorator: ast.expr) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return (isinstance(target, ast.Attribute) and target.attr == "fixture") or (
        isinstance(target, ast.Name) and target.id == "fixture"
    )


def fixtures_defined_in(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), str(path))
    return {
        node.name
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef) and any(_is_fixture(d) for d in node.decorator_list)
    }


def module_file(module: str) -> Path | None:
    base = TESTS.parent.joinpath(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.exists():
            return candidate
    return None


def imported_fixtures(path: Path) -> list[str]:
    """`module.name` for every fixture that `path` imports from another test module."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("tests."):
            source = module_file(node.module)
            if source is not None:
                fixtures = fixtures_defined_in(source)
                found += [f"{node.module}.{alias.name}" for alias in node.names if alias.name in fixtures]
    return found


def test_no_test_module_imports_a_fixture() -> None:
    """An imported fixture is registered a second time where it is imported: a session-scoped one
    then runs twice in one process (two S3 servers fighting over AWS_ENDPOINT_URL did)."""
    offenders = {
        str(path.relative_to(TESTS)): names
        for path in sorted(TESTS.rglob("*.py"))
        if (names := imported_fixtures(path))
    }
    assert offenders == {}, "use shared fixtures by name (tests/fixtures, tests/conftest.py); do not import them"


def test_the_rule_sees_an_imported_fixture(tmp_path: Path) -> None:
    module = TESTS / "fixtures" / "s3.py"
    assert {"s3_server", "s3_url", "relay", "moto_s3"} <= fixtures_defined_in(module)
    offender = tmp_path / "test_offender.py"
    offender.write_text("from tests.fixtures.s3 import S3Server, s3_server\n")
    assert imported_fixtures(offender) == ["tests.fixtures.s3.s3_server"]
