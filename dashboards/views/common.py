"""Small display helpers shared by the pages: everything shown passes through the redactor."""

from __future__ import annotations

import json
from typing import Any

import streamlit as st

from rlauto_core.redact import Redactor

OPEN_JOB = "open_job"
OPEN_ITEM = "open_item"
PAGE = "page"
PAGES = ("Overview", "Items", "Item", "Upload", "Polish", "Agent", "Experience", "Actions", "Designer")


def open_item(job_id: str, item_id: str) -> None:
    """Widget callback: show one item's page on the next run."""
    st.session_state[OPEN_JOB] = job_id
    st.session_state[OPEN_ITEM] = item_id
    st.session_state[PAGE] = "Item"


def show_text(redactor: Redactor, text: str | None, *, empty: str = "(none)") -> None:
    # st.text, not markdown: recorded text may hold markdown links or images we must not render
    st.text(redactor.text(text) if text else empty)


def show_json(redactor: Redactor, value: Any, *, expanded: bool | int = 1) -> None:
    st.json(redactor.value(value), expanded=expanded)


def pretty_json(redactor: Redactor, value: Any) -> str:
    return json.dumps(redactor.value(value), ensure_ascii=False, indent=2, sort_keys=True)


def short(text: str | None, length: int = 80) -> str:
    flat = " ".join((text or "").split())
    return flat if len(flat) <= length else flat[: length - 1] + "…"
