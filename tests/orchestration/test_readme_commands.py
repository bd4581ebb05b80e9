"""The README opens with the two commands a newcomer runs, and CI runs the second one as written.

The commands themselves were timed on a fresh clone with Debian's python3 (docs/operations.md
§8); here: their shape (a virtual environment made and used inside them, pip upgraded in it
before anything is installed), that `.ci/run` is the README's test command, and that `.ci/run`
fails when the tests fail (run by bash with a stand-in `python3` whose pytest exits as told).
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import textwrap
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT


def readme_commands() -> list[str]:
    text = (REPO_ROOT / "README.md").read_text()
    heading, block = text.split("```bash\n", 1)
    assert heading.strip() == "# RL-Auto", "the README must open with the commands"
    return [line for line in block.split("```", 1)[0].splitlines() if line.strip()]


def ci_command() -> str:
    lines = [line for line in (REPO_ROOT / ".ci" / "run").read_text().splitlines() if line.strip()]
    return lines[-1]


def test_the_readme_opens_with_exactly_two_commands_in_a_virtual_environment() -> None:
    commands = readme_commands()
    assert len(commands) == 2
    for command in commands:
        steps = [step.strip() for step in command.split("&&")]
        assert steps[0] == "python3 -m venv .venv"
        assert steps[1] == ".venv/bin/python -m pip install -U pip", "pip must be upgraded before it resolves"
        assert steps[2].startswith(".venv/bin/python -m pip install -e ")
        assert not any(step.startswith(("pip ", "python ", "rlauto ")) for step in steps), "nothing outside the venv"
    assert commands[0].endswith("&& .venv/bin/rlauto package examples/recordings")
    assert "'.[dev]'" in commands[1] and commands[1].endswith("&& .venv/bin/python -m pytest")


def test_ci_runs_the_readme_test_command_as_written() -> None:
    assert ci_command() == readme_commands()[1]


FAKE_PYTHON3 = textwrap.dedent(
    """\
    #!/usr/bin/env bash
    # stand-in for python3: `-m venv DIR` makes DIR/bin/python, which passes pip and exits
    # $FAKE_PYTEST_EXIT for pytest
    set -e
    [ "$1 $2" = "-m venv" ] || exit 99
    mkdir -p "$3/bin"
    printf '#!/usr/bin/env bash\\necho "python $*" >> "$FAKE_LOG"\\n[ "$2" = pytest ] && exit "$FAKE_PYTEST_EXIT"\\nexit 0\\n' > "$3/bin/python"
    chmod +x "$3/bin/python"
    """
)


@pytest.mark.parametrize(("pytest_exit", "expected"), [(0, 0), (1, 1), (2, 2), (5, 5)])
def test_ci_exits_with_the_tests_status(tmp_path: Path, pytest_exit: int, expected: int) -> None:
    checkout = tmp_path / "checkout"
    (checkout / ".ci").mkdir(parents=True)
    shutil.copy(REPO_ROOT / ".ci" / "run", checkout / ".ci" / "run")
    tools = tmp_path / "bin"
    tools.mkdir()
    for name, body in (("python3", FAKE_PYTHON3), ("chromium", "#!/bin/sh\nexit 0\n")):
        (tools / name).write_text(body)
        (tools / name).chmod(stat.S_IRWXU)
    log = tmp_path / "calls.log"
    env = {**os.environ, "PATH": f"{tools}:/usr/bin:/bin", "FAKE_LOG": str(log), "FAKE_PYTEST_EXIT": str(pytest_exit)}
    done = subprocess.run(["bash", ".ci/run"], cwd=checkout, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == expected, done.stdout + done.stderr
    assert log.read_text().splitlines() == [
        "python -m pip install -U pip",
        "python -m pip install -e .[dev]",
        "python -m pytest",
    ]
