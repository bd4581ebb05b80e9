"""Upload: 1..MAX_BATCH_FILES recordings stored under uploads/, then a package-batch run."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

import streamlit as st
from pydantic import ValidationError
from streamlit.runtime.uploaded_file_manager import UploadedFile

from dashboards.redaction import Redactor
from dashboards.repository import Repository, UploadError
from rlauto_core.config.options import MAX_CONCURRENCY, RunOptions
from rlauto_core.rules import PROFILE_NAMES

RULE_PROFILES = PROFILE_NAMES
LAST_RUN = "last_launched_run"


@dataclass(frozen=True)
class UploadLimits:
    max_batch_files: int
    max_upload_mb: int


def upload_limits() -> UploadLimits:
    """MAX_BATCH_FILES / MAX_UPLOAD_MB through the deployment Settings (environment, then .env)."""
    from rlauto_core.config.settings import Settings

    try:
        settings = Settings()
    except ValidationError:
        # a broken unrelated setting must not hide the page; the documented defaults apply
        return UploadLimits(
            max_batch_files=_int_env("MAX_BATCH_FILES", 20), max_upload_mb=_int_env("MAX_UPLOAD_MB", 100)
        )
    return UploadLimits(max_batch_files=settings.max_batch_files, max_upload_mb=settings.max_upload_mb)


def _int_env(name: str, default: int) -> int:
    try:
        return max(1, int(os.environ.get(name, default)))
    except ValueError:
        return default


def render(repository: Repository, redactor: Redactor) -> None:
    st.header("Upload recordings")
    limits = upload_limits()
    st.caption(
        f"1 to {limits.max_batch_files} recordings (.zip, or a bare .har), each at most {limits.max_upload_mb} MB."
    )
    files = st.file_uploader("Recordings", type=["zip", "har"], accept_multiple_files=True, key="upload_files")
    cols = st.columns(3)
    profile = cols[0].selectbox("Rule profile", RULE_PROFILES, key="upload_profile")
    concurrency = cols[1].number_input(
        "Concurrency", min_value=1, max_value=MAX_CONCURRENCY, value=3, step=1, key="upload_concurrency"
    )
    strict = cols[2].checkbox("Strict full marks", key="upload_strict")
    if st.button("Store and start batch", type="primary", key="upload_start", disabled=not files):
        _start(repository, redactor, files or [], limits, profile, int(concurrency), strict)
    last = st.session_state.get(LAST_RUN)
    if last:
        st.success(f"Batch started ({last['via']}): job {redactor.markdown(last['job_id'])}")
        st.caption("The job appears in the Overview as its items finish.")
        if last.get("ui_url"):
            st.link_button("Open the run in the Prefect UI", last["ui_url"])


def _start(
    repository: Repository,
    redactor: Redactor,
    files: Sequence[UploadedFile],
    limits: UploadLimits,
    profile: str,
    concurrency: int,
    strict: bool,
) -> None:
    payload = [(f.name, bytes(f.getvalue())) for f in files]
    try:
        stored = repository.store_uploads(payload, max_files=limits.max_batch_files, max_upload_mb=limits.max_upload_mb)
    except UploadError as exc:
        st.error(redactor.markdown(str(exc)))
        return
    st.info(f"Stored {len(stored.paths)} recordings under uploads/{stored.upload_id}/")
    options = RunOptions(rule_profile=profile, concurrency=concurrency, strict_full_marks=strict)
    # imported here: the launcher pulls in Prefect (seconds to import), only needed on submit
    from flows.launch import launch_batch

    try:
        # the job takes the upload's folder name, so uploads/{job}/ holds the batch's recordings
        run = launch_batch(
            stored.uris,
            options,
            concurrency=concurrency,
            job_id=stored.upload_id,
            storage_url=repository.root_uri,
        )
    except Exception as exc:  # the UI's edge: any failure becomes a message, never a traceback
        st.error(f"The recordings are stored, but the batch did not start: {redactor.markdown(str(exc))}")
        return
    repository.refresh()
    st.session_state[LAST_RUN] = {
        "job_id": str(run.job_id),
        "flow_run_id": str(run.flow_run_id),
        "ui_url": run.ui_url,
        "via": run.via,
    }
