"""Upload: 1..MAX_BATCH_FILES recordings, checked here, then stored and started by the launcher."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st
from pydantic import ValidationError
from streamlit.runtime.uploaded_file_manager import UploadedFile

from dashboards.launcher import Launcher
from dashboards.views.upload_options import option_fields
from rlauto_core.config import MAX_CONCURRENCY, RunOptions, Settings
from rlauto_core.errors import RlautoError
from rlauto_core.redact import Redactor
from rlauto_core.rules import PROFILE_NAMES
from rlauto_core.store import ACCEPTED_KINDS, UPLOAD_SUFFIXES, UploadError, checked_names

LAST_RUN = "last_launched_run"


def render(launcher: Launcher, settings: Settings, redactor: Redactor) -> None:
    st.header("Upload recordings")
    st.caption(
        f"1 to {settings.max_batch_files} recordings ({ACCEPTED_KINDS}), each at most {settings.max_upload_mb} MB."
    )
    kinds = [suffix.lstrip(".") for suffix in UPLOAD_SUFFIXES]
    files = st.file_uploader("Recordings", type=kinds, accept_multiple_files=True, key="upload_files")
    cols = st.columns(3)
    profile = cols[0].selectbox("Rule profile", PROFILE_NAMES, key="upload_profile")
    concurrency = cols[1].number_input(
        "Model calls in flight",
        min_value=1,
        max_value=MAX_CONCURRENCY,
        value=3,
        step=1,
        key="upload_concurrency",
        help="The batch's concurrency: model calls at once (what the provider allows). Recordings in flight "
        "are a second bound, twice this, so parsing and bookkeeping overlap the model waits.",
    )
    strict = cols[2].checkbox("Strict full marks", key="upload_strict")
    chosen = option_fields()
    if st.button("Store and start batch", type="primary", key="upload_start", disabled=not files):
        try:
            options = RunOptions(rule_profile=profile, concurrency=int(concurrency), strict_full_marks=strict, **chosen)
        except ValidationError as exc:
            first = exc.errors()[0]
            st.error(redactor.markdown(f"{'.'.join(map(str, first['loc']))}: {first['msg']}"))
            return
        _start(launcher, settings, redactor, files or [], options)
    last = st.session_state.get(LAST_RUN)
    if last:
        st.success(f"Batch started ({last['via']}): job {redactor.markdown(last['job_id'])}")
        st.caption("The job appears in the Overview as its items finish.")
        if last.get("ui_url"):
            st.link_button("Open the run in the Prefect UI", last["ui_url"])


def _start(
    launcher: Launcher, settings: Settings, redactor: Redactor, files: Sequence[UploadedFile], options: RunOptions
) -> None:
    payload = [(f.name, bytes(f.getvalue())) for f in files]
    try:
        # refused here, before anything is stored: the same checks the launcher makes
        checked_names(payload, max_files=settings.max_batch_files, max_upload_mb=settings.max_upload_mb)
        run = launcher.launch(payload, options, options.concurrency)
    except UploadError as exc:
        st.error(redactor.markdown(str(exc)))
        return
    except (RlautoError, Exception) as exc:  # the UI's edge: any failure becomes a message, never a traceback
        st.error(f"The batch did not start: {redactor.markdown(str(exc))}")
        return
    st.session_state[LAST_RUN] = run.model_dump()
