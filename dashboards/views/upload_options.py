"""The upload form's run options: what `rlauto package` offers and the seed's settings panel
(feedback, model, base URL, API mode, sampling, thinking, the pass policy, `optimizeTask`,
iterations). Blank fields mean "the deployment's default". A key is never typed here: a field
names the Prefect Secret block that holds it, read where the items run (a key typed into a web
form would travel as a flow-run parameter)."""

from __future__ import annotations

from typing import Any

import streamlit as st

from rlauto_core.config import MAX_ITERATIONS

DEFAULT = "default"
TRI_STATE: dict[str, bool | None] = {DEFAULT: None, "on": True, "off": False}


def _tri(label: str, key: str, help_text: str) -> bool | None:
    return TRI_STATE[st.selectbox(label, list(TRI_STATE), key=key, help=help_text)]


def option_fields() -> dict[str, Any]:
    """Draw the fields; returns RunOptions keyword arguments (the caller adds profile and
    concurrency). Unset numbers and choices are left out, so the defaults apply."""
    values: dict[str, Any] = {}
    cols = st.columns(3)
    values["ignore_task_complexity_for_full_marks"] = cols[0].checkbox(
        "Ignore task complexity (with strict full marks)", key="upload_ignore_complexity",
        help="Strict full marks, but TASK COMPLEXITY may be 1/2.",
    )  # fmt: skip
    values["optimize_task"] = cols[1].checkbox(
        "Polish the instruction (optimizeTask)", value=False, key="upload_optimize",
        help="The package also gets the instruction polished in Chinese and English (one more model call).",
    )  # fmt: skip
    values["offline"] = cols[2].checkbox("Offline analyzer", key="upload_offline", help="No model, even if one is set.")
    values["feedback"] = st.text_area(
        "Feedback for the analyzer", key="upload_feedback", max_chars=5000,
        help="Guidance the analyzer model reads in every iteration.",
    ).strip()  # fmt: skip
    with st.expander("Model and sampling"):
        cols = st.columns(3)
        values["model"] = cols[0].text_input("Model", key="upload_model", placeholder="DEFAULT_MODEL").strip() or None
        values["base_url"] = cols[1].text_input("Base URL", key="upload_base_url", placeholder="DEFAULT_BASE_URL")
        mode = cols[2].selectbox("API mode", [DEFAULT, "chat", "responses"], key="upload_api_mode")
        values["api_mode"] = None if mode == DEFAULT else mode
        values["api_key_secret"] = st.text_input(
            "API key: Prefect Secret block", key="upload_api_key_secret", placeholder="DEFAULT_API_KEY",
            help="The name of a Secret block holding the key for this base URL (prefect block create secret).",
        ).strip() or None  # fmt: skip
        row = st.columns(4)
        values["temperature"] = row[0].number_input(
            "Temperature", min_value=0.0, max_value=2.0, value=None, step=0.1, key="upload_temperature"
        )
        values["top_p"] = row[1].number_input(
            "Top p", min_value=0.01, max_value=1.0, value=None, step=0.05, key="upload_top_p"
        )
        values["max_tokens"] = row[2].number_input(
            "Max tokens", min_value=1, max_value=1_000_000, value=None, step=256, key="upload_max_tokens"
        )
        values["max_iterations"] = row[3].number_input(
            "Judge iterations", min_value=1, max_value=MAX_ITERATIONS, value=MAX_ITERATIONS, step=1,
            key="upload_max_iterations",
        )  # fmt: skip
        pair = st.columns(2)
        with pair[0]:
            values["enable_thinking"] = _tri(
                "Thinking", "upload_thinking", "enableThinking: on, off or the model's own"
            )
        with pair[1]:
            values["clear_thinking"] = _tri(
                "Clear thinking", "upload_clear_thinking", "clearThinking: drop earlier turns' reasoning"
            )
    if values["max_tokens"] is not None:
        values["max_tokens"] = int(values["max_tokens"])
    values["max_iterations"] = int(values["max_iterations"])
    return {k: v for k, v in values.items() if v is not None}
