"""docs/replay.md's model loop, run as written with the official OpenAI client: only its endpoint,
model name, key and package path are swapped for the fake model server's and an example
package's. The fake model acts as an agent does (tests/replay/model_answers.py), so the loop must
hand it the tools, pass its tool calls to `env.step`, feed the answers back, and end with a
reward that `rlauto score` would give: full marks for the agent that does the task, less for
the careless one."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT
from tests.fakes.llm_server import FakeLlmServer
from tests.replay.model_answers import careless_agent, notes_agent

DOC = REPO_ROOT / "docs" / "replay.md"


def documented_loop() -> str:
    """The Python block under the doc's **Python** item."""
    text = DOC.read_text(encoding="utf-8")
    found = re.search(r"- \*\*Python\*\*:\s*```python\n(.*?)```", text, re.S)
    assert found, "docs/replay.md has no Python example under **Python**"
    return found.group(1)


def as_run_here(code: str, package: Path, base_url: str, model: str) -> str:
    swaps = {
        '"examples-out/notes_jsonrpc.task-package.zip"': repr(str(package)),
        '"http://127.0.0.1:8000/v1"': repr(base_url),
        '"my-model"': repr(model),
        'api_key="..."': 'api_key="sk-docs-example"',
    }
    for written, here in swaps.items():
        assert written in code, f"docs/replay.md's example no longer says {written}"
        code = code.replace(written, here)
    return code


def test_the_documented_example_is_twenty_lines_or_so() -> None:
    lines = [line for line in documented_loop().splitlines() if line.strip()]
    assert 15 <= len(lines) <= 25, len(lines)


@pytest.mark.parametrize(("agent", "full_marks"), [(notes_agent, True), (careless_agent, False)])
def test_the_documented_model_loop_runs_as_written_and_ends_with_the_reward(
    fake_model: FakeLlmServer, example_packages: dict[str, Path], tmp_path: Path, agent: object, full_marks: bool
) -> None:
    model = f"docs-{'agent' if full_marks else 'careless'}"
    fake_model.script(model, *([agent] * 8))
    code = as_run_here(documented_loop(), example_packages["notes_jsonrpc.zip"], fake_model.base_url(), model)
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO_ROOT), "HOME": str(tmp_path)})  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    score, max_score = (int(n) for n in done.stdout.split()[:2])
    assert max_score > 0 and (score == max_score) is full_marks, done.stdout
    asked = fake_model.requests(model)
    assert asked and all(r.path == "/v1/chat/completions" and r.body["tools"] for r in asked)
    assert {r.headers.get("authorization") for r in asked} == {"Bearer sk-docs-example"}
    # the session's attempt was kept where the example said (out_dir="sessions")
    assert list((tmp_path / "sessions").glob("*/attempt.zip")), list(tmp_path.rglob("*"))
