"""One item's run-again buttons: retry a failed (or stopped) item as it was, or regenerate it
with the reviewer's comment as the analyzer's feedback (a new item of the job that continues
from this one's iteration memory). Both go to the launcher and return at once."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from dashboards.launcher import Launcher
from rlauto_core.errors import RlautoError
from rlauto_core.pipeline import LaunchedRun
from rlauto_core.redact import Redactor
from rlauto_core.store import IndexedItem

RETRYABLE = ("failed", "stopped")
SHOWN = "item_actions_item"
STARTED = "item_actions_started"  # {"job/item": {"what", "run"...}}: shown after the rerun


def render(item: IndexedItem, launcher: Launcher, redactor: Redactor) -> None:
    st.subheader("Run again")
    key = f"{item.job_id}/{item.item_id}"
    if st.session_state.get(SHOWN) != key:  # another item opened: its own review's comment, not the last one's
        st.session_state[SHOWN] = key
        st.session_state.pop("item_regen_comment", None)
    cols = st.columns(2)
    with cols[0]:
        if item.status in RETRYABLE:
            st.caption(
                "The same recording and options, this item written afresh: for a failure an outage caused "
                "(answers the models already gave are reused); to change the result, regenerate."
            )
            if st.button("Retry this item", key="item_retry"):
                _start(key, "retry", redactor, lambda: launcher.retry_item(item.job_id, item.item_id))
        else:
            st.caption(f"Retry is for failed or stopped items; this one is {redactor.markdown(item.status)}.")
    with cols[1]:
        comment = st.text_area(
            "Feedback to regenerate with", value=redactor.text(item.review_comment or ""), key="item_regen_comment",
            max_chars=5000, help="Added to the run's feedback; the new run starts from this item's iteration memory.",
        )  # fmt: skip
        if st.button("Regenerate with this comment", key="item_regenerate", disabled=not comment.strip()):
            _start(key, "regenerate", redactor,
                   lambda: launcher.regenerate_item(item.job_id, item.item_id, comment))  # fmt: skip
    started = st.session_state.get(STARTED, {}).get(key)
    if started:
        what = "Retry" if started["what"] == "retry" else "Regenerate"
        target = started.get("item_id") or item.item_id
        st.success(
            f"{what} started ({started['via']}): item {redactor.markdown(target)} of job "
            f"{redactor.markdown(started['job_id'])}; it shows here when it finishes."
        )
        if started.get("ui_url"):
            st.link_button("Follow it in the Prefect UI", started["ui_url"])


def _start(key: str, what: str, redactor: Redactor, start: Callable[[], LaunchedRun]) -> None:
    try:
        run = start()
    except (RlautoError, Exception) as exc:  # the UI's edge: a message, never a traceback
        st.error(f"The {what} did not start: {redactor.markdown(str(exc))}")
        return
    st.session_state.setdefault(STARTED, {})[key] = {"what": what, **run.model_dump()}
