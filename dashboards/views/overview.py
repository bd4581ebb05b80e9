"""Overview: the figures, the score distribution per job, pass rate and tokens over time, and
one line per job with its counts by status, pass rate, mean score and tokens."""

from __future__ import annotations

from datetime import timedelta
from typing import get_args

import pandas as pd
import streamlit as st

from dashboards.launcher import Launcher
from dashboards.models import Bucket, JobSummary
from dashboards.repository import Repository
from dashboards.views import charts, job_admin
from rlauto_core.pipeline import ITEM_STATUSES
from rlauto_core.redact import Redactor

BUNDLE = "job_bundle"
CHART_JOBS = 6  # the newest jobs charted by default: more bars per score stop being readable


def render(repository: Repository, redactor: Redactor, launcher: Launcher) -> None:
    st.header("Overview")
    job_admin.show_deleted()
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
    _charts(repository, redactor, jobs)
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
    st.subheader("Jobs")
    st.dataframe(
        table,
        hide_index=True,
        width="stretch",
        column_config={
            "pass rate": st.column_config.ProgressColumn("pass rate", format="%.0f%%", min_value=0, max_value=100),
            "mean score": st.column_config.NumberColumn("mean score", format="%.2f"),
        },
    )
    render_bundle(repository, [j.job_id for j in jobs])
    job_admin.render(repository, redactor, launcher, [j.job_id for j in jobs])


def _default_bucket(jobs: list[JobSummary]) -> Bucket:
    """Hours for a day or two of work, days for a few weeks, weeks beyond: a readable number of points."""
    starts = [j.first_started_at for j in jobs if j.first_started_at]
    ends = [j.last_finished_at for j in jobs if j.last_finished_at]
    span = (max(ends) - min(starts)) if starts and ends else timedelta(0)
    return "hour" if span <= timedelta(days=2) else "day" if span <= timedelta(days=60) else "week"


def _charts(repository: Repository, redactor: Redactor, jobs: list[JobSummary]) -> None:
    job_ids = [j.job_id for j in jobs]  # newest first
    chosen = st.multiselect(
        "Jobs in the charts (none chosen: all)",
        job_ids,
        default=job_ids[:CHART_JOBS],
        format_func=redactor.text,
        key="chart_jobs",
    )
    shown = [j for j in jobs if j.job_id in chosen] or jobs
    left, right = st.columns(2, border=True)
    with left:
        counts = repository.score_distribution(tuple(chosen))
        if counts:
            st.altair_chart(charts.score_distribution(counts, redactor), key="chart_scores")
        else:
            st.caption("No item of these jobs has a judge score yet.")
    with right:
        buckets: list[Bucket] = list(get_args(Bucket))
        bucket = st.segmented_control(
            "Per", buckets, default=_default_bucket(shown), key="activity_bucket", label_visibility="collapsed"
        )
        st.altair_chart(charts.activity(repository.activity(bucket or "day", tuple(chosen))), key="chart_activity")


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
