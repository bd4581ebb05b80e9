"""The package's rubrics beside its golden trajectory: which golden step each rubric's checker
matches, found by scoring the golden trajectory with the package's own checkers (the same
runtime the self-check uses), so a rubric that checks nothing the golden run does stands out."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st
from pydantic import ValidationError

from dashboards.views.common import show_json, show_text
from rlauto_core.checkers import ScoreReport, score
from rlauto_core.errors import RlautoError
from rlauto_core.judging import golden_attempt
from rlauto_core.package import TaskPackage
from rlauto_core.redact import Redactor

MATCHED = ":material/check_circle:"  # the rubric's checker matches a golden step
UNMATCHED = ":material/warning:"  # it checks nothing the golden run does


def golden_report(package: dict[str, Any]) -> ScoreReport | str:
    """The golden trajectory scored by the package's checkers, or why it cannot be."""
    try:
        model = TaskPackage.model_validate(package)
        attempt, problems = golden_attempt(model)
        report = score(model, attempt)
    except ValidationError as exc:
        return f"the package does not read as a task package ({exc.error_count()} problems)"
    except (RlautoError, ValueError, TypeError, KeyError) as exc:  # a stored package is data: never a crash
        return str(exc)
    return report if not problems else "; ".join(problems)


def render(package: dict[str, Any], redactor: Redactor) -> None:
    task = package.get("task") or {}
    report = golden_report(package)
    matched: dict[str, list[str]] = {}  # rubric id -> golden call ids its checker matched
    if isinstance(report, ScoreReport):
        matched = {r.id: r.matched_call_ids for r in report.rubrics}
    steps = [s for s in package.get("golden_trajectory") or [] if isinstance(s, dict)]
    step_of = {str(s.get("call_id", "")): s.get("step") for s in steps}
    left, right = st.columns([3, 2], gap="large")
    with left:
        st.subheader("Rubrics and their checkers")
        if isinstance(report, ScoreReport):
            st.caption(f"the golden trajectory scores {report.score:g}/{report.max_score:g} on these checkers")
        else:
            st.warning(redactor.markdown(f"the golden trajectory could not be scored: {report}"))
        _rubrics(package, task, matched, step_of, redactor)
    with right:
        st.subheader("Golden trajectory")
        if not steps:
            st.caption("Empty golden trajectory.")
            return
        by_call: dict[str, list[str]] = {}
        for rubric_id, call_ids in matched.items():
            for call_id in call_ids:
                by_call.setdefault(call_id, []).append(rubric_id)
        st.dataframe(
            pd.DataFrame(
                [
                    {
                        "step": s.get("step"),
                        "call": str(s.get("call_id", "")),
                        "name": redactor.text(str(s.get("name", ""))),
                        "state changing": bool(s.get("state_changing")),
                        "rubrics": ", ".join(by_call.get(str(s.get("call_id", "")), [])),
                    }
                    for s in steps
                ]
            ),
            hide_index=True,
            width="stretch",
        )


def _rubrics(
    package: dict[str, Any],
    task: dict[str, Any],
    matched: dict[str, list[str]],
    step_of: dict[str, Any],
    redactor: Redactor,
) -> None:
    checkers = package.get("rubric_checkers") or {}
    for rubric in task.get("rubrics") or []:
        key = rubric.get("checker_key")
        calls = matched.get(str(rubric.get("id")), [])
        icon = MATCHED if calls else UNMATCHED
        with st.expander(redactor.markdown(f"{rubric.get('id', '?')} · {rubric.get('title', '')} → {key}"), icon=icon):
            show_text(redactor, rubric.get("description"), empty="")
            golden = ", ".join(f"step {step_of.get(c, '?')} ({c})" for c in calls)
            st.caption(f"max score {rubric.get('max_score', '-')} · " + (
                f"matches golden {redactor.markdown(golden)}" if calls else "matches no golden step"))  # fmt: skip
            checker = checkers.get(key) if isinstance(checkers, dict) and key else None
            if checker is None:
                st.warning(redactor.markdown(f"no checker for key {key!r}"))
            else:
                show_json(redactor, checker)
