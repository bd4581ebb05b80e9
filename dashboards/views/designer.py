"""Designer: describe an automation, watch the agent explore the phone, then confirm or discard
its draft. Only a confirmed draft becomes a step task, and `run-steps` runs it. Runs are started
through the `MemoryLauncher` the app is handed; the exploration is read from the run's event log."""

from __future__ import annotations

from typing import Any

import streamlit as st

from dashboards.memory_launcher import MemoryLauncher
from dashboards.views.common import short, show_json
from rlauto_core.agent.designer import DraftStore
from rlauto_core.agent.events import EventLog, MemoryRecalled, RunEnded, TaskReported, ToolCalled, layout
from rlauto_core.agent.run import RunStore
from rlauto_core.errors import RlautoError
from rlauto_core.redact import Redactor
from rlauto_core.store import Storage

WATCH = "designer_watch"
FLASH = "designer_flash"
PERSON = "memory_person"
SHOWN_EVENTS = 40


def _start(memory: MemoryLauncher, redactor: Redactor) -> None:
    with st.form("designer_form"):
        description = st.text_area("Describe the automation", key="designer_description", height=120)
        serial = st.text_input("Phone (serial, as adb devices lists it)", key="designer_serial")
        submitted = st.form_submit_button("Start designing", type="primary")
    if not submitted:
        return
    if not description.strip() or not serial.strip():
        st.error("Give a description and the phone's serial.")
        return
    try:
        run_id = memory.start_design(serial.strip(), description)
    except RlautoError as exc:
        st.error(redactor.markdown(str(exc)))
        return
    st.session_state[WATCH] = run_id  # before the watch field is drawn in this run: it shows the new run
    st.success(f"Designer run {redactor.markdown(run_id)} started: its exploration shows below.")


def _card(storage: Storage, redactor: Redactor, event: Any) -> None:
    if isinstance(event, ToolCalled):
        mark = "✓" if event.ok else "✗"
        args = redactor.text(short(str(event.args), 160))
        st.markdown(f"{mark} **{redactor.markdown(event.tool)}** `{redactor.markdown(args)}`")
        st.text(redactor.text(short(event.result, 400)))
        if event.thumbnail:
            try:
                st.image(storage.read_bytes(event.thumbnail), width=160)
            except OSError:
                st.caption("(screen not in storage)")
    elif isinstance(event, MemoryRecalled):
        st.info(
            redactor.markdown(event.message) + ": " + redactor.markdown(", ".join(h.title for h in event.hits)),
            icon=":material/psychology:",
        )
    elif isinstance(event, TaskReported):
        st.info(f"report ({event.kind}): {redactor.markdown(short(event.summary, 400))}")
    elif isinstance(event, RunEnded):
        st.success(f"ended {event.outcome}: {redactor.markdown(short(event.answer, 400))}")


def _watch(storage: Storage, redactor: Redactor) -> None:
    run_id = st.text_input("Designer run to watch", key=WATCH)
    if not run_id.strip():
        return
    try:
        layout.checked_id(run_id.strip())
    except RlautoError as exc:
        st.error(redactor.markdown(str(exc)))
        return
    st.button("Refresh", key="designer_refresh")
    state = RunStore(storage).load(run_id.strip())
    events = [logged.event for logged in EventLog(storage, run_id.strip()).read(0)]
    status = state.status if state is not None else "starting (no state yet)"
    st.caption(f"run {redactor.markdown(run_id.strip())}: {status} · {len(events)} events")
    for event in events[-SHOWN_EVENTS:]:
        _card(storage, redactor, event)


def _draft(storage: Storage, redactor: Redactor) -> None:
    drafts = DraftStore(storage)
    draft = drafts.latest()
    st.subheader("Latest draft")
    if draft is None:
        st.info("No draft waiting: a designer run that hands in a valid task leaves one here.")
        return
    st.markdown(
        f"**{redactor.markdown(draft.name)}** · {len(draft.steps)} steps · from run {redactor.markdown(draft.run_id)}"
    )
    st.text(redactor.text(draft.instruction))
    if draft.summary:
        st.text(redactor.text(draft.summary))
    for warning in draft.warnings:
        st.warning(redactor.markdown(warning))
    show_json(redactor, draft.steps, expanded=2)
    person = st.text_input("Your name (recorded with the confirmation)", key=PERSON)
    confirm_col, discard_col = st.columns(2)
    if confirm_col.button("Confirm as a step task", key="designer_confirm", type="primary"):
        try:
            task = drafts.confirm(person, run_id=draft.run_id)
        except RlautoError as exc:
            st.error(redactor.markdown(str(exc)))
            return
        st.session_state[FLASH] = f"Confirmed: task {redactor.markdown(task.id)} ({len(task.steps)} steps)"
        st.rerun()
    if discard_col.button("Discard draft", key="designer_discard"):
        drafts.discard()
        st.session_state[FLASH] = "Draft discarded"
        st.rerun()


def _tasks(storage: Storage, redactor: Redactor, memory: MemoryLauncher) -> None:
    tasks = DraftStore(storage).all_tasks()
    st.subheader("Confirmed step tasks")
    if not tasks:
        st.caption("None yet.")
        return
    by_id = {t.id: t for t in tasks}
    chosen = st.selectbox(
        "Task", list(by_id), format_func=lambda tid: f"{redactor.text(by_id[tid].name)} ({tid})", key="designer_task"
    )
    task = by_id[chosen]
    st.caption(f"confirmed by {redactor.markdown(task.confirmed_by)} at {task.confirmed_at:%Y-%m-%d %H:%M} UTC")
    show_json(redactor, task.steps, expanded=1)
    serial = st.text_input("Run it on the phone (serial)", key="designer_task_serial")
    if st.button("Run on the phone", key="designer_run_task"):
        if not serial.strip():
            st.error("Give the phone's serial.")
            return
        try:
            run_id = memory.run_task(task.name, task.steps, serial.strip())
        except RlautoError as exc:
            st.error(redactor.markdown(str(exc)))
            return
        st.success(f"run-steps started (flow run {redactor.markdown(run_id)})")


def render(storage: Storage, redactor: Redactor, memory: MemoryLauncher) -> None:
    st.header("Designer")
    st.caption("The agent explores the phone and hands in a step task; you confirm it before it ever runs.")
    flash = st.session_state.pop(FLASH, None)
    if flash:
        st.success(flash)
    _start(memory, redactor)
    _watch(storage, redactor)
    _draft(storage, redactor)
    _tasks(storage, redactor, memory)
