"""The Agent page's recent runs: every agent run, newest first, whoever started it (the CLI, the
SDK, this dashboard, an eval, the designer), with how it is now; a click on a run watches it here
as a run started on this page is watched (step cards, liveness, controls)."""

from __future__ import annotations

from datetime import UTC, datetime

import streamlit as st

from dashboards.views import agent_run
from rlauto_core.agent.run import ListedRun, RunList
from rlauto_core.errors import RlautoError
from rlauto_core.redact import Redactor
from rlauto_core.store import Storage

RUNS_SHOWN = 30
RUNS_REFRESH_S = 5.0
# Material Symbols ship with the dashboard (no emoji: Chromium on Debian draws some as empty boxes)
STATUS_ICONS = {
    "new": ":material/schedule:",
    "running": ":material/play_circle:",
    "waiting_for_person": ":material/front_hand:",
    "paused": ":material/pause_circle:",
    "budget_exhausted": ":material/pause_circle:",
    "stopped": ":material/stop_circle:",
    "failed": ":material/error:",
    "completed": ":material/check_circle:",
    "blocked": ":material/block:",
    "chat_ended": ":material/chat:",
}


def _ago(at: datetime, now: datetime) -> str:
    seconds = max(0, int((now - at).total_seconds()))
    if seconds < 90:
        return f"{seconds} s ago"
    if seconds < 90 * 60:
        return f"{seconds // 60} min ago"
    if seconds < 36 * 3600:
        return f"{seconds // 3600} h ago"
    return at.strftime("%Y-%m-%d %H:%M")


def run_line(run: ListedRun, now: datetime, redactor: Redactor) -> str:
    """One run in a line (markdown, a button's label): how it is, when it started, where, by whom."""
    status = run.status or "unreadable"
    who = f" · {redactor.markdown(run.origin)}" if run.origin else ""
    mode = f" · {redactor.markdown(run.mode)}" if run.mode != "agent" else ""
    where = redactor.markdown(run.serial)
    return f"**{status.replace('_', ' ')}** · {_ago(run.created_at, now)} · {where}{who}{mode} · {run.steps} steps"


@st.fragment(run_every=RUNS_REFRESH_S)
def recent_runs(storage: Storage, redactor: Redactor) -> None:
    st.markdown("**Recent runs**")
    try:
        runs = RunList(storage).recent(RUNS_SHOWN)
    except (RlautoError, OSError) as exc:
        st.error(f"Runs: {redactor.markdown(str(exc))}")
        return
    if not runs:
        st.caption("No agent run yet: send an instruction, or `rlauto agent run ... --device SERIAL`.")
        return
    watched = agent_run.watched()
    now = datetime.now(UTC)
    with st.container(height=360, key="agent-recent-runs"):
        for run in runs:
            with st.container(key=f"agent-run-row-{run.run_id}", gap="small"):
                icon = STATUS_ICONS.get(run.status or "", ":material/help:")
                # the row is the way in: a click opens the run on the right (the watched one is marked)
                if st.button(run_line(run, now, redactor), key=f"agent_open_{run.run_id}", icon=icon,
                             type="tertiary", disabled=run.run_id == watched,
                             help="watched on the right" if run.run_id == watched else "open this run"):  # fmt: skip
                    agent_run.watch(run.run_id)
                    st.rerun()
                st.caption(redactor.markdown(run.instruction[:160]))
