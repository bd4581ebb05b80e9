"""The Evals page's agent-suite section: runs of a task suite compared across models and memory
settings (a chart of success rates, the evals, success per tag), and one eval's task runs, each
opening its step cards on the Agent page."""

from __future__ import annotations

import altair as alt
import pandas as pd
import streamlit as st

from dashboards.agent_evals import AgentEvalRows, by_model, by_tag, evals, suite_label, task_runs
from dashboards.navigation import App, go
from rlauto_core.redact import Redactor
from rlauto_core.store import open_storage

CHART_TITLE = "Success rate by model and memory"


@st.cache_resource
def _rows(url: str) -> AgentEvalRows:
    return AgentEvalRows(open_storage(url))


def success_chart(rates: pd.DataFrame, redactor: Redactor) -> alt.Chart:
    frame = rates.assign(model=rates["model"].map(redactor.text), percent=(rates["success rate"] * 100).round(1))
    chart: alt.Chart = (
        alt.Chart(frame, title=CHART_TITLE)
        .mark_bar()
        .encode(
            x=alt.X("model:N", title="model", axis=alt.Axis(labelAngle=0)),
            xOffset="memory:N",
            y=alt.Y("percent:Q", title="tasks passed (%)", scale=alt.Scale(domain=[0, 100])),
            color=alt.Color("memory:N", title="experience library", legend=alt.Legend(orient="bottom")),
            tooltip=["model", "memory", "percent", "runs", "evals"],
        )
        .properties(height=260)
    )
    return chart


def _task_runs(frame: pd.DataFrame, eval_id: str, redactor: Redactor) -> None:
    runs = task_runs(frame, eval_id)
    table = pd.DataFrame(
        {
            "task": runs["task_id"], "run": runs["run"], "passed": runs["success"],
            "outcome": runs["outcome"].fillna("not run"), "why not": runs["reason"].map(redactor.text),
            "steps": runs["steps"], "tokens": runs["tokens_total"], "wall s": runs["wall_s"].round(2),
            "tags": runs["tags"].map(lambda tags: ", ".join(tags)),
        }
    )  # fmt: skip
    st.caption("Select a task run to open its step cards on the Agent page.")
    event = st.dataframe(table, hide_index=True, width="stretch", key=f"agent-eval-runs-{eval_id}",
                         on_select="rerun", selection_mode="single-row")  # fmt: skip
    chosen = event.selection.rows if event is not None else []
    if chosen and 0 <= chosen[0] < len(runs):
        go("agent", agent_run=str(runs["agent_run_id"].iloc[chosen[0]]))


def render_agent_suite_evals(app: App) -> None:
    """The section, from `index/agent_evals/` in the app's storage."""
    st.subheader("Agent task suites")
    redactor = app.redactor
    reader = _rows(app.repository.root_uri)
    frame = reader.table()
    if reader.unreadable:
        st.warning(
            f"{len(reader.unreadable)} eval file(s) cannot be read, e.g. {redactor.markdown(reader.unreadable[0])}"
        )
    if frame.empty:
        st.caption("No agent suite eval yet: `rlauto agent eval --device demo-1 --model scripted` runs the demo suite.")
        return
    labels = suite_label(frame)
    suites = list(dict.fromkeys(labels.iloc[::-1]))  # the newest suite first
    suite = st.selectbox("Suite", suites, key="agent-eval-suite") if len(suites) > 1 else suites[0]
    frame = frame[labels == suite]
    st.caption(f"Suite {redactor.markdown(suite)}: evals compare only on the same suite content.")
    rates = by_model(frame)
    st.altair_chart(success_chart(rates, redactor), key="chart_agent_evals")
    table = evals(frame)
    st.dataframe(
        table.assign(model=table["model"].map(redactor.text)).drop(columns=["suite"]),
        hide_index=True, width="stretch", key="agent-evals",
        column_config={"success rate": st.column_config.ProgressColumn("success rate", format="percent",
                                                                       min_value=0.0, max_value=1.0)},
    )  # fmt: skip
    tags = by_tag(frame)
    if not tags.empty:
        st.markdown("**Success per tag**")
        st.dataframe(tags.style.format("{:.0%}", na_rep="-"), width="stretch", key="agent-eval-tags")
    choices = {
        row["eval"]: f"{row['started']:%Y-%m-%d %H:%M} · {redactor.text(row['model'])} · memory {row['memory']} · "
        f"{row['passed']}/{row['runs']} passed"
        for _, row in table.iterrows()
    }
    chosen = st.selectbox("Task runs of the eval", list(choices), format_func=choices.__getitem__,
                          key="agent-eval-chosen")  # fmt: skip
    if chosen is not None:
        _task_runs(frame, str(chosen), redactor)
