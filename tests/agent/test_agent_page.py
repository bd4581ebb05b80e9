"""The Agent page through streamlit.testing.v1.AppTest over a real run: a loop on the demo phone
waits for a person while the page shows its step cards and the takeover form; the page's
hand-back reaches the run with its note; busy phones are disabled; Send goes to the launcher."""

from __future__ import annotations

from typing import Any

import pytest
from streamlit import config as streamlit_config
from streamlit.testing.v1 import AppTest

from dashboards.repository import Repository
from device_flows.demo import NotesApp
from rlauto_core.agent.events import EventLog, RunEnded, RunStarted
from rlauto_core.agent.launch import AgentDevice
from rlauto_core.agent.run import RunStore
from rlauto_core.store.storage import FsspecStorage
from tests.agent.conftest import SERIAL, MakeLoop
from tests.agent.prefect_support import in_thread, wait_for
from tests.agent.scripts import WRITE_NOTE, call, texts_of, turn
from tests.dashboards.apptest_support import go, rendered_bytes
from tests.fakes.agent_launcher import FakeAgentLauncher
from tests.fakes.llm_server import FakeLlmServer

CANARY = "sk-canary-page-41c9e2d7aa"


@pytest.fixture(autouse=True)
def _loopback() -> Any:
    saved = streamlit_config.get_option("server.address")
    streamlit_config.set_option("server.address", "127.0.0.1")
    yield
    streamlit_config.set_option("server.address", saved)


@pytest.fixture
def notes_app() -> NotesApp:
    return NotesApp(needs_login=True)


def _page_script(repository: "Repository", launcher: "Any") -> None:  # noqa: UP037 (the body runs alone in AppTest)
    from dashboards.review import main

    main(repository, None, None, launcher)


def _page(storage: FsspecStorage, launcher: FakeAgentLauncher, run_id: str | None = None) -> AppTest:
    at = AppTest.from_function(_page_script, args=(Repository(storage.url, refresh_seconds=0), launcher),
                               default_timeout=60)  # fmt: skip
    if run_id:
        at.session_state["agent_run"] = run_id
    return go(at, "agent")


def _markdown(at: AppTest) -> str:
    return "\n".join(str(e.value) for kind in ("markdown", "text", "caption", "warning", "info", "error", "code")
                     for e in at.get(kind))  # fmt: skip


def test_the_page_shows_a_waiting_run_and_its_hand_back_reaches_the_run_with_the_note(
    make_loop: MakeLoop,
    fake_llm: FakeLlmServer,
    notes_app: NotesApp,
    storage: FsspecStorage,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AGENT_API_KEY", CANARY)  # the redactor knows the environment's secrets
    launcher = FakeAgentLauncher(
        phones=[AgentDevice(serial=SERIAL, model="Pixel"), AgentDevice(serial="fake-2", busy="busy with run x (1)")]
    )
    fake_llm.script(
        "agent",
        turn(call("app_start", package="com.example.notes"), call("screenshot")),
        turn(call("request_takeover", reason="captcha", message=f"Solve the puzzle (not {CANARY})")),
        *WRITE_NOTE[1:],
    )
    harness = make_loop(takeover=launcher.person)
    runner, out = in_thread(lambda: harness.loop.start("run-page", "Write the note 'Call Alice'", conversation_id="cp"))
    wait_for(
        lambda: (s := RunStore(storage).load("run-page")) is not None and s.status == "waiting_for_person", out=out
    )

    at = _page(storage, launcher, "run-page")
    assert not at.exception
    shown = _markdown(at)
    assert "A person is needed (captcha): Solve the puzzle" in shown and CANARY not in shown
    assert "**Step 1 · app_start** · ok" in shown and "**Step 2 · screenshot** · ok" in shown
    assert len(at.get("image")) >= 2  # the start screen and the screenshot's thumbnail
    buttons = {b.key: b for b in at.button}
    assert buttons["agent_device_fake-2"].disabled and not buttons[f"agent_device_{SERIAL}"].disabled
    assert CANARY.encode() not in rendered_bytes(at)

    at.button(key="agent_stop_run-page").click().run()
    assert ("stop", "run-page") in launcher.calls
    notes_app.sign_in()
    at.text_input(key="agent_note_run-page").input("solved it").run()
    at.button(key="agent_hand_back_run-page").click().run()
    assert ("hand_back", "run-page", "solved it") in launcher.calls
    runner.join(60)
    assert out["value"].outcome == "completed" and notes_app.notes[-1] == "Call Alice"
    assert "solved it" in texts_of(fake_llm.requests("agent")[2].body)
    launcher.state = "Completed"
    at.run()
    assert "**Ended: completed**" in _markdown(at) and not at.exception
    assert "agent_stop_run-page" not in {b.key for b in at.button}  # nothing left to stop


def test_send_needs_a_free_phone_and_goes_to_the_launcher_in_the_chosen_conversation(storage: FsspecStorage) -> None:
    launcher = FakeAgentLauncher(phones=[AgentDevice(serial=SERIAL)])
    at = _page(storage, launcher)
    at.text_area(key="agent_instruction").input("Open the notes").run()
    at.button(key="agent_send").click().run()
    assert "Choose a phone first." in _markdown(at) and launcher.calls == []
    at.button(key=f"agent_device_{SERIAL}").click().run()
    at.button(key="agent_send").click().run()
    conversation = at.session_state["agent_conversation"]
    assert launcher.calls == [("start", "Open the notes", SERIAL, conversation)]
    assert at.session_state["agent_run"] == "run-started"
    launcher.busy = "another agent run is active: other (2)"
    at.button(key="agent_send").click().run()
    assert "another agent run is active: other (2)" in _markdown(at) and len(launcher.calls) == 1


def test_a_paused_run_offers_resume_with_a_note(storage: FsspecStorage) -> None:
    log = EventLog(storage, "run-fused")
    log.append(RunStarted(run_id="run-fused", instruction="Tap Nope", serial=SERIAL, model="m"))
    log.append(RunEnded(run_id="run-fused", outcome="paused", fuse="same_action", answer="the same action 6 times"))
    launcher = FakeAgentLauncher(state="AgentPaused")
    at = _page(storage, launcher, "run-fused")
    assert "**Ended: paused** (same_action)" in _markdown(at) and "ended paused" in _markdown(at)
    at.text_input(key="agent_resume_note_run-fused").input("the popup is closed").run()
    at.button(key="agent_resume_run-fused").click().run()
    assert launcher.calls == [("resume", "run-fused", "the popup is closed")]


def test_recent_runs_list_every_run_newest_first_whoever_started_it_and_open_it_here(
    make_loop: MakeLoop, fake_llm: FakeLlmServer, notes_app: NotesApp, storage: FsspecStorage
) -> None:
    notes_app.sign_in()
    fake_llm.script("agent", *WRITE_NOTE)
    assert make_loop().loop.start("run-cli", "Write the note 'Call Alice'", origin="cli").outcome == "completed"
    fake_llm.script("agent", turn(text="Hello."))
    assert make_loop().loop.start("run-eval", "Say hello", origin="eval").outcome == "chat_ended"
    at = _page(storage, FakeAgentLauncher(phones=[AgentDevice(serial=SERIAL)]))
    assert not at.exception
    rows = [b for b in at.button if b.key.startswith("agent_open_")]
    assert [b.key for b in rows] == ["agent_open_run-eval", "agent_open_run-cli"]  # the newest first
    assert "**chat ended**" in rows[0].label and "· eval ·" in rows[0].label
    assert "**completed**" in rows[1].label and "· cli ·" in rows[1].label and "· 8 steps" in rows[1].label
    assert "Say hello" in _markdown(at) and "🪙" not in _markdown(at)
    at.button(key="agent_open_run-cli").click().run()
    assert at.session_state["agent_run"] == "run-cli" and at.query_params["agent_run"] in ("run-cli", ["run-cli"])
    assert "**Step 1 · app_start** · ok" in _markdown(at) and ":material/toll:" in _markdown(at)
    assert at.button(key="agent_open_run-cli").disabled  # the watched run is marked, not offered again
