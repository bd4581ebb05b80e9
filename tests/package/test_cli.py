"""`rlauto package`, `rlauto validate`, `rlauto score`: JSON shapes, exit codes, one-line errors."""

from __future__ import annotations

import json
import re
import shutil
import zipfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from flows.cli import app
from tests.conftest import CAPTURES, DATA, EXAMPLES
from tests.package.conftest import ATTEMPTS, Packaged

# every command here runs the package-batch flow on the session Prefect server: the slow tier
pytestmark = pytest.mark.slow

runner = CliRunner()


@pytest.fixture(autouse=True)
def _pipeline(prefect_api_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`rlauto package` runs the package-batch flow: on the session's Prefect server, storage in tmp."""
    monkeypatch.setenv("RLAUTO_STORAGE_URL", str(tmp_path / "storage"))
    monkeypatch.delenv("DEFAULT_API_KEY", raising=False)
    monkeypatch.chdir(tmp_path)  # the default --out ./task-packages lands here, not in the checkout


def test_package_json_lists_every_example(tmp_path: Path) -> None:
    result = runner.invoke(app, ["package", str(EXAMPLES), "--out", str(tmp_path), "--json"])
    assert result.exit_code == 0, result.stderr
    items = json.loads(result.stdout)
    assert len(items) == 6 and len({item["job_id"] for item in items}) == 1
    for item in items:
        # the core outcome itself, in the seed's status words, plus where its package was copied
        assert {"source", "job_id", "item_id", "status", "verdict", "total_score", "iterations", "self_check"} <= set(
            item
        )
        assert item["status"] == "completed" and item["verdict"] == "PASS" and item["analyzer"] == "offline"
        assert Path(item["package_file"]).parent == tmp_path
        assert item["self_check"]["golden_full_marks"] is True
        assert item["analyzer_line"].startswith("analyzer: offline")


def test_a_recording_without_an_instruction_waits_for_a_person_and_says_why(tmp_path: Path) -> None:
    result = runner.invoke(app, ["package", str(CAPTURES / "project_board.har"), "--out", str(tmp_path), "--json"])
    assert result.exit_code == 1, result.stderr  # needs revision, not bad input
    [item] = json.loads(result.stdout)
    assert item["status"] == "failed" and item["verdict"] == "NEEDS_REVISION" and item["package_file"] is None
    assert item["iterations"] and item["self_check"]["golden_full_marks"] is True
    assert "no instruction recorded: add one to task.json or run with a model" in (item["error"] or "")


def test_a_folder_of_public_cassettes_is_a_batch_of_mcp_recordings(tmp_path: Path) -> None:
    """`rlauto package DIR` on what two MCP recorders wrote: each capture is an item of its own,
    imported as MCP; offline with no instruction each waits for a person (exit 1), none is lost."""
    folder = tmp_path / "captures"
    shutil.copytree(DATA / "mcp" / "cassette", folder)
    result = runner.invoke(app, ["package", str(folder), "--out", str(tmp_path / "out"), "--json"])
    assert result.exit_code == 1, result.stderr
    items = json.loads(result.stdout)
    assert sorted(Path(item["source"]).name for item in items) == sorted(p.name for p in folder.iterdir())
    assert {item["mode"] for item in items} == {"mcp"} and {item["verdict"] for item in items} == {"NEEDS_REVISION"}
    assert all("no instruction recorded" in (item["error"] or "") for item in items)


def test_package_table_and_globs_and_options(tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        ["package", str(EXAMPLES / "shop_*.zip"), str(EXAMPLES / "discord_reply.zip"), "--out", str(tmp_path),
         "--strict-full-marks", "--ignore-task-complexity", "--profile", "rl-env-4.30", "--offline"],
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert "2/2 packaged" in result.stdout
    with zipfile.ZipFile(tmp_path / "shop_checkout.task-package.zip") as archive:
        task = json.loads(archive.read("shop-checkout-0507/task.json"))
    assert task["rule_profile"] == "rl-env-4.30"
    assert task["pass_policy"]["judge"]["name"] == "strict_full_marks+ignore_task_complexity"


def test_package_reports_bad_inputs_in_one_line_and_exits_2(tmp_path: Path) -> None:
    broken = tmp_path / "broken.zip"
    broken.write_bytes(b"PK\x03\x04garbage")
    result = runner.invoke(app, ["package", str(broken), str(EXAMPLES / "issue_tracker.zip"), str(tmp_path / "nope.zip"),
                                 "--out", str(tmp_path / "out"), "--json"])  # fmt: skip
    assert result.exit_code == 2
    errors = result.stderr.strip().splitlines()
    assert len(errors) == 2 and all(line.startswith("error: ") for line in errors)
    assert any("broken.zip" in line for line in errors) and any("nope.zip: no such file" in line for line in errors)
    # the missing path is no item at all; the broken one failed before any iteration
    outcomes = {Path(i["source"]).name: i for i in json.loads(result.stdout)}
    assert {name: o["status"] for name, o in outcomes.items()} == {
        "broken.zip": "failed",
        "issue_tracker.zip": "completed",
    }
    assert outcomes["broken.zip"]["iterations"] == [] and "broken.zip" in outcomes["broken.zip"]["error"]
    assert "Traceback" not in result.stdout + result.stderr


def test_package_with_no_recording_found(tmp_path: Path) -> None:
    result = runner.invoke(app, ["package", str(tmp_path)])
    assert result.exit_code == 2 and result.stderr.startswith("error: ") and "no recording" in result.stderr


def test_validate_a_package_zip_and_a_bare_task_json(packaged: dict[str, Packaged], tmp_path: Path) -> None:
    path = Path(str(packaged["slack_incident_channel.zip"].package_path))
    result = runner.invoke(app, ["validate", str(path), "--json"])
    assert result.exit_code == 0, result.stdout
    report = json.loads(result.stdout)
    assert {"golden_full_marks", "empty_attempt_score", "mutants_total", "mutants_caught", "problems"} <= set(report)
    assert report["golden_full_marks"] and report["empty_attempt_score"] == 0 and report["problems"] == []
    assert report["mutants_caught"] == report["mutants_total"] > 0
    assert report["variants_passed"] == report["variants_total"] > 0 and report["failing_variant"] is None
    assert {v["kind"] for v in report["variants"]} >= {"ids_renamed", "stable_without_read"}
    assert report["judge"]["verdict"] == "PASS"
    # evidence the generator did not write: every recorded write covered or excluded by a rule
    assert [w["call_id"] for w in report["writes_covered"]] == ["c6", "c8", "c10"]
    assert all(w["rule"] for w in report["writes_excluded"])
    assert report["recording_mutants_caught"] == report["recording_mutants_total"] > 0
    assert report["behaviour_variants_passed"] == report["behaviour_variants_total"]
    assert report["ungrounded"] == []
    with zipfile.ZipFile(path) as archive:
        (tmp_path / "task.json").write_bytes(archive.read("task.json"))
    alone = json.loads(runner.invoke(app, ["validate", str(tmp_path / "task.json"), "--json"]).stdout)
    assert alone["golden_full_marks"] and alone["mutants_total"] == report["mutants_total"]
    assert alone["variants_passed"] == alone["variants_total"] == report["variants_total"]
    assert [w["call_id"] for w in alone["writes_covered"]] == ["c6", "c8", "c10"]  # from the package alone
    text = runner.invoke(app, ["validate", str(path)])
    assert text.exit_code == 0 and "golden full marks: True" in text.stdout
    assert f"valid variants at full marks: {report['variants_total']}/{report['variants_total']}" in text.stdout
    assert "recorded writes: 3 covered" in text.stdout and ", 0 with no rule;" in text.stdout


def test_validate_names_the_variant_an_over_strict_checker_fails(packaged: dict[str, Packaged], tmp_path: Path) -> None:
    """The label rubric pins the issue number this run's server made: another run gets another one."""
    with zipfile.ZipFile(str(packaged["issue_tracker.zip"].package_path)) as archive:
        task = json.loads(archive.read("task.json"))
    key, field = next(
        (k, f) for k, roles in task["value_roles"].items() for f, r in roles.items()
        if r["role"] == "created" and f.startswith("path_params.")
    )  # fmt: skip
    # the role's reason names the create and where its answer held the id: pin that very value
    made = re.search(r"by (\S+)'s answer \(response\.(\w+)\)", task["value_roles"][key][field]["reason"])
    assert made is not None, task["value_roles"][key][field]
    create = next(c for s in task["task"]["subtasks"] for c in s["apiCalls"] if c["id"] == made.group(1))
    task["rubric_checkers"][key]["path_params"][field.split(".", 1)[1]] = create["output"]["body"][made.group(2)]
    (tmp_path / "task.json").write_text(json.dumps(task))
    result = runner.invoke(app, ["validate", str(tmp_path / "task.json"), "--json"])
    assert result.exit_code == 1, result.stdout
    report = json.loads(result.stdout)
    failing = report["failing_variant"]
    rubric = next(r for r in task["task"]["rubrics"] if r["checker_key"] == key)
    assert failing["kind"] == "ids_renamed" and [r["id"] for r in failing["rubrics"]] == [rubric["id"]]
    assert report["variants_passed"] == report["variants_total"] - 1
    assert report["judge"]["scores"]["CHECKER VERIFIABILITY"]["score"] == 0 and report["judge"]["verdict"] != "PASS"
    text = runner.invoke(app, ["validate", str(tmp_path / "task.json")])
    assert f"failing variant: {failing['id']} every id the server created or handed out renamed" in text.stdout


def test_validate_names_the_problems_of_a_weak_package(packaged: dict[str, Packaged], tmp_path: Path) -> None:
    with zipfile.ZipFile(str(packaged["discord_reply.zip"].package_path)) as archive:
        task = json.loads(archive.read("task.json"))
    # loosen the send checker: any channel will do, and drop the stray guard
    task["rubric_checkers"]["call_c9"]["arguments"].pop("channelId")
    task["rubric_checkers"]["call_c9"]["arguments"].pop("guildId")
    strays = task["rubric_checkers"]["no_stray_writes"]
    strays.pop("given")
    strays["match"] = [m for m in strays["match"] if m["tool"] != "discord_send_message"]
    (tmp_path / "task.json").write_text(json.dumps(task))
    result = runner.invoke(app, ["validate", str(tmp_path / "task.json"), "--json"])
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert report["mutants_caught"] < report["mutants_total"]
    assert any("passes an empty attempt" in p for p in report["problems"])
    assert any(p.startswith("mutant") and "keeps" in p for p in report["problems"])


@pytest.mark.parametrize(("kind", "code"), [("good", 0), ("wrong_entity", 1), ("empty", 1)])
def test_score_an_attempt(packaged: dict[str, Packaged], kind: str, code: int) -> None:
    path = str(packaged["issue_tracker.zip"].package_path)
    result = runner.invoke(app, ["score", path, str(ATTEMPTS / "issue_tracker" / f"{kind}.zip"), "--json"])
    assert result.exit_code == code, result.stderr
    report = json.loads(result.stdout)
    assert set(report) >= {"score", "max_score", "passed", "rubrics"}
    assert report["passed"] is (kind == "good")
    assert all({"id", "passed", "points", "max_score", "reason"} <= set(r) for r in report["rubrics"])
    table = runner.invoke(app, ["score", path, str(ATTEMPTS / "issue_tracker" / f"{kind}.zip")])
    assert ("PASS" if kind == "good" else "FAIL") in table.stdout


def test_hostile_inputs_give_one_line_errors(packaged: dict[str, Packaged], tmp_path: Path) -> None:
    attempt = str(ATTEMPTS / "issue_tracker" / "good.zip")
    (tmp_path / "broken.json").write_text('{"task": ')
    bad_dsl = {"task": {"rubrics": [{"id": "r1", "title": "t", "checker_key": "c"}]},
               "rubric_checkers": {"c": {"kind": "http_call", "path": {"regex": "(("}}}}  # fmt: skip
    (tmp_path / "bad_dsl.json").write_text(json.dumps(bad_dsl))
    (tmp_path / "attempt.zip").write_bytes(b"not a zip at all")
    cases = [
        (["score", str(tmp_path / "broken.json"), attempt], "broken.json: invalid JSON"),
        (["score", str(tmp_path / "bad_dsl.json"), attempt], 'checker "c" path: bad regex'),
        (["score", str(packaged["issue_tracker.zip"].package_path), str(tmp_path / "attempt.zip")], "attempt.zip"),
        (["score", str(tmp_path / "missing.json"), attempt], "missing.json: no such file"),
        (["validate", str(tmp_path / "broken.json")], "broken.json: invalid JSON"),
    ]
    for args, fragment in cases:
        result = runner.invoke(app, args)
        assert result.exit_code == 2, (args, result.stdout)
        assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: "), result.stderr
        assert fragment in result.stderr, (fragment, result.stderr)


def test_package_defaults_to_task_packages_and_refuses_unknown_profiles(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["package", str(EXAMPLES / "notes_jsonrpc.zip")])
    assert result.exit_code == 0, result.stderr
    assert (tmp_path / "task-packages" / "notes_jsonrpc.task-package.zip").is_file()
    bad = runner.invoke(app, ["package", str(EXAMPLES / "notes_jsonrpc.zip"), "--profile", "nope"])
    assert bad.exit_code == 2 and bad.stderr.startswith("error: --profile:") and bad.stderr.count("\n") == 1


def test_package_takes_the_model_path_when_a_key_is_given_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.fakes.llm_server import FakeLlmServer

    canary = "sk-CANARY-cli-analyzer-7f3e9a1b"
    script = {"models": {"m-analyzer": "analyzer"}, "roles": {"analyzer": [{"echo_draft": True}]}}
    monkeypatch.setenv("MY_ANALYZER_KEY", canary)
    monkeypatch.delenv("JUDGE_API_KEY", raising=False)
    with FakeLlmServer(script) as fake:
        args = ["package", str(EXAMPLES / "discord_reply.zip"), "--out", str(tmp_path / "out"),
                "--base-url", fake.base_url(), "--model", "m-analyzer", "--api-key-env", "MY_ANALYZER_KEY",
                "--max-iterations", "2", "--feedback", "keep the reply short"]  # fmt: skip
        result = runner.invoke(app, args)
        assert result.exit_code == 0, result.stdout + result.stderr
        assert result.stdout.splitlines()[0].startswith("analyzer: model m-analyzer at 127.0.0.1")
        assert fake.calls("analyzer") == 1
        prompt = fake.requests("analyzer")[0].prompt_text()
        assert "keep the reply short" in prompt
        sent = {k.lower(): v for k, v in fake.requests("analyzer")[0].headers.items()}
        assert sent["authorization"] == f"Bearer {canary}"
        offline = runner.invoke(app, [*args, "--offline", "--out", str(tmp_path / "out2")])
        assert offline.exit_code == 0, offline.stderr
        assert offline.stdout.splitlines()[0].startswith("analyzer: offline (--offline)")
        assert fake.calls("analyzer") == 1  # no new model call
    assert canary not in result.stdout + result.stderr + offline.stdout
    package = tmp_path / "out" / "discord_reply.task-package.zip"
    with zipfile.ZipFile(package) as archive:
        assert all(canary.encode() not in archive.read(name) for name in archive.namelist())
