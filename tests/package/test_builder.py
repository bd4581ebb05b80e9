"""The task.json a package writes: every key of formats.md section 2, names as recorded, no secrets."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

from rlauto_core.analysis.offline import analyze_offline
from rlauto_core.config.options import RunOptions
from rlauto_core.evidence.build import build_evidence
from rlauto_core.importers import import_bytes
from rlauto_core.package.builder import build_package
from rlauto_core.package.io import package_to_json
from rlauto_core.rules import run_rules
from tests.package.conftest import UNINSTRUCTED, Packaged, package_offline
from tests.recording_builders import http, task_json, tool, zip_bytes

CANARY = "CANARY-7f3e"
SECRET_QUERY = f"https://api.example.com/api/v1/boards/b_12/cards?access_token={CANARY}-q&api_key={CANARY}-k&view=full"


def package_of(data: bytes, name: str = "rec.zip") -> dict[str, Any]:
    recording = import_bytes(data, name)
    evidence = build_evidence(recording)
    flags = run_rules(recording, evidence)
    package = build_package(recording, evidence, analyze_offline(recording, evidence, flags), flags=flags)
    return package_to_json(package)


def test_task_json_has_every_key_in_the_right_case(exported: dict[str, Path]) -> None:
    for name, path in exported.items():
        with zipfile.ZipFile(path) as archive:
            entry = next(n for n in archive.namelist() if n.endswith("task.json"))
            data = json.loads(archive.read(entry))
        assert {"metadata", "task", "rule_profile", "rubric_checkers", "dbdiff_criteria", "pass_policy",
                "golden_trajectory", "network", "validation"} <= set(data)  # fmt: skip
        assert {"generator", "generatedAt", "sourceSha256"} <= set(data["metadata"])
        assert data["metadata"]["generator"]["name"] == "rlauto"
        assert {"instruction", "networkRequests", "subtasks", "rubrics"} <= set(data["task"])
        mode = data["network"]["mode"]
        for subtask in data["task"]["subtasks"]:
            assert {"id", "title", "description", "groupMode", "apiCalls"} <= set(subtask)
            assert subtask["groupMode"] == mode
            for call in subtask["apiCalls"]:
                assert set(call) == {"id", "name", "type", "input", "output", "metadata"}
                if mode == "api":
                    method, path = call["name"].split(" ", 1)
                    assert call["type"] == "http" and method == call["input"]["method"] and path.startswith("/")
                else:
                    assert call["type"] == "mcp"
        for rubric in data["task"]["rubrics"]:
            assert set(rubric) == {"id", "title", "description", "max_score", "checker_key"}
            assert rubric["checker_key"] in data["rubric_checkers"]
        assert data["task"]["networkRequests"] == [s["call_id"] for s in data["golden_trajectory"]]
        assert data["validation"]["self_check"]["golden_full_marks"] is True, name
        uninstructed = name == UNINSTRUCTED
        assert data["task"]["instructionSource"] == ("offline" if uninstructed else "recorded")
        assert data["validation"]["verdict"] == ("NEEDS_REVISION" if uninstructed else "PASS")
        assert data["validation"]["iterations_used"] == 1
        assert data["pass_policy"]["judge"]["rule"] == "total >= 10 and no zero"


def test_mcp_tool_names_are_kept_exactly_and_noise_strays_failures_stay_out(
    packaged: dict[str, Packaged],
) -> None:
    discord = packaged["discord_reply.zip"].package
    assert discord is not None
    names = [c.name for s in discord.task.subtasks for c in s.api_calls]
    assert "discord_send_message" in names and "discord_mark_channel_read" in names
    golden = [s.call_id for s in discord.golden_trajectory]
    filtered = {f.call_id: f.reason for f in discord.network.filtered}
    assert "c6" not in golden and filtered["c6"].startswith("stray")  # list_messages on another channel
    assert "c10" not in golden  # unread check before marking read
    assert not {"c1", "c2", "c7"} & set(golden)  # current user / presence / heartbeat noise
    notes = packaged["notes_jsonrpc.zip"].package
    shop = packaged["shop_checkout.zip"].package
    assert notes is not None and shop is not None
    assert "4" not in [s.call_id for s in notes.golden_trajectory]  # the failed add_tag, retried as 5
    assert "r9" not in [s.call_id for s in shop.golden_trajectory] and "r11" in shop.task.network_requests


def test_unknown_keys_of_the_recorded_task_json_are_kept() -> None:
    task = task_json("In board b_12, add the card 'Pay invoice 42' to To do")
    task["metadata"]["browser"] = {"name": "Chrome"}
    task["task"]["difficulty"] = "easy"
    task["annotatorNotes"] = "first try"
    data = zip_bytes({"task.json": task, "network.json": {"version": 1, "requests": [
        http("r1", "POST", "https://api.example.com/api/boards/b_12/cards", 201,
             {"title": "Pay invoice 42", "columnId": "col_todo"}, {"id": "card_9"}),
    ]}})  # fmt: skip
    out = package_of(data)
    assert out["metadata"]["browser"] == {"name": "Chrome"}
    assert out["task"]["difficulty"] == "easy"
    assert out["annotatorNotes"] == "first try"


def test_planted_secrets_never_reach_task_json() -> None:
    headers = {"authorization": f"Bearer {CANARY}-bearer", "cookie": f"sid={CANARY}-cookie; theme=dark",
               "x-api-key": f"{CANARY}-apikey"}  # fmt: skip
    write = http("r2", "POST", SECRET_QUERY, 201, {"title": "Pay invoice 42", "password": f"{CANARY}-body"},
                 {"id": "card_9", "token": f"{CANARY}-resp"}, headers=headers)  # fmt: skip
    write["responseHeaders"]["set-cookie"] = f"sid={CANARY}-setcookie; HttpOnly"
    read = http("r1", "GET", "https://api.example.com/api/v1/boards/b_12?session_token=" + CANARY, 200,
                None, {"id": "b_12"}, headers=headers)  # fmt: skip
    task = task_json("Add the card 'Pay invoice 42' to board b_12")
    task["metadata"]["site"] = f"https://app.example.com/?token={CANARY}-site"
    data = zip_bytes({"task.json": task, "network.json": {"version": 1, "requests": [read, write]}})
    text = json.dumps(package_of(data))
    assert CANARY not in text
    assert "[REDACTED]" in text and "Pay invoice 42" in text


def test_mcp_secrets_in_arguments_are_redacted_too() -> None:
    calls = [tool("c1", "crm_create_contact", {"name": "Ada", "apiKey": f"{CANARY}-arg"},
                  {"content": [{"type": "text", "text": '{"id": "ct_17"}'}], "structuredContent": {"id": "ct_17"}})]  # fmt: skip
    data = zip_bytes(
        {"task.json": task_json("Create the contact Ada"), "mcp_calls.json": {"version": 1, "calls": calls}}
    )
    text = json.dumps(package_of(data))
    assert CANARY not in text and "crm_create_contact" in text


def test_a_bare_har_gets_a_written_instruction_but_never_passes_offline(tmp_path: Path) -> None:
    from tests.conftest import CAPTURES

    outcome = package_offline(CAPTURES / "project_board.har", RunOptions(), tmp_path)
    assert outcome.package is not None and outcome.judge is not None
    instruction = outcome.package.task.instruction
    assert "b_12" in instruction and "Rotate the staging TLS certificate" in instruction
    assert "POST /" not in instruction  # the goal, not the endpoints
    # the checkers are fine; the instruction is a guess from the calls, so the item waits for a person
    assert outcome.package.task.instruction_source == "offline"
    assert outcome.package.validation.self_check is not None and outcome.package.validation.self_check.problems == []
    assert (
        outcome.outcome.status == "failed" and outcome.outcome.verdict == "NEEDS_REVISION" and not outcome.package_path
    )
    assert outcome.judge.rationale.startswith("no instruction recorded: add one to task.json or run with a model")
    assert list(tmp_path.iterdir()) == []
