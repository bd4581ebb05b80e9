"""One item (`?job=...&item=...`): what a reviewer needs to decide, on one page: the figures on
top, then tabs for the package (rubrics beside the golden trajectory), the judge loop, two
iterations side by side, and the review."""

from __future__ import annotations

import json
from typing import Any

import pandas as pd
import streamlit as st

from dashboards.launcher import Launcher, NoLauncher
from dashboards.models import StoredFileError
from dashboards.navigation import go
from dashboards.repository import Repository
from dashboards.views import compare, item_actions, judge_panel, review_form, rubrics, write_accounting
from dashboards.views.common import opened_item, pretty_json, show_json, show_text
from rlauto_core.package import package_file_name
from rlauto_core.redact import Redactor
from rlauto_core.store import IndexedItem


def render(repository: Repository, redactor: Redactor, launcher: Launcher | None = None) -> None:
    opened = opened_item()
    if opened is None:
        go("items")  # nothing named: the way to an item is its row
        return
    job_id, item_id = opened
    if st.button("All items", icon=":material/arrow_back:", key="back_to_items"):
        go("items")
    item = repository.get_item(job_id, item_id)
    if item is None:
        st.warning(f"No item {redactor.markdown(job_id)} / {redactor.markdown(item_id)} in the index.")
        return
    package, problem = _read_package(repository, item.package_path)
    # a secret the package's recorded calls carry is removed from everything the page shows
    redactor = redactor.knowing(package) if package is not None else redactor
    st.header(f"Item {redactor.markdown(item.item_id)}")
    st.caption(f"job {redactor.markdown(item.job_id)} · source {redactor.markdown(item.source_name or '-')}")
    _summary(item)
    st.subheader("Instruction")
    show_text(redactor, item.instruction)
    if item.error:
        st.error(redactor.markdown(item.error))
    if problem is not None and item.package_path:
        st.warning(redactor.markdown(problem))
    elif problem is not None:
        st.info(problem)
    iterations = repository.get_iterations(item.job_id, item.item_id)
    package_tab, judge_tab, compare_tab, review_tab = st.tabs(
        ["Package", "Judge loop", "Compare iterations", "Review"], key="item_tabs"
    )
    with package_tab:
        if package is not None:
            rubrics.render(package, redactor)
        _self_check(item, package, redactor)
        _flags(item, package, redactor)
        if package is not None:
            _package_sections(package, redactor)
        _downloads(repository, item, package, redactor)
    with judge_tab:
        judge_panel.render(repository, redactor, iterations)
    with compare_tab:
        compare.render(repository, redactor, iterations)
    with review_tab:
        review_form.render(repository, redactor, item)
        item_actions.render(item, launcher or NoLauncher(), redactor)


def _read_package(repository: Repository, path: str | None) -> tuple[dict[str, Any] | None, str | None]:
    """The item's package, or why there is none to show."""
    if not path:
        return None, "No task package: no iteration produced one."
    try:
        value = repository.read_json(path)
    except StoredFileError as exc:
        return None, str(exc)
    if not isinstance(value, dict):
        return None, f"{path}: a task package must be a JSON object"
    return value, None


def _summary(item: IndexedItem) -> None:
    cols = st.container(border=True).columns(6)
    cols[0].metric("Verdict", item.verdict or "-")
    cols[1].metric("Score", "-" if item.total_score is None else f"{item.total_score}/{item.max_score or 12}")
    cols[2].metric("Iterations", item.iterations_used if item.iterations_used is not None else "-")
    cols[3].metric("Best iteration", item.best_iteration if item.best_iteration is not None else "-")
    cols[4].metric("Tokens", f"{item.tokens_total or 0:,}")
    cols[5].metric("Decision", item.decision or "none")
    st.caption(f"status {item.status} · mode {item.mode} · rule profile {item.rule_profile} · analyzer {item.analyzer}")


def _flags(item: IndexedItem, package: dict[str, Any] | None, redactor: Redactor) -> None:
    st.subheader("Flags")
    flags: Any = (package or {}).get("validation", {}).get("flags") if package else None
    if flags is None:
        try:
            flags = json.loads(item.flags_json or "[]")
        except json.JSONDecodeError:
            flags = []
    rows = [
        {
            "code": str(f.get("code", "")),
            "severity": str(f.get("severity", "")),
            "message": redactor.text(str(f.get("message", ""))),
            "calls": ", ".join(map(str, f.get("call_ids") or [])),
        }
        for f in flags
        if isinstance(f, dict)
    ]
    if rows:
        st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    else:
        st.caption("No flags.")


def _self_check(item: IndexedItem, package: dict[str, Any] | None, redactor: Redactor) -> None:
    st.subheader("Self-check")
    check: Any = ((package or {}).get("validation") or {}).get("self_check") or {}
    golden = check.get("golden_full_marks", item.golden_full_marks)
    empty = check.get("empty_attempt_score", item.empty_attempt_score)
    total = check.get("mutants_total", item.mutants_total)
    caught = check.get("mutants_caught", item.mutants_caught)
    variants = check.get("variants_total")
    cols = st.columns(4)
    cols[0].metric("Golden at full marks", "-" if golden is None else ("yes" if golden else "NO"))
    cols[1].metric("Empty attempt score", "-" if empty is None else f"{empty:g}")
    cols[2].metric("Mutants caught", "-" if total is None else f"{caught}/{total}")
    cols[3].metric(
        "Valid variants at full marks", "-" if not variants else f"{check.get('variants_passed')}/{variants}"
    )
    for variant in [*(check.get("variants") or []), *(check.get("behaviour_variants") or [])]:
        if isinstance(variant, dict) and not variant.get("full_marks", True):
            broken = "; ".join(
                f"{b.get('id')} ({b.get('title')}): {b.get('reason')}"
                for b in variant.get("broken") or []
                if isinstance(b, dict)
            )
            st.error(
                redactor.markdown(f"Variant {variant.get('id')} fails: {variant.get('description')}. Breaks {broken}")
            )
    for problem in check.get("problems") or []:
        # said above with every rubric it breaks, or in the recorded writes below
        if not str(problem).startswith(("valid variant ", "recording mutant ", "recorded write ")):
            st.warning(redactor.markdown(str(problem)))
    if check:
        write_accounting.render(check, redactor)


def _package_sections(package: dict[str, Any], redactor: Redactor) -> None:
    task = package.get("task") or {}
    st.subheader("Subtasks and their calls")
    for subtask in task.get("subtasks") or []:
        calls = subtask.get("apiCalls") or []
        title = f"{subtask.get('id', '?')} · {subtask.get('title', '')} ({len(calls)} calls)"
        with st.expander(redactor.markdown(title)):
            show_text(redactor, subtask.get("description"), empty="")
            for call in calls:
                st.text(redactor.text(f"{call.get('name', '?')} · id {call.get('id')}"))
                show_json(redactor, {"input": call.get("input"), "output": call.get("output")}, expanded=False)
    with st.expander("Whole package (JSON)"):
        show_json(redactor, package, expanded=False)


def _downloads(repository: Repository, item: IndexedItem, package: dict[str, Any] | None, redactor: Redactor) -> None:
    st.subheader("Download")
    cols = st.columns(2)
    if package is not None:
        cols[0].download_button(
            "Task package (JSON)",
            data=pretty_json(redactor, package).encode("utf-8"),
            file_name=f"{item.item_id}.task-package.json",
            mime="application/json",
            key="download_package_json",
        )
    if item.output_zip_path:
        try:
            data = repository.read_bytes(item.output_zip_path)
        except StoredFileError as exc:
            cols[1].warning(redactor.markdown(str(exc)))
        else:
            cols[1].download_button(
                "Package ZIP",
                data=data,
                file_name=package_file_name(item.source_name or item.item_id),
                mime="application/zip",
                key="download_package_zip",
            )
    else:
        cols[1].caption("No package ZIP: only passing items have one.")
