"""Which tests run together on one xdist worker, and in what order the workers get them.

Tests that share a module- or class-scoped fixture go to one worker, which then sets the fixture
up once (the scale-out cluster, the CLI runs of test_cli_inspect_errors). xdist's own
`--dist loadgroup` carries a test's group in its node id, which pytest 9.2 no longer lets a plugin
change (pytest-xdist#1386): the groups were silently ignored and each worker set the cluster up
again. So each worker writes the groups it computed to a file the controller named, and the
controller's scheduler reads them (`--dist loadgroup` still selects it).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest

PLAN_KEY = "rlauto_xdist_groups"
_plan_dir = pytest.StashKey[Path]()


def shared_fixture_group(item: pytest.Item) -> str | None:
    """The test's module when it uses a module- or class-scoped fixture, else None."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return None
    scopes = {defs[-1].scope for name, defs in info.name2fixturedefs.items() if defs and name in item.fixturenames}
    return item.nodeid.split("::", 1)[0] if scopes & {"module", "class", "package"} else None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Slow groups first, then the slow tier, then the rest: the longest waits start at once and
    the quick tests fill the workers at the end (every worker computes the same order, as xdist
    requires). In a worker, the groups go to the file the controller reads."""
    groups = {item.nodeid: group for item in items if (group := shared_fixture_group(item)) is not None}
    items.sort(key=lambda item: (item.get_closest_marker("slow") is None, item.nodeid not in groups))
    plan = getattr(config, "workerinput", {}).get(PLAN_KEY)
    if plan is not None:
        partial = Path(f"{plan}.{os.getpid()}")
        partial.write_text(json.dumps(groups))
        partial.replace(plan)  # every worker writes the same groups; a reader never sees half


def _plan(config: pytest.Config) -> Path:
    if _plan_dir not in config.stash:
        config.stash[_plan_dir] = Path(tempfile.mkdtemp(prefix="rlauto-xdist-"))
    return config.stash[_plan_dir] / "groups.json"


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    node.workerinput[PLAN_KEY] = str(_plan(node.config))


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    if config.getoption("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class GroupScheduling(LoadScopeScheduling):  # type: ignore[misc]
        """xdist's scope scheduling with the workers' groups as scopes (a test of no group is a
        scope of its own), in collection order rather than largest group first."""

        def __init__(self) -> None:
            super().__init__(config, log)
            self._groups: dict[str, str] | None = None
            config.option.loadscopereorder = False

        def _split_scope(self, nodeid: str) -> str:
            if self._groups is None:  # read once every worker has collected
                path = _plan(config)
                self._groups = json.loads(path.read_text()) if path.exists() else {}
            return self._groups.get(nodeid, nodeid)

    return GroupScheduling()


def pytest_unconfigure(config: pytest.Config) -> None:
    if _plan_dir in config.stash:
        shutil.rmtree(config.stash[_plan_dir], ignore_errors=True)
