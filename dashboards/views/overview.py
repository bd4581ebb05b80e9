"""Overview: one line per job with its counts by status, pass rate, mean score and tokens."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboards.repository import Repository
from dashboards.views import job_admin
from rlauto_core.pipeline import ITEM_STATUSES
from rlauto_core.redact import Redactor

BUNDLE = "job_bundle"


def render(repository: Repository, redactor: Redactor) -> None:
    st.header("Overview")
    jobs = repository.list_jobs()
    if not jobs:
        st.info("The index is empty: no item has finished yet. Upload recordings or run a batch.")
        return
    total = sum(j.items for j in jobs)
    passed = sum(j.passed for j in jobs)
    cols = st.columns(4)
    cols[0].metric("Jobs", len(jobs))
    cols[1].metric("Items", total)
    cols[2].metric("Pass rate", f"{passed / total:.0%}" if total else "-")
    cols[3].metric("Tokens spent", f"{sum(j.tokens_total for j in jobs):,}")
    statuses = list(ITEM_STATUSES) + sorted({s for j in jobs for s in j.status_counts} - set(ITEM_STATUSES))
    table = pd.DataFrame(
        [
            {
                "job": redactor.text(j.job_id),
                "items": j.items,
                **{status: j.status_counts.get(status, 0) for status in statuses},
                "passed": j.passed,
                "pass rate": round(j.pass_rate * 100, 1),
                "mean score": None if j.mean_score is None else round(j.mean_score, 2),
                "tokens": j.tokens_total,
                "reviewed": j.reviewed,
                "last finished": j.last_finished_at,
            }
            for j in jobs
        ]
    )
    st.dataframe(table, hide_index=True, width="stretch")
    render_bundle(repository, [j.job_id for j in jobs])
    job_admin.render(repository, redactor, [j.job_id for j in jobs])


def render_bundle(repository: Repository, job_ids: list[str]) -> None:
    """All passing packages of a job as one ZIP, built on request (it reads every output ZIP)."""
    st.subheader("Download passing packages")
    job = st.selectbox("Job", job_ids, key="bundle_job")
    if st.button("Build ZIP of passing packages", key="bundle_build") and job:
        bundle = repository.job_bundle(job)
        st.session_state[BUNDLE] = (job, bundle)
    built = st.session_state.get(BUNDLE)
    if built and built[0] == job:
        bundle = built[1]
        st.caption(
            f"{len(bundle.included)} passing packages"
            + (f"; missing output ZIP for {len(bundle.missing)}" if bundle.missing else "")
        )
        st.download_button(
            "Download all-results ZIP",
            data=bundle.data,
            file_name=f"all-results-{job}.zip",
            mime="application/zip",
            key="bundle_download",
        )
