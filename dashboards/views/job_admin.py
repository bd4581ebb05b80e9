"""Delete a job: its uploads, exports and index rows, through the core (`delete_job`), after a
confirmation that names the job and what goes. Runs of the job still going are stopped first
(the launcher's `stop_job`, waited for), so none writes into the folders after they are gone; the
message says which it stopped. Shown under the Overview's job table."""

from __future__ import annotations

import streamlit as st

from dashboards.launcher import Launcher
from dashboards.repository import Repository
from rlauto_core.errors import RlautoError
from rlauto_core.redact import Redactor
from rlauto_core.store import DeletedJob, delete_job, job_folders

ARMED = "job_delete_armed"
FLASH = "job_delete_flash"


def show_deleted() -> None:
    """What the last deletion did, once (the Overview shows it first: the job deleted may have
    been the last one, and then no job table follows)."""
    flash = st.session_state.pop(FLASH, None)
    if flash:
        st.success(flash)


def render(repository: Repository, redactor: Redactor, launcher: Launcher, job_ids: list[str]) -> None:
    st.subheader("Delete a job")
    if not job_ids:
        return
    job = st.selectbox("Job to delete", job_ids, key="job_delete_pick", format_func=redactor.text)
    if st.button("Delete job…", key="job_delete"):
        st.session_state[ARMED] = job
    if st.session_state.get(ARMED) != job or not job:
        return
    try:
        folders = ", ".join(job_folders(job).values())
    except RlautoError as exc:  # an id in the index that no job could have
        st.error(redactor.markdown(str(exc)))
        return
    st.warning(
        f"Delete job {redactor.markdown(job)}: every item's index rows and reviews, its exports and its "
        f"uploads ({redactor.markdown(folders)})? Its runs still going are stopped first. This cannot be "
        "undone. Type the job id to confirm."
    )
    typed = st.text_input("Job id", key="job_delete_typed")
    cols = st.columns(2)
    if cols[1].button("Cancel", key="job_delete_cancel"):
        st.session_state.pop(ARMED, None)
        st.rerun()
    if cols[0].button("Delete for good", key="job_delete_confirm", type="primary", disabled=typed.strip() != job):
        try:
            with st.spinner("Stopping the job's runs…"):
                stopped = launcher.stop_job(job)  # before anything goes: no run writes after
            deleted = delete_job(repository.storage, job)
        except RlautoError as exc:
            st.error(redactor.markdown(str(exc)))
            return
        repository.refresh()
        st.session_state.pop(ARMED, None)
        st.session_state.pop("job_delete_typed", None)
        st.session_state[FLASH] = _deleted_message(job, stopped, deleted, redactor)
        st.rerun()


def _deleted_message(job: str, stopped: list[str], deleted: DeletedJob, redactor: Redactor) -> str:
    runs = f"Stopped {len(stopped)} runs ({redactor.markdown(', '.join(stopped))}), then deleted" if stopped else (
        "No run of it was going. Deleted"
    )  # fmt: skip
    kept = f"; {len(deleted.kept)} review files shared with other jobs kept" if deleted.kept else ""
    return (
        f"{runs} job {redactor.markdown(job)}: {deleted.index_files} index files, "
        f"{deleted.export_files} export files, {deleted.upload_files} uploads{kept}."
    )
