"""Agent: choose a phone (busy ones disabled), send an instruction, watch the run live (step
cards with thumbnails, reasoning, token usage, liveness), stop it, hand a takeover back with a
note, resume a paused run, list the conversations and every recent run whoever started it.

Runs are started, stopped and handed back through the `AgentLauncher` the app is handed;
what they did is read from storage (their event logs, states and conversations).
"""

from __future__ import annotations

import uuid
from typing import Literal

import streamlit as st
from pydantic import ValidationError

from dashboards.agent_launcher import AgentLauncher
from dashboards.repository import Repository
from dashboards.views import agent_run, agent_runs
from rlauto_core.agent.launch import AgentDevice
from rlauto_core.agent.run import AgentStateError, ConversationStore, ModelChoice, RunStore
from rlauto_core.errors import RlautoError
from rlauto_core.redact import Redactor
from rlauto_core.store import Storage, open_storage

DEVICE = "agent_device"
CONVERSATION = "agent_conversation"
CONVERSATIONS_SHOWN = 30


@st.cache_resource
def _storage(url: str) -> Storage:
    return open_storage(url)


def _devices(launcher: AgentLauncher, redactor: Redactor) -> list[AgentDevice]:
    try:
        return launcher.devices()
    except (RlautoError, Exception) as exc:  # the page's edge: a message, never a traceback
        st.error(f"Phones: {redactor.markdown(str(exc))}")
        return []


PHONES_REFRESH_S = 5.0


def _choose(serial: str) -> None:
    st.session_state[DEVICE] = serial


@st.fragment(run_every=PHONES_REFRESH_S)
def _phones(launcher: AgentLauncher, redactor: Redactor) -> None:
    """The phones (busy ones disabled) and whether another agent run is active, kept current."""
    st.markdown("**Phone**")
    st.button("Refresh phones", key="agent_refresh_phones")  # a rerun reads them again
    devices = _devices(launcher, redactor)
    busy = _agent_busy(launcher)
    if busy:
        st.info(redactor.markdown(busy))
    if not devices:
        st.caption("No phone found: plug one into the phone host (`adb devices`), or start a worker on pool `phones`.")
        return
    chosen = st.session_state.get(DEVICE)
    if chosen not in {d.serial for d in devices if d.usable}:
        chosen = None
    columns = st.columns(min(len(devices), 4))
    for index, device in enumerate(devices):
        label = device.serial + (f" ({device.model})" if device.model else "")
        reason = device.busy or (None if device.state == "device" else f"state: {device.state}")
        with columns[index % len(columns)]:
            st.button(redactor.markdown(label), key=f"agent_device_{device.serial}", disabled=not device.usable,
                      type="primary" if device.serial == chosen else "secondary", on_click=_choose,
                      args=(device.serial,), help=redactor.markdown(reason) if reason else "use this phone")  # fmt: skip
            if reason:
                st.caption(redactor.markdown(reason))


def _model_choice() -> ModelChoice | str | None:
    """The run's model if one is chosen; a string says what is wrong with the choice."""
    with st.expander("Model (optional: the deployment's AGENT_* settings otherwise)"):
        model = st.text_input("Model", key="agent_model", help="`scripted` plays the demo phone's tasks, no key")
        base_url = st.text_input("Base URL", key="agent_base_url")
        mode = st.selectbox("API mode", ["(default)", "chat", "responses"], key="agent_api_mode")
        key = st.text_input("Key: a Prefect Secret block's name", key="agent_key_secret",
                            help="the block holding this endpoint's key; empty: the worker's AGENT_API_KEY")  # fmt: skip
    try:
        choice = ModelChoice(model=model.strip() or None, base_url=base_url.strip() or None,
                             api_mode=None if mode == "(default)" else mode, key_secret=key.strip() or None)  # fmt: skip
    except ValidationError as exc:
        first = exc.errors()[0]
        return f"{first['loc'][0] if first['loc'] else 'model'}: {first['msg']}"
    return choice if choice.given else None


def _conversations(storage: Storage, redactor: Redactor) -> str:
    """The conversation the next instruction goes to (a new one unless one is chosen)."""
    store = ConversationStore(storage)
    if CONVERSATION not in st.session_state:  # a new session goes on with the watched run's conversation
        st.session_state[CONVERSATION] = _watched_conversation(storage) or f"c-{uuid.uuid4().hex[:8]}"
    current = st.session_state[CONVERSATION]
    st.markdown("**Conversations**")
    if st.button("New conversation", key="agent_new_conversation"):
        st.session_state[CONVERSATION] = current = f"c-{uuid.uuid4().hex[:8]}"
    for conversation_id in reversed(store.ids()[-CONVERSATIONS_SHOWN:]):
        kind: Literal["primary", "secondary"] = "primary" if conversation_id == current else "secondary"
        if st.button(redactor.markdown(conversation_id), key=f"agent_conv_{conversation_id}", type=kind):
            st.session_state[CONVERSATION] = current = conversation_id
    try:
        messages = store.load(current).messages
    except AgentStateError as exc:
        st.error(redactor.markdown(str(exc)))
        return str(current)
    with st.expander(f"Conversation {redactor.markdown(current)}: {len(messages)} messages", expanded=False):
        for number, message in enumerate(messages):
            head = redactor.markdown(message.role + (f" · {message.outcome}" if message.outcome else ""))
            if message.usage is not None:
                head += f" · :material/toll: {message.usage.total_tokens:,} tokens"
            st.caption(head)
            st.text(redactor.text(message.content)[:2000])
            if message.run_id and st.button("Watch this run", key=f"agent_watch_{number}_{message.run_id}"):
                agent_run.watch(message.run_id)
    return str(current)


def _watched_conversation(storage: Storage) -> str | None:
    run_id = agent_run.watched()
    if run_id is None:
        return None
    try:
        state = RunStore(storage).load(run_id)
    except (RlautoError, ValueError):
        return None
    return state.conversation_id if state is not None else None


def _send(launcher: AgentLauncher, redactor: Redactor, conversation_id: str) -> None:
    instruction = st.text_area("Instruction", key="agent_instruction", placeholder="What should the agent do?")
    model = _model_choice()
    if not st.button("Send", type="primary", key="agent_send"):
        return
    if isinstance(model, str):
        st.error(f"The model choice is not valid: {redactor.markdown(model)}")
        return
    serial = st.session_state.get(DEVICE)
    if not serial:
        st.error("Choose a phone first.")
        return
    if not instruction.strip():
        st.error("Say what the agent should do.")
        return
    busy = _agent_busy(launcher)
    if busy:  # the run would be refused: say so here
        st.error(redactor.markdown(busy))
        return
    try:
        launched = launcher.start(instruction.strip(), str(serial), conversation_id, model)
    except (RlautoError, Exception) as exc:
        st.error(f"The run did not start: {redactor.markdown(str(exc))}")
        return
    agent_run.watch(launched.run_id)
    if launched.ui_url:
        st.caption(f"In the Prefect UI: {launched.ui_url}")


def _agent_busy(launcher: AgentLauncher) -> str | None:
    try:
        return launcher.agent_busy()
    except (RlautoError, Exception):
        return None


def render(repository: Repository, launcher: AgentLauncher, redactor: Redactor) -> None:
    st.header("Agent")
    storage = _storage(repository.root_uri)
    left, right = st.columns([1, 2])
    with left:
        _phones(launcher, redactor)
        conversation_id = _conversations(storage, redactor)
        _send(launcher, redactor, conversation_id)
        agent_runs.recent_runs(storage, redactor)
    with right:
        agent_run.live(storage, launcher, redactor)
