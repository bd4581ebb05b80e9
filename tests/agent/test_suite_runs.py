"""One task run of an eval on the demo phone, with the fake model server: a blocker report ends
the run `blocked` (and is refused without what was checked), so an impossible task passes; the
step budget and the fuses end a run and the record says so; the suite's scripted person answers
the takeovers it knows (acting on the phone) and refuses the others."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import adbutils
import pytest
from pydantic import SecretStr

from device_flows.phone import AdbDirectory, U2Phone
from rlauto_core.agent.events import EventLog, RunEnded, TaskReported, ToolCalled
from rlauto_core.agent.run import AgentSettings
from rlauto_core.agent.suite import LoopParts, TaskRunRecord, load_suite, run_task
from rlauto_core.llm import RetryPolicy, ToolCallingClient
from rlauto_core.store.storage import FsspecStorage
from tests.agent.conftest import SERIAL
from tests.agent.scripts import call, turn
from tests.fakes.llm_server import FakeLlmServer

SUITE = load_suite()


@pytest.fixture
def parts(fake_llm: FakeLlmServer, adb_client: adbutils.AdbClient, storage: FsspecStorage) -> Iterator[LoopParts]:
    settings = AgentSettings(_env_file=None, base_url=fake_llm.base_url(), model="agent",  # type: ignore[call-arg]
                             api_key=SecretStr("sk-suite-test"))  # fmt: skip
    client = ToolCallingClient(settings.endpoint(), timeout_seconds=30, retry=RetryPolicy(max_attempts=2))
    with client:
        yield LoopParts(model=client, phone=U2Phone(SERIAL, adb_client), devices=AdbDirectory(adb_client),
                        storage=storage, sink=_Logs(storage), settings=settings)  # fmt: skip


class _Logs:
    def __init__(self, storage: FsspecStorage) -> None:
        self._storage = storage

    def emit(self, event: Any) -> None:
        EventLog(self._storage, event.run_id).emit(event)


def _run(task_id: str, parts: LoopParts, run_id: str) -> TaskRunRecord:
    return run_task(SUITE.resolved(SUITE.task(task_id)), eval_id="e-1", run=1, run_id=run_id, parts=parts)


def test_a_blocker_report_needs_what_was_checked_ends_the_run_blocked_and_passes_an_impossible_task(
    parts: LoopParts, fake_llm: FakeLlmServer, storage: FsspecStorage
) -> None:
    fake_llm.script(
        "agent",
        turn(call("app_start", package="com.android.settings")),
        turn(call("report_task", kind="blocked", summary="There is no NFC here.")),
        turn(
            call(
                "report_task",
                kind="blocked",
                summary="There is no NFC switch in Settings.",
                checked=["Settings lists Wi-Fi, Bluetooth, Airplane mode and Dark theme only"],
            )
        ),
    )
    record = _run("nfc-on", parts, "run-nfc")
    assert record.success and record.outcome == "blocked" and record.steps == 3, record.reason
    reports = [e for e in EventLog(storage, "run-nfc").read(0) if isinstance(e.event, TaskReported)]
    assert [(r.event.kind, r.event.accepted) for r in reports] == [("blocked", False), ("blocked", True)]
    assert "list what you checked" in str(reports[0].event.problems)
    ended = [e.event for e in EventLog(storage, "run-nfc").read(0) if isinstance(e.event, RunEnded)]
    assert ended[0].outcome == "blocked" and ended[0].answer == "There is no NFC switch in Settings."
    # the same blocker report after changing the phone: the report alone is never enough
    fake_llm.script(
        "agent",
        turn(call("app_start", package="com.android.settings")),
        turn(call("tap", description="Wi-Fi")),
        turn(call("report_task", kind="blocked", summary="No NFC.", checked=["the Settings list"])),
    )
    record = _run("nfc-on", parts, "run-nfc-2")
    assert not record.success and record.outcome == "blocked" and "changed: settings" in record.reason


def test_the_step_budget_and_the_fuses_end_a_run_and_the_record_says_which(
    parts: LoopParts, fake_llm: FakeLlmServer
) -> None:
    fake_llm.script("agent", turn(call("tap", text="Nowhere")))  # the same failing tap, over and over
    record = _run("wifi-on", parts, "run-budget")  # a budget of 15 tool calls
    assert (record.outcome, record.success, record.steps) == ("paused", False, 6)
    assert record.fuses[0] == "hint:same_action" and record.fuses[-1] == "pause:same_action", record.fuses
    tight = SUITE.resolved(SUITE.task("wifi-on")).model_copy(update={"budget": 3})
    record = run_task(tight, eval_id="e-1", run=2, run_id="run-tight", parts=parts)
    assert (record.outcome, record.steps, record.budget) == ("budget_exhausted", 3, 3)
    assert "`settings get global wifi_on` equals '1' (found 0)" in record.reason
    assert record.model_calls == 3 and record.wall_s >= record.agent_s > 0


def test_the_suites_person_signs_in_on_the_phone_and_refuses_a_takeover_it_has_no_answer_for(
    parts: LoopParts, fake_llm: FakeLlmServer, storage: FsspecStorage
) -> None:
    fake_llm.script(
        "agent",
        turn(call("app_start", package="com.example.notes")),
        turn(call("request_takeover", reason="2fa", message="Type the code")),
        turn(call("request_takeover", reason="login", message="Sign in to Notes, please")),
        turn(call("tap", text="New note")),
        turn(call("tap", resource_id="com.example.notes:id/body"), call("type_text", text="Call Bob")),
        turn(call("tap", text="Save")),
        turn(call("report_task", kind="completion", summary="Wrote it", checked=["the note"], evidence=["list"])),
    )
    record = _run("signed-out-note", parts, "run-signin")
    assert record.success and record.takeovers == 2, record.reason
    tools = [e.event for e in EventLog(storage, "run-signin").read(0) if isinstance(e.event, ToolCalled)]
    refused = [t for t in tools if t.tool == "request_takeover" and not t.ok]
    assert len(refused) == 1 and "the suite's person does not do 2fa (only: login)" in str(refused[0].error)
