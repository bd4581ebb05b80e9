"""Items: the filterable, sortable, paginated table; selecting a row opens that item's page."""

from __future__ import annotations

from typing import Final, get_args

import pandas as pd
import streamlit as st

from dashboards.models import UNREVIEWED, ItemQuery, SortKey
from dashboards.navigation import go
from dashboards.repository import Repository
from dashboards.views.common import short
from rlauto_core.redact import Redactor
from rlauto_core.store import REVIEW_DECISIONS

PAGE_SIZES = (25, 50, 100)
# the filters, sort and page outlive the page switch to an item: browser Back (or "All items")
# returns to the same filtered page; a new session (a reload) starts from the defaults
KEPT: Final = "session"
TABLE = "items_table"
# bumped whenever a row opens an item, so the table comes back unselected (a new widget key)
GENERATION = "items_table_generation"


def table_key() -> str:
    return f"{TABLE}-{st.session_state.get(GENERATION, 0)}"


def _query_from_widgets(repository: Repository) -> ItemQuery:
    choices = repository.filter_choices()
    with st.expander("Filters", expanded=False, icon=":material/filter_list:"):  # the table first
        c1, c2, c3 = st.columns(3)
        jobs = c1.multiselect("Job", choices.job_ids, key="f_job", persist_state=KEPT)
        statuses = c2.multiselect("Status", choices.statuses, key="f_status", persist_state=KEPT)
        verdicts = c3.multiselect("Verdict", choices.verdicts, key="f_verdict", persist_state=KEPT)
        c4, c5, c6 = st.columns(3)
        modes = c4.multiselect("Mode", choices.modes, key="f_mode", persist_state=KEPT)
        profiles = c5.multiselect("Rule profile", choices.rule_profiles, key="f_profile", persist_state=KEPT)
        flags = c6.multiselect("Flag codes (any)", choices.flag_codes, key="f_flags", persist_state=KEPT)
        c7, c8 = st.columns(2)
        decisions = c7.multiselect(
            "Reviewer decision", [*REVIEW_DECISIONS, UNREVIEWED], key="f_decision", persist_state=KEPT
        )
        low, high = c8.slider("Score range", 0, 12, (0, 12), key="f_score", persist_state=KEPT)
        text = st.text_input("Search in instruction", key="f_text", persist_state=KEPT)
    c9, c10, c11, c12 = st.columns(4)
    sort = c9.selectbox("Sort by", get_args(SortKey), key="f_sort", persist_state=KEPT)
    descending = c10.checkbox("Descending", value=True, key="f_desc", persist_state=KEPT)
    page_size = c11.selectbox("Page size", PAGE_SIZES, key="f_page_size", persist_state=KEPT)
    page = c12.number_input("Page", min_value=1, value=1, step=1, key="f_page", persist_state=KEPT)
    full_range = (low, high) == (0, 12)  # the untouched slider also keeps items with no score
    return ItemQuery(
        job_ids=tuple(jobs),
        statuses=tuple(statuses),
        verdicts=tuple(verdicts),
        modes=tuple(modes),
        rule_profiles=tuple(profiles),
        flag_codes=tuple(flags),
        decisions=tuple(decisions),
        score_min=None if full_range else low,
        score_max=None if full_range else high,
        text=text,
        sort=sort,
        descending=descending,
        page=int(page),
        page_size=int(page_size),
    )


def render(repository: Repository, redactor: Redactor) -> None:
    st.header("Items")
    query = _query_from_widgets(repository)
    result = repository.find_items(query)
    st.caption(f"{result.total} items match · page {result.page} of {result.pages}")
    if not result.rows:
        st.info("No item matches these filters.")
        return
    table = pd.DataFrame(
        [
            {
                "job": redactor.text(r.job_id),
                "item": redactor.text(r.item_id),
                "source": redactor.text(r.source_name or ""),
                "status": r.status,
                "verdict": r.verdict,
                "score": r.total_score,
                "iterations": r.iterations_used,
                "mode": r.mode,
                "rule profile": r.rule_profile,
                "flags": ", ".join(r.flag_codes),
                "decision": r.decision or "",
                "reviewer": redactor.text(r.reviewer or ""),
                "tokens": r.tokens_total,
                "finished": r.finished_at,
                "instruction": redactor.text(short(r.instruction, 120)),
            }
            for r in result.rows
        ]
    )
    st.caption("Select a row to open its item.")
    event = st.dataframe(
        table,
        hide_index=True,
        width="stretch",
        key=table_key(),
        on_select="rerun",
        selection_mode="single-row",
        column_config={"score": st.column_config.ProgressColumn("score", format="%d", min_value=0, max_value=12)},
    )
    chosen = event.selection.rows if event is not None else []
    if chosen and 0 <= chosen[0] < len(result.rows):
        row = result.rows[chosen[0]]
        st.session_state[GENERATION] = st.session_state.get(GENERATION, 0) + 1
        go("item", job=row.job_id, item=row.item_id)
