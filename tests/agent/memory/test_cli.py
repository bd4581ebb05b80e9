"""`rlauto actions check`, `rlauto experience recall` and `rlauto experience audit` on good,
broken, hostile and huge inputs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from flows.cli import app
from rlauto_core.memory import RECALL_THRESHOLD, ActionLibrary, ExperienceLibrary
from rlauto_core.store.storage import FsspecStorage
from tests.agent.conftest import KEY
from tests.agent.memory.answers import OPEN_NOTES, RECIPE, WRITE_A_NOTE
from tests.agent.memory.conftest import Brain
from tests.fakes.llm_server import FakeLlmServer

runner = CliRunner()
GOOD = {"name": "write a note", "aliases": ["new note"], "steps": WRITE_A_NOTE["steps"]}


def check(path: Path, *flags: str) -> Any:
    return runner.invoke(app, ["actions", "check", str(path), *flags])


def write(tmp_path: Path, value: Any, name: str = "action.json") -> Path:
    path = tmp_path / name
    path.write_bytes(value if isinstance(value, bytes) else json.dumps(value).encode())
    return path


def test_a_good_action_may_be_saved(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD)
    result = check(path, "--json")
    assert result.exit_code == 0 and json.loads(result.stdout) == {"ok": True}
    text = check(path)
    assert (
        text.exit_code == 0 and text.stdout.strip() == f"{path}: ok: the action 'write a note' may be saved (4 steps)"
    )


@pytest.mark.parametrize(
    ("content", "problems"),
    [
        (
            {"name": "tap", "steps": [{"kind": "click_xy", "x": 5, "y": 5}, {"kind": "click"}]},
            ["step 1 (click_xy): not allowed in an action: it taps coordinates, which break on another screen size "
             "or layout (click a selector instead)", "step 2 (click): selector: missing required parameter"],
        ),
        ({"name": "x", "steps": [{"kind": "long_click", "x": 5, "y": 5}]},
         ["step 1 (long_click): coordinates (x) are not allowed in an action: find the element by a selector"]),
        ({"steps": []}, ["name must be text, got NoneType", "steps: empty (an action has 1-4 steps)"]),
        ([1, 2], ["expected an object {name, aliases, steps}, got list"]),
        (b'{"name": "x", "steps": [', ["not JSON: Expecting value: line 1 column 25 (char 24)"]),
        (b"\xff\xfe{}", ["not UTF-8 text"]),
        (b'{"name": "x", "steps": [{"kind": "wait", "seconds": NaN}]}', ["not JSON: NaN is not a JSON number"]),
        ({"name": "\x1b[31mred\x1b[0m", "steps": [OPEN_NOTES["steps"][0]]}, ["name holds control characters"]),
        (b"[" * 200_000, ["not JSON: nested too deep"]),
        ({"name": "many", "steps": [OPEN_NOTES["steps"][0]] * 10_000},
         ["10000 steps: an action has at most 4 (a longer one is a task)"]),
    ],
)  # fmt: skip
def test_a_broken_or_hostile_action_is_refused_naming_each_problem(
    tmp_path: Path, content: Any, problems: list[str]
) -> None:
    path = write(tmp_path, content)
    result = check(path, "--json")
    assert result.exit_code == 2
    assert json.loads(result.stdout) == {"ok": False, "file": str(path), "problems": problems}
    text = check(path)
    assert text.exit_code == 2 and text.stdout == ""
    assert text.stderr.splitlines() == [f"error: {path}: {p}" for p in problems]


def test_a_huge_missing_or_folder_file_is_refused_without_reading_it(tmp_path: Path) -> None:
    huge = tmp_path / "huge.json"
    huge.write_bytes(b" " * (1024 * 1024 + 1))
    assert json.loads(check(huge, "--json").stdout)["problems"] == [
        f"{1024 * 1024 + 1} bytes: an action file has at most 1048576"
    ]
    missing = check(tmp_path / "nope.json", "--json")
    assert missing.exit_code == 2 and json.loads(missing.stdout)["problems"] == [
        "cannot read: No such file or directory"
    ]
    folder = check(tmp_path, "--json")
    assert folder.exit_code == 2 and json.loads(folder.stdout)["problems"] == [
        "is a directory, expected one action as JSON"
    ]


@pytest.mark.slow
def test_actions_check_as_a_user_runs_it(tmp_path: Path) -> None:
    cli = [sys.executable, "-c", "from flows.cli import main; main()", "actions", "check"]
    good = subprocess.run([*cli, str(write(tmp_path, GOOD)), "--json"], capture_output=True, text=True, timeout=120)
    assert good.returncode == 0 and json.loads(good.stdout) == {"ok": True}
    bad = write(tmp_path, {"name": "x", "steps": [{"kind": "gesture"}]}, "bad.json")
    refused = subprocess.run([*cli, str(bad)], capture_output=True, text=True, timeout=120)
    assert refused.returncode == 2
    assert refused.stderr.startswith(f"error: {bad}: step 1 (gesture): not allowed in an action")


def _filled(storage: FsspecStorage) -> None:
    library = ExperienceLibrary(storage)
    for task in [
        "Write the note 'Call Alice'",
        "Write the note 'Pay the rent'",
        "Write the note 'Buy eggs'",
        "Take a photo",
    ]:
        library.add(task, f"recipe for {task}", RECIPE)
    ActionLibrary(storage).save(WRITE_A_NOTE)


def test_experience_recall_shows_what_a_run_would_get_without_counting_hits(storage: FsspecStorage) -> None:
    _filled(storage)
    result = runner.invoke(
        app, ["experience", "recall", "Write the note 'Buy bread'", "--storage", storage.url, "--json"]
    )
    assert result.exit_code == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["threshold"] == RECALL_THRESHOLD and out["max"] == 2
    assert [e["instruction"] for e in out["experiences"]] == [
        "Write the note 'Buy eggs'",
        "Write the note 'Pay the rent'",
    ]
    assert all(e["score"] >= RECALL_THRESHOLD and e["recipe"] == RECIPE for e in out["experiences"])
    assert [a["name"] for a in out["actions"]] == ["write a note"] and out["actions"][0]["steps"] == WRITE_A_NOTE[
        "steps"
    ]
    text = runner.invoke(app, ["experience", "recall", "Take a photo", "--storage", storage.url])
    assert text.exit_code == 0 and text.stdout.startswith(f"1 recipe(s) at least {RECALL_THRESHOLD} alike (at most 2):")
    assert all(e.hits == 0 for e in ExperienceLibrary(storage).all())  # a look, not a use


@pytest.mark.parametrize(
    ("text", "problem"), [("  ", "TEXT: empty"), ("x" * 10_001, "TEXT: 10001 characters: at most 10000")]
)
def test_experience_recall_refuses_empty_and_huge_text(storage: FsspecStorage, text: str, problem: str) -> None:
    result = runner.invoke(app, ["experience", "recall", text, "--storage", storage.url])
    assert result.exit_code == 2 and result.stderr.startswith(f"error: {problem}")


def test_experience_audit_rates_with_the_agents_model_and_deletes_nothing(
    storage: FsspecStorage, fake_llm: FakeLlmServer
) -> None:
    _filled(storage)
    ids = [e.id for e in ExperienceLibrary(storage).all()]
    ratings = [{"id": i, "verdict": "delete", "score": 1, "reason": "vague"} for i in ids]
    fake_llm.script("agent", Brain(memory=[{"json": {"ratings": ratings}}]))
    env = {
        "AGENT_BASE_URL": fake_llm.base_url(),
        "AGENT_MODEL": "agent",
        "AGENT_API_KEY": KEY,
        "AGENT_MAX_ATTEMPTS": "1",
    }
    result = runner.invoke(app, ["experience", "audit", "--storage", storage.url, "--json"], env=env)
    assert result.exit_code == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["rated"] == 4 and sorted(summary["suggested_delete"]) == sorted(ids)
    assert KEY not in result.stdout
    assert [e.id for e in ExperienceLibrary(storage).all()] == ids
    text = runner.invoke(app, ["experience", "audit", "--storage", storage.url], env=env)
    assert text.stdout.startswith("audited 4 of 4 recipes: 4 suggested for deletion")
    no_key = runner.invoke(app, ["experience", "audit", "--storage", storage.url], env={**env, "AGENT_API_KEY": ""})
    assert no_key.exit_code == 2 and no_key.stderr.startswith("error: no model for the audit: set AGENT_API_KEY")
