"""Small display helpers shared by the pages: everything shown passes through the redactor."""

from __future__ import annotations

import json
from typing import Any

import streamlit as st

from rlauto_core.redact import Redactor


def opened_item() -> tuple[str, str] | None:
    """The item the URL names (`?job=...&item=...`): a row selection and a shared link alike."""
    job, item = st.query_params.get("job"), st.query_params.get("item")
    return (job, item) if job and item else None


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
