"""Polish: a raw task text -> a clear Chinese and English instruction plus notes, by the model."""

from __future__ import annotations

import streamlit as st
from pydantic import ValidationError

from rlauto_core.config import Settings
from rlauto_core.errors import RlautoError
from rlauto_core.redact import Redactor

NO_MODEL = (
    "No model is configured for polishing: set DEFAULT_API_KEY (and DEFAULT_BASE_URL / DEFAULT_MODEL "
    "if needed) in the environment or .env of the dashboard, then restart it."
)


def render(settings: Settings, redactor: Redactor) -> None:
    st.header("Polish a task")
    with st.form("polish_form"):
        raw = st.text_area("Raw task text", key="polish_raw", height=160)
        submitted = st.form_submit_button("Polish")
    if not submitted:
        return
    # imported here: the model layer is only needed when someone asks for a polish
    from rlauto_core.analysis import polish_task
    from rlauto_core.llm import Role, http_client, resolve_endpoint

    try:
        if not resolve_endpoint(Role.POLISH, settings).configured:
            st.warning(NO_MODEL)
            return
        with st.spinner("Asking the model…"), http_client(Role.POLISH, settings) as client:
            outcome = polish_task(raw, client)
    except ValidationError as exc:
        st.error(f"The model settings are invalid: {redactor.markdown(str(exc.errors()[0]['msg']))}")
        return
    except RlautoError as exc:
        st.error(redactor.markdown(str(exc)))
        return
    result = outcome.result
    st.subheader("中文")
    st.text(redactor.text(result.zh))
    st.subheader("English")
    st.text(redactor.text(result.en))
    if result.notes:
        st.subheader("Notes")
        st.text(redactor.text(result.notes))
    st.caption(f"tokens: {outcome.usage.prompt_tokens} in, {outcome.usage.completion_tokens} out")
