"""The agent run being watched, live: re-read every second from its event log (from the offset
this page has reached, so a reload replays all of it and nothing twice), with its Prefect
state, liveness (a heartbeat in the last 30 s, nothing else), token usage, the takeover form,
Stop and Resume."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

import streamlit as st

from dashboards.agent_launcher import AgentLauncher
from dashboards.views.agent_cards import ReadImage, render_entry
from rlauto_core.agent.events import RESUMABLE, EventLog, RunView
from rlauto_core.agent.launch import LaunchStatus
from rlauto_core.errors import RlautoError
from rlauto_core.redact import Redactor
from rlauto_core.store import Storage

WATCHED = "agent_run"
VIEWS = "agent_views"
THUMBS = "agent_thumbs"
REFRESH_S = 1.0
IMAGES_SHOWN = 60  # older step cards keep their text; their screens stay in the run's folder


def watch(run_id: str) -> None:
    """Watch `run_id` from now on; the URL keeps it, so a reload watches it again."""
    st.session_state[WATCHED] = run_id
    st.query_params["agent_run"] = run_id


def watched() -> str | None:
    run_id = st.session_state.get(WATCHED) or st.query_params.get("agent_run")
    return str(run_id) if run_id else None


def _view(storage: Storage, run_id: str) -> RunView:
    views: dict[str, RunView] = st.session_state.setdefault(VIEWS, {})
    view = views.setdefault(run_id, RunView(run_id=run_id))
    view.feed(EventLog(storage, run_id).read(view.next_offset))
    return view


def _reader(storage: Storage) -> ReadImage:
    cache: dict[str, bytes | None] = st.session_state.setdefault(THUMBS, {})

    def read(path: str) -> bytes | None:
        if path not in cache:
            try:
                cache[path] = storage.read_bytes(path)
            except (OSError, ValueError):
                cache[path] = None
        return cache[path]

    return read


def _status(launcher: AgentLauncher, run_id: str) -> LaunchStatus | None:
    try:
        return launcher.status(run_id)
    except (RlautoError, Exception):  # the page's edge: Prefect away is a caption, not a traceback
        return None


def _act(action: str, call: Callable[[], object], redactor: Redactor) -> None:
    try:
        call()
    except (RlautoError, Exception) as exc:
        st.error(f"{action}: {redactor.markdown(str(exc))}")


def _liveness(view: RunView, status: LaunchStatus | None, redactor: Redactor) -> None:
    now = datetime.now(UTC)
    prefect = f"Prefect: {redactor.markdown(status.state)}" if status else "Prefect: (unreachable)"
    if view.ended is not None:
        st.caption(f"○ ended {view.ended.outcome} · {prefect}")
    elif view.alive(now):
        assert view.last_heartbeat is not None
        ago = (now - view.last_heartbeat).total_seconds()
        waiting = "for a person" if view.takeover is not None else f"on the {view.waiting_on}"
        st.caption(f"● alive · heartbeat {ago:.0f} s ago, waiting {waiting} · {prefect}")
    elif view.last_heartbeat is not None:
        st.caption(f"○ no heartbeat for {(now - view.last_heartbeat).total_seconds():.0f} s · {prefect}")
    else:
        st.caption(f"○ not started yet · {prefect}")


def _usage(view: RunView) -> None:
    usage = view.usage
    note = "" if view.usage_reported else " (the endpoint reports no token counts)"
    st.markdown(
        f":material/toll: **{usage.total_tokens:,} tokens** (↑{usage.prompt_tokens:,} ↓{usage.completion_tokens:,} · "
        f"{usage.calls} model calls) · {view.steps} steps{note}"
    )


def _controls(view: RunView, launcher: AgentLauncher, redactor: Redactor) -> None:
    run_id = view.run_id
    if view.takeover is not None:
        with st.container(border=True, key="agent-takeover"):
            st.warning(f"A person is needed ({redactor.markdown(view.takeover.reason)}): "
                       f"{redactor.markdown(view.takeover.message)}")  # fmt: skip
            st.caption("Do it on the phone, then hand it back: the run goes on with a fresh screenshot.")
            note = st.text_input("Note for the agent (optional)", key=f"agent_note_{run_id}")
            if st.button("Hand back to the agent", type="primary", key=f"agent_hand_back_{run_id}"):
                _act("Hand back", lambda: launcher.hand_back(run_id, note or None), redactor)
    if view.ended is None:
        if st.button("Stop", key=f"agent_stop_{run_id}"):
            _act("Stop", lambda: launcher.stop(run_id), redactor)
    elif view.ended.outcome in RESUMABLE:
        note = st.text_input("Note for the agent (optional)", key=f"agent_resume_note_{run_id}")
        if st.button("Resume", type="primary", key=f"agent_resume_{run_id}"):
            _act("Resume", lambda: launcher.resume(run_id, note or None), redactor)


@st.fragment(run_every=REFRESH_S)
def live(storage: Storage, launcher: AgentLauncher, redactor: Redactor) -> None:
    run_id = watched()
    if run_id is None:
        st.caption("Send an instruction, or open a recent run or a run of a conversation, to watch it here.")
        return
    try:
        view = _view(storage, run_id)
    except RlautoError as exc:
        st.error(redactor.markdown(str(exc)))
        return
    status = _status(launcher, run_id)
    st.subheader(f"Run {redactor.markdown(run_id)}")
    if view.started is not None:
        st.text(redactor.text(view.started.instruction))
    _liveness(view, status, redactor)
    _usage(view)
    if status is not None and status.final and view.started is None:
        st.error(f"The run did not start: {redactor.markdown(status.message or status.state)}")
    _controls(view, launcher, redactor)
    read = _reader(storage)
    cards = [i for i, item in enumerate(view.timeline) if item.event.type == "tool_called"]
    first_image = cards[-IMAGES_SHOWN] if len(cards) > IMAGES_SHOWN else 0
    for index, item in enumerate(view.timeline):
        render_entry(item, redactor, read if index >= first_image else _no_image)


def _no_image(path: str) -> bytes | None:
    return None
