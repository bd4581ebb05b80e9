"""The replay environment from Python (`rlauto.open_env`): every example's golden trajectory
scores full marks with the session's own ids, an empty session scores 0, the corpus's wrong
attempts fail as their recorded forms do, and the reward is what `rlauto score` says of the
attempt file the session left."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
import rlauto

from rlauto_core.checkers import score
from rlauto_core.errors import PackageError
from rlauto_core.importers import import_path
from rlauto_core.replay import EnvCall
from tests.in_process_cli import invoke
from tests.package.conftest import ATTEMPTS
from tests.replay.helpers import CORPUS, WRONG_KINDS, attempt_calls, golden_of, play


def _scalars(node: object) -> list[str]:
    if isinstance(node, dict):
        return [s for v in node.values() for s in _scalars(v)]
    if isinstance(node, list):
        return [s for v in node for s in _scalars(v)]
    if isinstance(node, str) and node.lstrip()[:1] in ("{", "["):
        try:
            return _scalars(json.loads(node))
        except ValueError:
            return [node]
    return [str(node)]


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_golden_trajectory_scores_full_marks_with_fresh_ids(
    example_packages: dict[str, Path], name: str, tmp_path: Path
) -> None:
    env = rlauto.open_env(example_packages[name], out_dir=tmp_path)
    observation = env.reset()
    assert observation.instruction and observation.tools
    assert all(t["type"] == "function" and t["function"]["parameters"]["type"] == "object" for t in observation.tools)
    answers = play(golden_of(env), env.step)
    session = env.session
    assert session is not None
    reward = env.close()
    assert reward.passed and reward.score == reward.max_score > 0, [r.reason for r in reward.rubrics if not r.passed]
    # what the server made in the recording, this session made anew: never the recorded value
    world = env.environment.world
    made_here = {v: session.values.ids[v] for v in world.made if v in session.values.ids}
    assert made_here, "every example's golden trajectory creates something"
    shown = set(_scalars(answers))
    for recorded, fresh in made_here.items():
        assert str(fresh) != recorded and recorded not in shown and str(fresh) in shown
    # the attempt file: the recording's own format, scored the same by `rlauto score`
    assert reward.attempt is not None
    attempt = Path(reward.attempt)
    names = set(zipfile.ZipFile(attempt).namelist())
    wanted = "mcp_calls.json" if world.mode.value == "mcp" else "network.json"
    assert {"task.json", wanted} <= names
    assert json.loads((attempt.parent / "reward.json").read_text())["score"] == reward.score
    done = invoke("score", str(example_packages[name]), str(attempt), "--json")
    assert done.returncode == 0, done.stderr
    cli = json.loads(done.stdout)
    assert (cli["score"], cli["max_score"], cli["passed"]) == (reward.score, reward.max_score, True)


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_an_empty_session_scores_zero(example_packages: dict[str, Path], name: str) -> None:
    env = rlauto.open_env(example_packages[name])
    env.reset()
    reward = env.close()
    assert reward.score == 0 and not reward.passed and reward.calls == 0
    assert reward.attempt is None  # no out_dir: nothing kept


@pytest.mark.parametrize("kind", WRONG_KINDS)
@pytest.mark.parametrize("name", sorted(CORPUS))
def test_each_wrong_attempt_fails_in_the_environment_as_recorded(
    example_packages: dict[str, Path], name: str, kind: str
) -> None:
    source = ATTEMPTS / CORPUS[name] / f"{kind}.zip"
    env = rlauto.open_env(example_packages[name])
    recorded = score(env.environment.package, import_path(source))
    env.reset()
    play(attempt_calls(source), env.step)
    replayed = env.close()
    assert not recorded.passed and not replayed.passed
    assert replayed.score < replayed.max_score
    failed_recorded = {r.id for r in recorded.rubrics if not r.passed}
    failed_replayed = {r.id for r in replayed.rubrics if not r.passed}
    assert failed_recorded & failed_replayed, (failed_recorded, failed_replayed)


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_the_corpus_good_attempt_passes_when_replayed(example_packages: dict[str, Path], name: str) -> None:
    env = rlauto.open_env(example_packages[name])
    env.reset()
    play(attempt_calls(ATTEMPTS / CORPUS[name] / "good.zip"), env.step)
    assert env.close().passed


def test_unknown_calls_and_malformed_arguments_get_the_apps_own_errors(example_packages: dict[str, Path]) -> None:
    mcp = rlauto.open_env(example_packages["notes_jsonrpc.zip"])
    mcp.reset()
    unknown = mcp.step({"name": "notes_delete_everything", "arguments": {}})
    assert unknown["isError"] and "Unknown tool" in unknown["content"][0]["text"]
    wrong_type = mcp.step({"name": "notes_create", "arguments": {"title": 42}})
    assert wrong_type["isError"] and "'title' must be string" in wrong_type["content"][0]["text"]
    missing = mcp.step({"name": "notes_add_tag", "arguments": {"tag": "x"}})
    assert missing["isError"] and "noteId" in missing["content"][0]["text"]
    broken = mcp.step(EnvCall(name="notes_create", arguments='{"title": "Q3'))
    assert broken["isError"] and "JSON object" in broken["content"][0]["text"]
    ghost = mcp.step({"name": "notes_add_tag", "arguments": {"noteId": "n_318", "tag": "q3-planning"}})
    assert ghost["isError"] and "not found" in ghost["content"][0]["text"]  # the recording's id, never made here
    assert mcp.session is not None
    assert [c.outcome for c in mcp.session.calls] == ["unknown", "invalid", "invalid", "invalid", "missing"]
    assert mcp.close().score == 0

    api = rlauto.open_env(example_packages["shop_checkout.zip"])
    api.reset()
    nowhere = api.step({"method": "POST", "path": "/api/v9/teleport", "body": {"x": 1}})
    assert nowhere["status"] == 404 and set(nowhere["body"]) == {"error", "message"}  # the shop's error keys
    bad_json = api.step({"name": "http_request", "arguments": {"method": "POST", "path": "/api/cart/items",
                                                                "body": "{not json", "headers": {}}})  # fmt: skip
    assert bad_json["status"] == 400
    no_item = api.step({"method": "PATCH", "path": "/api/cart/items/ci_99999", "body": {"quantity": 2}})
    assert no_item["status"] == 404 and "ci_99999" in no_item["body"]["message"]
    assert api.session is not None
    assert [c.outcome for c in api.session.calls] == ["unknown", "invalid", "missing"]
    assert api.close().score == 0


def test_no_recorded_secret_reaches_an_answer_or_the_attempt(example_packages: dict[str, Path], tmp_path: Path) -> None:
    for name in ("issue_tracker.zip", "shop_checkout.zip", "project_board_firefox.zip"):
        env = rlauto.open_env(example_packages[name], out_dir=tmp_path / name)
        env.reset()
        recorded = env.environment.world.recording.calls  # every call, the noise with its tokens too
        answers = play(recorded, env.step)
        reward = env.close()
        assert "CANARY" not in json.dumps(answers)
        assert reward.attempt is not None
        with zipfile.ZipFile(reward.attempt) as archive:
            assert all(b"CANARY" not in archive.read(n) for n in archive.namelist())


def test_coverage_names_what_is_recorded_simulated_and_unknown(example_packages: dict[str, Path]) -> None:
    coverage = rlauto.open_env(example_packages["issue_tracker.zip"]).coverage
    routes = {r.route for r in coverage.recorded}
    assert {"POST /v2/projects/web/issues", "PATCH /v2/projects/web/issues/{}"} <= routes
    assert any("'4812'" in line and "r12" in line for line in coverage.simulated)
    assert any("404" in line for line in coverage.unknown)
    done = invoke("env", "coverage", str(example_packages["notes_jsonrpc.zip"]), "--json")
    assert done.returncode == 0 and "notes_create" in {r["route"] for r in json.loads(done.stdout)["recorded"]}


def test_a_bad_package_path_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(PackageError, match="no such file"):
        rlauto.open_env(tmp_path / "nothing.zip")
    broken = tmp_path / "broken.zip"
    broken.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(PackageError):
        rlauto.open_env(broken)
    done = invoke("env", "serve", str(broken), "--http", "--port", "1")
    assert done.returncode == 2 and "broken.zip" in done.stderr and "Traceback" not in done.stderr


def test_serving_a_package_the_wrong_way_is_refused_with_the_way_that_works(
    example_packages: dict[str, Path],
) -> None:
    """An MCP package has no HTTP API to serve and an API package no tools: exit 2 at once, one
    line saying which flag serves it, never a server that answers 404 to everything."""
    mcp = invoke("env", "serve", str(example_packages["notes_jsonrpc.zip"]), "--http", "--port", "1")
    assert mcp.returncode == 2 and "notes_jsonrpc" in mcp.stderr and "serve it with --mcp" in mcp.stderr
    api = invoke("env", "serve", str(example_packages["issue_tracker.zip"]), "--mcp")
    assert api.returncode == 2 and "issue_tracker" in api.stderr and "serve it with --http" in api.stderr
    both = invoke("env", "serve", str(example_packages["issue_tracker.zip"]), "--mcp", "--http")
    assert both.returncode == 2 and "choose one" in both.stderr
