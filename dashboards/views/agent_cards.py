"""One entry of an agent run's timeline on the page: a step card (tool, arguments, result,
thumbnail), a screen the loop took, reasoning, the model's text, a policy notice, a report,
a takeover, the start and the end. Model-written text is shown as text, never as markdown;
every value passes the redactor."""

from __future__ import annotations

import json
from collections.abc import Callable

import streamlit as st

from rlauto_core.agent.events import (
    AssistantText,
    LoggedEvent,
    PolicyApplied,
    Reasoning,
    RunEnded,
    RunStarted,
    ScreenTaken,
    TakeoverEnded,
    TakeoverRequested,
    TaskReported,
    ToolCalled,
)
from rlauto_core.redact import Redactor

ReadImage = Callable[[str], bytes | None]
THUMB_WIDTH = 160


def _thumbnail(read: ReadImage, path: str | None, caption: str) -> None:
    data = read(path) if path else None
    if data is not None:
        st.image(data, width=THUMB_WIDTH, caption=caption)


def _tool(event: ToolCalled, redactor: Redactor, read: ReadImage, key: str) -> None:
    with st.container(border=True, key=key):
        mark = "ok" if event.ok else "failed"
        last_resort = " · by coordinates (last resort)" if event.coordinates else ""
        st.markdown(
            f"**Step {event.step} · {redactor.markdown(event.tool)}** · {mark}{last_resort} · {event.duration_s:.2f} s"
        )
        columns = st.columns([3, 1]) if event.thumbnail else [st.container()]
        with columns[0]:
            if event.args:
                st.code(json.dumps(redactor.value(event.args), ensure_ascii=False, sort_keys=True), language="json")
            st.text(redactor.text(event.error or event.result)[:600])
        if event.thumbnail:
            with columns[1]:
                _thumbnail(read, event.thumbnail, f"screen at step {event.step}")


def render_entry(item: LoggedEvent, redactor: Redactor, read: ReadImage) -> None:
    event, key = item.event, f"agent-entry-{item.seq}"
    if isinstance(event, ToolCalled):
        _tool(event, redactor, read, f"agent-card-{item.seq}")
    elif isinstance(event, ScreenTaken):
        with st.container(key=key):
            _thumbnail(read, event.thumbnail, f"the screen {redactor.text(event.caption)}")
    elif isinstance(event, Reasoning):
        with st.expander(f"Reasoning ({len(event.text)} characters)"), st.container(key=key):
            st.text(redactor.text(event.text))
    elif isinstance(event, AssistantText):
        with st.container(key=key):
            st.text(redactor.text(event.text))
    elif isinstance(event, PolicyApplied):
        with st.container(key=key):
            st.warning(
                f"Run policy: {event.kind} ({event.fuse}, {event.streak} in a row): {redactor.markdown(event.message)[:400]}"
            )
    elif isinstance(event, TaskReported):
        with st.container(border=True, key=key):
            verdict = "" if event.kind != "completion" else (" · accepted" if event.accepted else " · refused")
            st.markdown(f"**Report: {redactor.markdown(event.kind)}**{verdict}")
            st.text(redactor.text(event.summary))
            for problem in event.problems:
                st.text(f"problem: {redactor.text(problem)}")
            if event.deliverables:
                st.text("deliverables: " + ", ".join(redactor.text(d) for d in event.deliverables))
    elif isinstance(event, TakeoverRequested):
        with st.container(key=key):
            st.info(
                f"A person was asked to take over ({redactor.markdown(event.reason)}): {redactor.markdown(event.message)}"
            )
    elif isinstance(event, TakeoverEnded):
        with st.container(key=key):
            st.caption("Handed back" + (f": {redactor.markdown(event.note)}" if event.note else ""))
    elif isinstance(event, RunStarted):
        with st.container(key=key):
            what = "Resumed" if event.resumed else "Started"
            note = f" with the note: {redactor.markdown(event.note)}" if event.note else ""
            st.caption(f"{what} on {redactor.markdown(event.serial)} ({redactor.markdown(event.model)}){note}")
    elif isinstance(event, RunEnded):
        with st.container(border=True, key=key):
            st.markdown(f"**Ended: {event.outcome}**" + (f" ({event.fuse})" if event.fuse else ""))
            st.text(redactor.text(event.answer) or "(no answer)")
            if event.deliverables:
                st.text("deliverables: " + ", ".join(redactor.text(d) for d in event.deliverables))
