"""Rules the tests follow to run in parallel (docs/operations.md §8), checked on their source."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent


def _is_fixture(decorator: ast.expr) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return (isinstance(target, ast.Attribute) and target.attr == "fixture") or (
        isinstance(target, ast.Name) and target.id == "fixture"
    )


@functools.cache  # the rule asks about the same few fixture modules for every test module
def fixtures_defined_in(path: Path) -> frozenset[str]:
    tree = ast.parse(path.read_text(), str(path))
    return frozenset(
        node.name
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef) and any(_is_fixture(d) for d in node.decorator_list)
    )


def module_file(module: str) -> Path | None:
    base = TESTS.parent.joinpath(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.exists():
            return candidate
    return None


def imported_fixtures(path: Path) -> list[str]:
    """`module.name` for every fixture that `path` imports from another test module."""
    found: list[str] = []
    text = path.read_text()
    if "tests." not in text:  # imports nothing from a test module: no need to parse it
        return found
    for node in ast.walk(ast.parse(text, str(path))):
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


SHARED_MODULE = """
import os
import pytest

@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    with open(os.environ["SETUPS"], "a") as log:
        log.write(os.environ.get("PYTEST_XDIST_WORKER", "-") + "\\n")
    return object()

@pytest.mark.parametrize("n", range(6))
def test_uses_the_cluster(cluster, n):
    with open(os.environ["RAN"], "a") as log:
        log.write(os.environ.get("PYTEST_XDIST_WORKER", "-") + "\\n")
"""


@pytest.mark.slow  # a pytest run with two xdist workers of its own: 1 s idle, 3-4 s beside the other tests
def test_tests_sharing_a_module_fixture_run_on_one_worker_which_sets_it_up_once(tmp_path: Path) -> None:
    """Through xdist itself, in a project of its own: two workers, a module-scoped fixture used
    by six tests beside twenty quick ones (xdist's loadgroup lost its groups under pytest 9.2)."""
    import os
    import subprocess
    import sys

    (tmp_path / "conftest.py").write_text('pytest_plugins = ["tests.xdist_groups"]\n')
    (tmp_path / "test_shared.py").write_text(SHARED_MODULE)
    (tmp_path / "test_quick.py").write_text(
        "import pytest\n\n@pytest.mark.parametrize('n', range(20))\ndef test_quick(n):\n    pass\n"
    )
    env = {
        **os.environ,
        "PYTHONPATH": str(TESTS.parent),
        "SETUPS": str(tmp_path / "setups"),
        "RAN": str(tmp_path / "ran"),
    }
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "2", "--dist", "loadgroup", "-p", "no:cacheprovider", "-q", str(tmp_path)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:]
    assert "26 passed" in done.stdout
    ran = (tmp_path / "ran").read_text().split()
    assert len(ran) == 6 and len(set(ran)) == 1 and ran[0].startswith("gw"), ran
    assert (tmp_path / "setups").read_text().split() == ran[:1]
